// `npm run cli -- train-traces`: trains a LoRA adapter from the traces `serve` captured (run
// folder OUT/traces/*.jsonl with rewards posted per rollout): GRPO over task groups or
// reward-weighted fine-tuning, then writes the PEFT adapter and metrics.jsonl. A separate entry
// until `train` takes --traces. Tested by tests/unit/server/serve-train-traces.test.ts (trainTracesRun).
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CliCommand, ParsedArgs } from '../../util/args';
import { getBool, getNumber, getString, requireString } from '../../util/args';
import { loadCliModel, MODEL_OPTIONS, type CliModel } from '../../model/node-load';
import { GrpoLoss } from '../../gpu/kernels/grpo';
import { NodeDirSource } from '../../model/io/node-source';
import { readPeftAdapter } from '../../model/io/peft';
import type { Projection } from '../../model/types';
import { resolveGrpoLoss, type LossAggregation } from '../../reference/grpo_loss';
import { readTraces } from '../../server/openai/trace-episodes';
import { trainOnTraces, type TraceTrainerKind } from '../../server/openai/trace-train';
import { exportPeftAdapter } from '../../train/peft-export';
import { Trainer } from '../../train/trainer';
import { writeFiles } from '../../train/write-files';

const TARGETS: Projection[] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];

function targetsOf(s: string): Projection[] {
  const list = s.split(',').map((x) => x.trim()) as Projection[];
  const bad = list.filter((t) => !TARGETS.includes(t));
  if (bad.length) throw new Error(`--targets: unknown projection ${bad.join(', ')}; use some of ${TARGETS.join(',')}`);
  return list;
}

/**
 * The command's work. `base`: an already loaded base model (tests); it is kept, else the model
 * named by --model is loaded and freed here.
 */
export async function trainTracesRun(args: ParsedArgs, log: (line: string) => void, base?: CliModel): Promise<{ out: string; history: Record<string, number>[] }> {
  const traces = readTraces(requireString(args, 'traces'));
  const kind = getString(args, 'trainer', 'grpo');
  if (kind !== 'grpo' && kind !== 'reward_weighted') throw new Error(`--trainer must be grpo or reward_weighted, got "${kind}"`);
  log(`traces: ${traces.episodes.length} episodes in ${new Set(traces.episodes.map((e) => e.group)).size} task groups; ${traces.unrewarded} rollouts without a reward left out; ${traces.diverged} re-tokenized`);
  // The adapter to continue is trained, not frozen: load the base model alone.
  const adapterDir = getString(args, 'adapter');
  const baseArgs: ParsedArgs = { ...args, flags: { ...args.flags } };
  delete baseArgs.flags.adapter;
  const { rt, loaded, model } = base ?? (await loadCliModel(baseArgs));
  const out = getString(args, 'out', join('runs', `train-traces-${new Date().toISOString().replace(/[:.]/g, '-')}`));
  const steps = getNumber(args, 'steps', 1);
  const lr = getNumber(args, 'lr', 2e-5);
  const trainer = await Trainer.create(rt, model, {
    params: adapterDir
      ? { mode: 'lora', adapter: await readPeftAdapter(new NodeDirSource(adapterDir), loaded.config) }
      : { mode: 'lora', config: { rank: getNumber(args, 'rank', 8), alpha: getNumber(args, 'alpha', 16), useRslora: false, targets: targetsOf(getString(args, 'targets', TARGETS.join(','))) }, seed: getNumber(args, 'seed', 0) },
    optimizer: { schedule: { kind: 'constant', lr, warmupSteps: 0 }, weightDecay: 0, maxGradNorm: getNumber(args, 'clip', 1) },
  });
  const loss = await GrpoLoss.create(rt);
  try {
    const history = await trainOnTraces(rt, trainer, loss, traces.episodes, {
      trainer: kind as TraceTrainerKind, steps, microBatch: getNumber(args, 'micro-batch', 4), scaleRewards: getBool(args, 'scale-rewards', true),
      threshold: getNumber(args, 'threshold', 0),
      loss: resolveGrpoLoss({
        beta: getNumber(args, 'beta', 0), epsilonLow: getNumber(args, 'epsilon-low', 0.2), epsilonHigh: getNumber(args, 'epsilon-high', 0.28),
        aggregation: getString(args, 'loss-type', 'token-mean') as LossAggregation,
      }),
    }, log);
    mkdirSync(out, { recursive: true });
    appendFileSync(join(out, 'metrics.jsonl'), history.map((h) => JSON.stringify(h)).join('\n') + '\n');
    await writeFiles(join(out, 'adapter'), exportPeftAdapter(await trainer.exportLora(), loaded.config, { baseModelName: requireString(args, 'model') }));
    log(`adapter: ${join(out, 'adapter')} (serve it with --adapter), metrics: ${join(out, 'metrics.jsonl')}`);
    return { out, history };
  } finally {
    await trainer.dispose();
    if (!base) model.dispose();
  }
}

export const command: CliCommand = {
  name: 'train-traces',
  summary: 'train a LoRA adapter from the traces and rewards `serve` captured (GRPO or reward-weighted)',
  usage: `Usage: npm run cli -- train-traces --model PATH --traces DIR [options]

${MODEL_OPTIONS}
  --traces DIR            run folder given to serve --out (or its traces/ folder)
  --adapter DIR           continue training this adapter (the one served); default a fresh LoRA
  --out DIR               writes DIR/adapter/ and DIR/metrics.jsonl (default runs/train-traces-<time>)
  --trainer grpo|reward_weighted   default grpo (groups = rollouts with the same task id)
  --steps N               optimizer updates over the episodes (default 1)
  --lr X                  learning rate (default 2e-5)
  --rank R --alpha A --targets q,k,v,o,gate,up,down --seed S   a fresh adapter's shape (8, 16, all, 0)
  --micro-batch N         episodes per forward/backward (default 4)
  --beta B                KL to the base model (default 0: off)
  --epsilon-low E --epsilon-high E   PPO clip bounds (default 0.2, 0.28)
  --loss-type token-mean|seq-mean-token-mean|seq-mean-token-sum-norm
  --scale-rewards true|false   divide advantages by the group std (default true)
  --threshold X           reward_weighted: rewards below X count 0 (default 0)
  --clip C                max gradient norm (default 1)

An episode is each choice of a rollout's last call; its reward is the last one posted to
/v1/rollouts/{id}/reward (the sum for per-turn lists). Rollouts without a reward are left out.`,
  async run(args) {
    await trainTracesRun(args, (line) => process.stderr.write(`${line}\n`));
    return 0;
  },
};
