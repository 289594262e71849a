// `npm run train-agent [-- --out DIR --seed S --drill-steps N --induct-steps N --sft-steps N --augment-steps N --read-steps N --steps N --start-at STAGE --from DIR --publish [--evaluation F --rl-evaluation F]]`:
// trains the shipped default agent FROM SCRATCH with the engine's own full-mode SFT (the `sft` CLI
// command, in process), in the stages of AGENT_RECIPE: the seeded initial model
// (scripts/agent-data/init-model.ts, with the tokenizer of public/models/agent-tiny) in DIR/init,
// then (1) the copy drill (scripts/agent-data/copy-drill.ts: repeat random text) in DIR/drill,
// (2) the induction drill (copy a span from a random start, from the user text or a tool
// response, so the model learns induction rather than copying by position) in DIR/induct,
// (3) SFT on the agent traces (datasets/agent_sft.jsonl) mixed with induction and extraction
// drill lines, from the previous stage's weights, with the lr decayed to 0 (cosine), in DIR/sft,
// (4) the same again with made-up people in the calculator questions and the lookup traces twice
// (scripts/agent-data/augment.ts), in DIR/augment, (5) lookups on places made up for one example
// each (the reading drill) mixed with the traces, in DIR/read. Each stage checkpoints every `saveEvery`
// updates (--steps sets the last stage's updates); rerunning resumes the unfinished
// stage (sft --resume) and skips finished ones. --publish copies the last stage's weights into
// public/models/agent-tiny and writes its model card (README.md) from the runs' records
// (--evaluation F adds the figures of an `eval` stdout saved in F, --rl-evaluation F those after
// the GRPO preset; --card-only publishes the last
// export again without training). Long-running: run it under nohup.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { command as sft } from '../src/cli/commands/sft';
import { modelConfigToJson } from '../src/model/hf-config';
import { writeSafetensors } from '../src/model/io/safetensors-write';
import { loadTokenizer } from '../src/model/tokenizer';
import { NodeDirSource } from '../src/model/io/node-source';
import { parseModelConfig } from '../src/model/hf-config';
import { mixSeed, mulberry32, permutation } from '../src/util/rng';
import { AGENT_MODEL_DIR } from './agent-data/tokenizer-spec';
import { agentModelConfig, countParams, initAgentWeights } from './agent-data/init-model';
import { copyDrill, extractDrill, inductionDrill } from './agent-data/copy-drill';
import { directMix, readingDrill, traceTool, withMadeUpPerson, type AgentTrace } from './agent-data/augment';
import type { QwenTool } from '../src/tools/qwen-tools';
import { modelCard, publishedStageSections, type StageRecord, type StepRecord } from './agent-data/model-card';

/** One stage of the curriculum: its updates, peak learning rate and data. */
export interface AgentStage {
  name: 'drill' | 'induct' | 'sft' | 'augment' | 'read' | 'direct';
  steps: number;
  lr: number;
  /** What the stage trains on (the card prints it). */
  data: string;
  /** The stage's own schedule and warmup (default the recipe's). */
  schedule?: 'constant' | 'cosine' | 'linear';
  warmup?: number;
  /** The stage's own longest row in tokens (default the recipe's). */
  maxLength?: number;
}

