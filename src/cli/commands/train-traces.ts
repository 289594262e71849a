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
import type { GpuRuntime } from '../../gpu/runtime';
import type { GpuModel } from '../../model/gpu/model';
import { NodeDirSource } from '../../model/io/node-source';
import { readPeftAdapter } from '../../model/io/peft';
import type { ModelConfig, Projection } from '../../model/types';
import { resolveGrpoLoss, type LossAggregation } from '../../reference/grpo_loss';
import { readTraces } from '../../server/openai/trace-episodes';
import { trainOnTraces, type TraceTrainerKind, type TraceTrainOptions } from '../../server/openai/trace-train';
import { DEFAULT_CONFIG, type RlConfig } from '../../rl/config-schema';
import { referenceFor } from '../../rl/policy-setup';
import type { ReferencePolicy } from '../../rl/reference-policy';
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

export interface TraceTrainerSetup {
  trainer: Trainer;
  loss: GrpoLoss;
  /** The KL reference (beta > 0), else undefined. */
  reference: ReferencePolicy | undefined;
  options: TraceTrainOptions;
  dispose(): Promise<void>;
}

/**
 * The trainer of trace training on a base model loaded WITHOUT its adapter: a fresh LoRA (or
 * --adapter continued) attached to `model` (so serving the model serves the adapter being
 * trained), the GRPO loss kernels, the KL reference when --beta > 0 (referenceFor: the starting
 * adapter when one is continued, else the bare base) and the update options from the flags.
 * Shared by train-traces and serve --online.
 */
export async function openTraceTrainer(args: ParsedArgs, rt: GpuRuntime, model: GpuModel, modelCfg: ModelConfig, log: (line: string) => void): Promise<TraceTrainerSetup> {
  const kind = getString(args, 'trainer', 'grpo');
  if (kind !== 'grpo' && kind !== 'reward_weighted') throw new Error(`--trainer must be grpo or reward_weighted, got "${kind}"`);
  const adapterDir = getString(args, 'adapter') ?? null;
  const beta = getNumber(args, 'beta', 0);
  const trainer = await Trainer.create(rt, model, {
    params: adapterDir
      ? { mode: 'lora', adapter: await readPeftAdapter(new NodeDirSource(adapterDir), modelCfg) }
      : { mode: 'lora', config: { rank: getNumber(args, 'rank', 8), alpha: getNumber(args, 'alpha', 16), useRslora: false, targets: targetsOf(getString(args, 'targets', TARGETS.join(','))) }, seed: getNumber(args, 'seed', 0) },
    optimizer: { schedule: { kind: 'constant', lr: getNumber(args, 'lr', 2e-5), warmupSteps: 0 }, weightDecay: 0, maxGradNorm: getNumber(args, 'clip', 1) },
  });
  let loss: GrpoLoss;
  try {
    loss = await GrpoLoss.create(rt);
  } catch (e) {
    await trainer.dispose();
    throw e;
  }
  // The run's reference, decided as `train` decides it (rl/policy-setup.ts): only the fields it reads differ from the defaults.
  const rl: RlConfig = { ...DEFAULT_CONFIG, trainer: kind, model: { ...DEFAULT_CONFIG.model, adapter: adapterDir }, grpo: { ...DEFAULT_CONFIG.grpo, beta } };
  const reference = referenceFor(rt, trainer, rl, (s) => log(s.trimEnd()));
  const options: TraceTrainOptions = {
    trainer: kind as TraceTrainerKind, steps: getNumber(args, 'steps', 1), microBatch: getNumber(args, 'micro-batch', 4), scaleRewards: getBool(args, 'scale-rewards', true),
    threshold: getNumber(args, 'threshold', 0),
    loss: resolveGrpoLoss({
      beta, epsilonLow: getNumber(args, 'epsilon-low', 0.2), epsilonHigh: getNumber(args, 'epsilon-high', 0.28),
      aggregation: getString(args, 'loss-type', 'token-mean') as LossAggregation,
    }),
    ...(reference ? { reference } : {}),
  };
  return {
    trainer, loss, reference, options,
    async dispose() {
      reference?.dispose();
      await trainer.dispose();
    },
  };
}

/** The base model's arguments: the adapter to continue is trained, not frozen, so it is left out of the load. */
export function withoutAdapter(args: ParsedArgs): ParsedArgs {
  const baseArgs: ParsedArgs = { ...args, flags: { ...args.flags } };
  delete baseArgs.flags.adapter;
  return baseArgs;
}

/**
 * The command's work. `base`: an already loaded base model (tests); it is kept, else the model
 * named by --model is loaded and freed here.
 */
export async function trainTracesRun(args: ParsedArgs, log: (line: string) => void, base?: CliModel): Promise<{ out: string; history: Record<string, number>[] }> {
  const traces = readTraces(requireString(args, 'traces'));
  log(`traces: ${traces.episodes.length} episodes in ${new Set(traces.episodes.map((e) => e.group)).size} task groups; ${traces.unrewarded} rollouts without a reward left out; ${traces.diverged} re-tokenized`);
  const { rt, loaded, model } = base ?? (await loadCliModel(withoutAdapter(args)));
  const out = getString(args, 'out', join('runs', `train-traces-${new Date().toISOString().replace(/[:.]/g, '-')}`));
  let setup: TraceTrainerSetup | null = null;
  try {
    setup = await openTraceTrainer(args, rt, model, loaded.config, log);
    const history = await trainOnTraces(rt, setup.trainer, setup.loss, traces.episodes, setup.options, log);
    mkdirSync(out, { recursive: true });
    appendFileSync(join(out, 'metrics.jsonl'), history.map((h) => JSON.stringify(h)).join('\n') + '\n');
    await writeFiles(join(out, 'adapter'), exportPeftAdapter(await setup.trainer.exportLora(), loaded.config, { baseModelName: requireString(args, 'model') }));
    log(`adapter: ${join(out, 'adapter')} (serve it with --adapter), metrics: ${join(out, 'metrics.jsonl')}`);
    return { out, history };
  } finally {
    await setup?.dispose();
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
  --beta B                KL to the reference (default 0: off): the starting --adapter (a frozen copy), else the bare base
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
