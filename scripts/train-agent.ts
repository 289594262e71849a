// `npm run train-agent [-- --out DIR --steps N --seed S --publish [--evaluation F]]`: trains
// the shipped default agent FROM SCRATCH with the engine's own full-mode SFT (the `sft` CLI
// command, in process): writes the seeded initial model (scripts/agent-data/init-model.ts) with
// the tokenizer of public/models/agent-tiny into DIR/init, then SFT on datasets/agent_sft.jsonl
// with a checkpoint every 10 updates; rerunning resumes from the newest DIR/sft/checkpoints/step-N
// (or an older run's DIR/sft/checkpoint). --publish copies
// the trained weights into public/models/agent-tiny and writes its model card (README.md) from
// the run's records (--evaluation F adds the figures of an `eval` stdout saved in F; --card-only publishes the last
// export again without training). Long-running: run it under nohup.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { command as sft } from '../src/cli/commands/sft';
import { modelConfigToJson } from '../src/model/hf-config';
import { writeSafetensors } from '../src/model/io/safetensors-write';
import { loadTokenizer } from '../src/model/tokenizer';
import { NodeDirSource } from '../src/model/io/node-source';
import { parseModelConfig } from '../src/model/hf-config';
import { AGENT_MODEL_DIR } from './agent-data/tokenizer-spec';
import { agentModelConfig, countParams, initAgentWeights } from './agent-data/init-model';
import { modelCard, type StepRecord } from './agent-data/model-card';

/** The recipe; each value is the one the shipped model was trained with. */
export const AGENT_RECIPE = {
  seed: 0, steps: 400, batchSize: 8, lr: 2e-3, warmup: 10, schedule: 'constant', weightDecay: 0.01, clip: 1, maxLength: 192, saveEvery: 10,
  data: 'datasets/agent_sft.jsonl',
} as const;

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

async function writeInit(dir: string, seed: number): Promise<number> {
  const tok = await loadTokenizer(new NodeDirSource(AGENT_MODEL_DIR));
  const imEnd = tok.tokenToId('<|im_end|>'), eot = tok.tokenToId('<|endoftext|>');
  if (imEnd === undefined || eot === undefined) throw new Error(`${AGENT_MODEL_DIR}/tokenizer.json lacks <|im_end|> or <|endoftext|>; run npm run make-agent-tokenizer`);
  const cfg = agentModelConfig(tok.vocabSize, [imEnd, eot]);
  const weights = initAgentWeights(cfg, seed);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(modelConfigToJson(cfg), null, 2) + '\n');
  writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(weights));
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(AGENT_MODEL_DIR, f), join(dir, f));
  return countParams(weights);
}

async function main(): Promise<void> {
  const out = flag('out') ?? 'runs/agent-tiny';
  const r = AGENT_RECIPE;
  const seed = Number(flag('seed') ?? r.seed);
  const steps = Number(flag('steps') ?? r.steps);
  const sftDir = join(out, 'sft');
  if (process.argv.includes('--card-only')) {
    publish(out, sftDir, 0, flag('evaluation'));
    process.exit(0);
  }
  // Any checkpoint folder (the one layout's checkpoints/, or checkpoint/ of runs made before it): sft --resume picks the newest complete one.
  const resume = existsSync(join(sftDir, 'checkpoints')) || existsSync(join(sftDir, 'checkpoint'));
  if (!resume) process.stderr.write(`init: ${await writeInit(join(out, 'init'), seed)} parameters (seed ${seed}) in ${join(out, 'init')}\n`);
  const flags: Record<string, string | true> = resume
    ? { resume: sftDir, out: sftDir, steps: String(steps), model: join(out, 'init') }
    : {
        model: join(out, 'init'), data: r.data, out: sftDir, mode: 'full', quant: 'none', steps: String(steps), 'batch-size': String(r.batchSize),
        lr: String(r.lr), warmup: String(r.warmup), schedule: r.schedule, 'weight-decay': String(r.weightDecay), clip: String(r.clip),
        'max-length': String(r.maxLength), 'save-every': String(r.saveEvery), seed: String(seed), 'base-model': 'agent-tiny',
      };
  const t0 = performance.now();
  const code = await sft.run({ positionals: [], flags, all: {} });
  if (code !== 0) throw new Error(`sft exited with ${code}`);
  const wall = (performance.now() - t0) / 1000;
  if (process.argv.includes('--publish')) publish(out, sftDir, wall, flag('evaluation'));
  process.exit(0);
}

/** Copies the trained weights next to the tokenizer and writes the model card from the run's records. */
function publish(out: string, sftDir: string, lastWall: number, evaluation?: string): void {
  for (const f of ['config.json', 'model.safetensors']) copyFileSync(join(sftDir, 'model', f), join(AGENT_MODEL_DIR, f));
  const metrics = readFileSync(join(sftDir, 'metrics.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StepRecord);
  writeFileSync(join(out, 'summary.json'), JSON.stringify({ recipe: AGENT_RECIPE, lastInvocationSeconds: lastWall, steps: metrics.length, metrics }, null, 1) + '\n');
  const cfg = parseModelConfig(JSON.parse(readFileSync(join(AGENT_MODEL_DIR, 'config.json'), 'utf8')));
  const params = countParams(initAgentWeights(cfg, 0));
  // The eval command's stdout: its last line is the JSON of the figures.
  const evalJson = evaluation ? (JSON.parse(readFileSync(evaluation, 'utf8').trim().split('\n').pop() ?? '{}') as Record<string, number | string>) : undefined;
  writeFileSync(join(AGENT_MODEL_DIR, 'README.md'), modelCard({ cfg, params, recipe: AGENT_RECIPE, metrics, evaluation: evalJson }));
  process.stderr.write(`published ${AGENT_MODEL_DIR} (${metrics.length} updates, model card README.md)\n`);
}

await main();