/** The recipe; each value is the one the shipped model was trained with. */
export const AGENT_RECIPE = {
  seed: 0, batchSize: 16, warmup: 20, schedule: 'constant', weightDecay: 0.01, clip: 1, maxLength: 192, saveEvery: 25,
  /** Copy-drill lines generated (seed drillSeed). */
  drillExamples: 20000, drillSeed: 5,
  /** Induction-drill lines generated (seed inductionSeed); the SFT stage mixes sftInduction of them (from the second half) and sftExtract extraction lines (seed extractSeed) into the traces. */
  inductionExamples: 20000, inductionSeed: 7, sftInduction: 1500, extractSeed: 9, sftExtract: 1500,
  /** The augment stage's mix (seed augmentSeed): the calculator traces with a made-up person, the lookup traces twice, induction lines after the SFT stage's and fresh extraction lines. */
  augmentSeed: 13, augmentInduction: 1500, augmentExtract: 1500,
  /** The read stage's mix (seed readSeed): readExamples reading-drill lines, the calculator traces with other made-up people, the lookup traces, readInduction induction lines after the augment stage's and readExtract extraction lines. */
  readSeed: 17, readExamples: 4000, readInduction: 1000, readExtract: 1000,
  /** The direct stage's mix (seed directSeed): each trace rewritten to answer without a tool with probability directShare. */
  directSeed: 23, directShare: 0.5,
  stages: [
    { name: 'drill', steps: 1600, lr: 2e-3, data: 'copy drill (repeat random numbers, names and words)' },
    { name: 'induct', steps: 300, lr: 1e-3, warmup: 10, maxLength: 256, data: 'induction drill (repeat a span from a random start, of the user text or a tool response)' },
    // At a constant lr the loss plateaus while greedy turns stay unreliable: decay it to 0 (cosine).
    { name: 'sft', steps: 400, lr: 1e-3, schedule: 'cosine', warmup: 10, maxLength: 256, data: 'datasets/agent_sft.jsonl + 1500 induction and 1500 extraction drill lines' },
    // The SFT model fails on people it never saw (68 % -> 12 % on training tasks with the held-out names) and on the lookup traces' own phrasings.
    { name: 'augment', steps: 400, lr: 7e-4, schedule: 'cosine', warmup: 10, maxLength: 256, data: 'the traces with made-up people in the calculator questions, lookup traces twice, 1500 induction and 1500 extraction drill lines' },
    // The augment model finds the asked sentence but guesses a lookup answer's first token (held-out lookup 19 %).
    { name: 'read', steps: 300, lr: 5e-4, schedule: 'cosine', warmup: 10, maxLength: 256, data: '4000 reading-drill lines (lookups on places made up for one line each), the traces (other made-up people), 1000 induction and 1000 extraction drill lines' },
    // The read model calls a tool on every question, so the GRPO preset had nothing to learn that 40 steps can teach (51.7 % -> 52.5 %).
    { name: 'direct', steps: 150, lr: 3e-4, schedule: 'cosine', warmup: 10, maxLength: 256, data: 'the SFT traces, half of them (seeded) rewritten to answer directly without a tool' },
  ] as AgentStage[],
};

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

