// Resume == continuous through the SFT loop (src/run/sft-run.ts): N = 2 updates, checkpoint
// files (saveTrainState) read back with loadTrainState, a fresh model + SftRun resumed from them,
// M = 2 more updates, against N + M = 4 updates in one go: adapter (stories260K LoRA r=4,
// shuffled batches, cosine schedule with warmup, clipping) and every weight (tiny Qwen2 fixture,
// full mode, pre-tokenized lines), AdamW moments, t, the data cursor and the logged losses.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles, type LoadedModel } from '../../../src/model/io/loader';
import { MemorySource } from '../../../src/model/io/memory-source';
import { NodeDirSource, openNodeModelSource } from '../../../src/model/io/node-source';
import { openWeights } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { parseModelConfig } from '../../../src/model/hf-config';
import type { ModelConfig } from '../../../src/model/types';
import { loadTrainState, type TrainState } from '../../../src/train/checkpoint';
import { readSftJsonl, type SftDataset } from '../../../src/train/data';
import { resolveSftConfig, resumeConfig, SftRun, type SftConfigInput, type SftMetrics } from '../../../src/run/sft-run';
import type { Tokenizer } from '../../../src/model/tokenizer';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { compareTensors as compare } from '../helpers/tensor-compare';

const STORIES = join(STORIES_DIR, 'stories260K.bin');
const SENTENCES = [
  'Lily saw a big red ball in the park.', 'Tom wanted to fly his blue kite with his dad.', 'The cat sat on the warm mat and fell asleep.',
  'Sue found a little bird under the tree.', 'Ben and Mia built a tall tower of blocks.',
];

interface Setup {
  rt: GpuRuntime;
  cfg: ModelConfig;
  newModel: () => Promise<GpuModel>;
  /** Done with a model (LoRA runs share one base model; full mode trains the weights in place). */
  doneWith: (m: GpuModel) => void;
  data: SftDataset;
  tokenizer: Tokenizer;
  input: SftConfigInput;
}

async function resumeEqualsContinuous(s: Setup, label: string): Promise<void> {
  const ctx = { examples: s.data.examples.length, cfg: s.cfg };
  const config = resolveSftConfig({ ...s.input, steps: 4 }, ctx);
  const opts = { config, data: s.data, baseModelName: label, tokenizer: s.tokenizer };
  const t0 = performance.now();

  // N + M in one go
  let model = await s.newModel();
  let run = await SftRun.create(s.rt, model, opts);
  const oneGo = await run.run();
  const want = await run.checkpointState();
  await run.dispose();
  s.doneWith(model);

  // N, checkpoint files, fresh model, resume, M
  model = await s.newModel();
  run = await SftRun.create(s.rt, model, opts);
  const first = await run.run(undefined, 2);
  const files = await run.checkpoint();
  await run.dispose();
  s.doneWith(model);
  const state: TrainState = await loadTrainState(new MemorySource(files), s.cfg);
  expect(state.step).toBe(2);
  model = await s.newModel();
  run = await SftRun.create(s.rt, model, { ...opts, config: resumeConfig(state, {}, ctx), resume: state });
  expect(run.step).toBe(2);
  const rest = await run.run();
  const got = await run.checkpointState();
  await run.dispose();
  s.doneWith(model);

  const losses = (ms: readonly SftMetrics[]) => ms.map((m) => m.loss!.toFixed(5)).join(' ');
  console.log(`${label}: one go ${losses(oneGo)} | resumed ${losses(first)} + ${losses(rest)} (${((performance.now() - t0) / 1000).toFixed(1)} s, checkpoint ${[...files.values()].reduce((n, b) => n + b.length, 0)} B)`);
  expect([...first, ...rest].map((m) => m.loss)).toEqual(oneGo.map((m) => m.loss));
  expect([...first, ...rest].map((m) => m.grad_norm)).toEqual(oneGo.map((m) => m.grad_norm));
  expect(got.metrics!.map((m) => m.loss)).toEqual(want.metrics!.map((m) => m.loss));
  expect(got.step).toBe(4);
  expect(got.adam.t).toBe(want.adam.t);
  expect(got.schedule).toEqual(want.schedule);
  expect(got.rng).toEqual(want.rng);
  console.log(`  data cursor ${JSON.stringify(got.rng.data)} (both runs), lr of the last update ${got.schedule.lr}`);
  for (const [what, a, b] of [['params', want.params, got.params], ['adam m', want.adam.m, got.adam.m], ['adam v', want.adam.v, got.adam.v]] as const) {
    expect(compare(a, b, what).identical).toBe(true);
  }
}

describe('SFT resume == continuous (bit-identical)', () => {
  it.skipIf(!existsSync(STORIES))('stories260K, LoRA r=4 on all projections, 5 sentences, batch 2 shuffled', async () => {
    const rt = await nodeRuntime();
    const m: LoadedModel = await loadModelFiles(await openNodeModelSource(STORIES));
    const jsonl = SENTENCES.map((text) => JSON.stringify({ text })).join('\n');
    const data = readSftJsonl(jsonl, 'stories.jsonl', { tokenizer: m.tokenizer, maxLength: 64 });
    expect(data.examples.length).toBe(5);
    const model = await GpuModel.load(rt, m.config, { read: (n) => m.weights.read(n), has: (n) => m.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
    // LoRA leaves the base untouched: one model serves every run (the trainer detaches on dispose).
    await resumeEqualsContinuous({
      rt, cfg: m.config, data, tokenizer: m.tokenizer, newModel: async () => model, doneWith: () => undefined,
      input: { mode: 'lora', rank: 4, alpha: 8, lr: 1e-2, batchSize: 2, schedule: 'cosine', warmup: 1, seed: 5, clip: 0.5 },
    }, 'stories260K LoRA');
    model.dispose();
  }, 90_000);

  it.skipIf(!existsSync(STORIES))('tiny Qwen2 fixture, full mode, pre-tokenized lines, micro-batches, recompute', async () => {
    const rt = await nodeRuntime();
    const src = new NodeDirSource(join(__dirname, '../../fixtures/goldens/tiny-qwen2'));
    const cfg = parseModelConfig(await readJson(src, 'config.json'));
    const weights = await (await openWeights(src)).readAll();
    // Pre-tokenized lines need no vocabulary: any tokenizer object will do, ids are checked against the model's V.
    const { tokenizer } = await loadModelFiles(await openNodeModelSource(STORIES));
    const lines = Array.from({ length: 6 }, (_, b) => {
      const ids = Array.from({ length: 6 + 2 * b }, (_, t) => (3 + 11 * b + 5 * t + t * t) % cfg.vocabSize);
      return JSON.stringify({ ids, mask: ids.map((_, t) => (t < 2 ? 0 : 1)) });
    });
    const data = readSftJsonl(lines.join('\n'), 'tiny.jsonl', { tokenizer, maxLength: 32, vocabSize: cfg.vocabSize });
    expect(data.examples.length).toBe(6);
    await resumeEqualsContinuous({
      rt, cfg, data, tokenizer,
      newModel: () => GpuModel.load(rt, cfg, { has: (n) => weights.has(n), read: async (n) => weights.get(n)! }, { quant: 'none', quantEmbeddings: false, tune: false }),
      doneWith: (mdl) => mdl.dispose(),
      input: { mode: 'full', lr: 3e-3, batchSize: 4, microBatch: 2, schedule: 'cosine', warmup: 1, seed: 9, weightDecay: 0.01, recompute: true },
    }, 'tiny full mode');
  }, 60_000);
});