/** The stages' data files in DIR/data (seeded; each rewritten only when absent). */
function writeData(dir: string): Record<AgentStage['name'], string> {
  const r = AGENT_RECIPE;
  mkdirSync(dir, { recursive: true });
  const files = {
    drill: join(dir, 'copy_drill.jsonl'), induct: join(dir, 'induction_drill.jsonl'), sft: join(dir, 'sft_mix.jsonl'), augment: join(dir, 'augment_mix.jsonl'), read: join(dir, 'read_mix.jsonl'),
    direct: join(dir, 'direct_mix.jsonl'),
  };
  const readLines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const traces = readLines('datasets/agent_sft.jsonl');
  const tools = (JSON.parse(traces[0]) as { tools: QwenTool[] }).tools;
  const parsed = traces.map((l) => JSON.parse(l) as AgentTrace);
  const calcTraces = parsed.filter((t) => traceTool(t) === 'python');
  const lookup = traces.filter((_, i) => traceTool(parsed[i]) === 'search');
  const lines = (seed: number, count: number, make: (rand: () => number) => object): string[] => {
    const rand = mulberry32(seed);
    return Array.from({ length: count }, () => JSON.stringify(make(rand)));
  };
  const write = (file: string, rows: () => string[]): void => { if (!existsSync(file)) writeFileSync(file, rows().join('\n') + '\n'); };
  // Each later stage mixes in induction lines no earlier stage used: the induct stage reads from the start, the others from the second half on, in stage order.
  const inductionSlice = (from: number, count: number): string[] => readLines(files.induct).slice(r.inductionExamples / 2 + from, r.inductionExamples / 2 + from + count);
  write(files.drill, () => lines(r.drillSeed, r.drillExamples, copyDrill));
  write(files.induct, () => lines(r.inductionSeed, r.inductionExamples, (rand) => inductionDrill(rand, tools)));
  write(files.sft, () => {
    const mix = [...traces, ...inductionSlice(0, r.sftInduction), ...lines(r.extractSeed, r.sftExtract, (rand) => extractDrill(rand, tools))];
    return permutation(mix.length, mulberry32(mixSeed(r.drillSeed, 2))).map((i) => mix[i]);
  });
  write(files.augment, () => {
    const rand = mulberry32(r.augmentSeed);
    const calc = calcTraces.map((t) => JSON.stringify(withMadeUpPerson(t, rand)));
    const mix = [...calc, ...lookup, ...lookup, ...inductionSlice(r.sftInduction, r.augmentInduction), ...lines(mixSeed(r.augmentSeed, 1), r.augmentExtract, (rand) => extractDrill(rand, tools))];
    return permutation(mix.length, rand).map((i) => mix[i]);
  });
  write(files.read, () => {
    const rand = mulberry32(r.readSeed);
    const calc = calcTraces.map((t) => JSON.stringify(withMadeUpPerson(t, rand)));
    // Reading lines never name a held-out place or use a held-out answer.
    const heldOut = readLines('datasets/agent_eval.jsonl').map((l) => JSON.parse(l) as { answer: string; metadata: { place?: string } });
    const avoid = new Set(heldOut.flatMap((t) => [t.answer, t.metadata.place ?? '']));
    const mix = [
      ...lines(mixSeed(r.readSeed, 1), r.readExamples, (rand) => readingDrill(rand, tools, avoid)), ...calc, ...lookup,
      ...inductionSlice(r.sftInduction + r.augmentInduction, r.readInduction), ...lines(mixSeed(r.readSeed, 2), r.readExtract, (rand) => extractDrill(rand, tools)),
    ];
    return permutation(mix.length, rand).map((i) => mix[i]);
  });
  write(files.direct, () => directMix(traces, mulberry32(r.directSeed), r.directShare));
  return files;
}

/** A stage run's metrics rows (none before its first update). */
function metricsOf(dir: string): StepRecord[] {
  const f = join(dir, 'metrics.jsonl');
  return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StepRecord) : [];
}

/** Runs (or resumes) one stage; a stage whose export exists after all its updates is skipped. */
async function runStage(stage: AgentStage, model: string, data: string, dir: string, seed: number): Promise<number> {
  const r = AGENT_RECIPE;
  if (existsSync(join(dir, 'model', 'config.json')) && metricsOf(dir).length >= stage.steps) return 0;
  const resume = existsSync(join(dir, 'checkpoints'));
  const flags: Record<string, string | true> = resume
    ? { resume: dir, out: dir, steps: String(stage.steps), model }
    : {
        model, data, out: dir, mode: 'full', quant: 'none', steps: String(stage.steps), 'batch-size': String(r.batchSize),
        lr: String(stage.lr), warmup: String(stage.warmup ?? r.warmup), schedule: stage.schedule ?? r.schedule, 'weight-decay': String(r.weightDecay), clip: String(r.clip),
        'max-length': String(stage.maxLength ?? r.maxLength), 'save-every': String(r.saveEvery), seed: String(seed), 'base-model': 'agent-tiny', tune: 'false',
      };
  process.stderr.write(`stage ${stage.name}: ${stage.steps} updates at lr ${stage.lr} on ${data} -> ${dir}${resume ? ' (resuming)' : ''}\n`);
  const t0 = performance.now();
  const code = await sft.run({ positionals: [], flags, all: {} });
  if (code !== 0) throw new Error(`stage ${stage.name}: sft exited with ${code}`);
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  const out = flag('out') ?? 'runs/agent-tiny';
  const r = AGENT_RECIPE;
  const seed = Number(flag('seed') ?? r.seed);
  const stepsOf: Record<AgentStage['name'], string | undefined> = {
    drill: flag('drill-steps'), induct: flag('induct-steps'), sft: flag('sft-steps'), augment: flag('augment-steps'), read: flag('read-steps'), direct: flag('steps'),
  };
  const stages = r.stages.map((s) => ({ ...s, steps: Number(stepsOf[s.name] ?? s.steps) }));
  const startAt = flag('start-at') ?? stages[0].name;
  const first = stages.findIndex((s) => s.name === startAt);
  if (first < 0) throw new Error(`--start-at ${startAt}: no such stage (the stages are ${stages.map((s) => s.name).join(', ')})`);
  if (process.argv.includes('--card-only')) {
    publish(out, stages, 0);
    process.exit(0);
  }
  if (first === 0 && !flag('from') && !existsSync(join(out, 'init', 'model.safetensors'))) process.stderr.write(`init: ${await writeInit(join(out, 'init'), seed)} parameters (seed ${seed}) in ${join(out, 'init')}\n`);
  const data = writeData(join(out, 'data'));
  let model = flag('from') ?? (first === 0 ? join(out, 'init') : join(out, stages[first - 1].name, 'model')), wall = 0;
  if (!existsSync(join(model, 'model.safetensors'))) throw new Error(`${model}/model.safetensors is missing: stage ${startAt} starts from it (pass --from DIR, e.g. --from ${AGENT_MODEL_DIR})`);
  for (const s of stages.slice(first)) {
    wall += await runStage(s, model, data[s.name], join(out, s.name), seed);
    model = join(out, s.name, 'model');
  }
  if (process.argv.includes('--publish')) publish(out, stages, wall);
  process.exit(0);
}

/** Copies the last stage's weights next to the tokenizer and writes the model card from the runs' records. */
function publish(out: string, stages: AgentStage[], lastWall: number): void {
  const last = stages[stages.length - 1];
  for (const f of ['config.json', 'model.safetensors']) copyFileSync(join(out, last.name, 'model', f), join(AGENT_MODEL_DIR, f));
  const cardFile = join(AGENT_MODEL_DIR, 'README.md');
  const published = existsSync(cardFile) ? publishedStageSections(readFileSync(cardFile, 'utf8')) : new Map<string, string>();
  const records: StageRecord[] = stages.map((s) => ({
    ...s,
    metrics: metricsOf(join(out, s.name)),
    published: published.get(s.name),
  }));
  writeFileSync(join(out, 'summary.json'), JSON.stringify({ recipe: AGENT_RECIPE, lastInvocationSeconds: lastWall, stages: records }, null, 1) + '\n');
  const cfg = parseModelConfig(JSON.parse(readFileSync(join(AGENT_MODEL_DIR, 'config.json'), 'utf8')));
  const params = countParams(initAgentWeights(cfg, 0));
  // The eval command's stdout: its last line is the JSON of the figures.
  const evalJson = (file?: string) => (file ? (JSON.parse(readFileSync(file, 'utf8').trim().split('\n').pop() ?? '{}') as Record<string, number | string>) : undefined);
  const { stages: _s, ...recipe } = AGENT_RECIPE;
  writeFileSync(join(AGENT_MODEL_DIR, 'README.md'), modelCard({ cfg, params, recipe, stages: records, evaluation: evalJson(flag('evaluation')), rlEvaluation: evalJson(flag('rl-evaluation')) }));
  process.stderr.write(`published ${AGENT_MODEL_DIR} (${records.map((s) => `${s.name} ${s.metrics.length} updates`).join(', ')}; model card README.md)\n`);
}

await main();
