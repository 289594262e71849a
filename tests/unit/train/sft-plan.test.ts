// The training memory plan against the real step: for the tiny Qwen2 fixture (f32 LoRA, NF4
// LoRA on part of the projections, full mode; recompute on and off) planTraining's total is
// compared with the pool's peak (emptied by trim and reset before each case) after GpuModel.load
// + Trainer.create + two sftStep updates (micro-batches and passes split by maxRows), within 5%. Then the plan of the
// Qwen2.5-0.5B target (NF4 + NF4 embeddings, LoRA r=16 x 7, 8 x 512) is printed, recompute on/off.
// Kernel variants (the tuner's timing-based choices, read from the tuning store) must not move the
// peak: each linear and attention variant is forced through a private store and plan == peak exactly.
// PPO's value head (valueHead) and the frozen KL reference copy (frozenReference) are planned exactly too.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeRuntime } from '../../../src/gpu/node-runtime';
import { setTuningStore } from '../../../src/gpu/tuning';
import { useTestTuningStore } from '../helpers/tuning-store';
import { DECODE_CANDIDATES, PREFILL_CANDIDATES } from '../../../src/gpu/kernels/linear';
import { ATTENTION_VARIANTS, scorePlaneBytes } from '../../../src/gpu/kernels/attention';
import { PS_MIN_ROWS } from '../../../src/gpu/kernels/attention-backward';
import { randomWeights, tinyConfig } from '../helpers/reference-bwd-fd';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { openWeights, type WeightStore } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { parseModelConfig } from '../../../src/model/hf-config';
import { GpuModel } from '../../../src/model/gpu/model';
import { PROJECTIONS, type ModelConfig, type Projection, type HostTensor } from '../../../src/model/types';
import { qwen25_05bConfig } from '../../../src/model/random-weights';
import { formatPlan, planTraining, type TrainingPlanOptions } from '../../../src/train/memory-plan';
import { Trainer } from '../../../src/train/trainer';
import { frozenReference } from '../../../src/rl/reference-policy';
import type { SftDataset } from '../../../src/train/data';
import { planSftRun, resolveSftConfig, SftRun } from '../../../src/run/sft-run';

let rt: GpuRuntime;
let cfg: ModelConfig;
let weights: WeightStore;

afterAll(() => rt.destroy());

/** Empties the pool (free buffers destroyed) and restarts the peak; returns the bytes still held. */
function freshPool(): number {
  rt.pool.trim();
  rt.pool.resetPeak();
  return rt.memory().allocated;
}

// A runtime of this file's own on the shared device (its own buffer pool, the shared compiled
// pipelines), so that buffers another test file's late work acquires on the workers' shared
// runtime cannot count in these measured peaks: a full local suite twice measured 815,312 B
// against the plan's exact 767,296 in 'replays the run's own batches', which is exact alone and
// under every forced kernel variant (so not the tuning store).
beforeAll(async () => {
  rt = await openNodeRuntime();
  const src = new NodeDirSource(join(__dirname, '../../fixtures/goldens/tiny-qwen2'));
  cfg = parseModelConfig(await readJson(src, 'config.json'));
  weights = await openWeights(src);
});

/** A model to load: its config and weights (default: the tiny Qwen2 fixture). */
interface Source { cfg: ModelConfig; read: (name: string) => Promise<HostTensor>; has: (name: string) => boolean }

/** Loads the model (default the tiny Qwen2 fixture) on an empty pool, trains two updates, returns the pool's peak. */
async function measure(o: TrainingPlanOptions & { rank?: number; targets?: Projection[] }, src?: Source): Promise<number> {
  const held = freshPool();
  const m: Source = src ?? { cfg, read: (n) => weights.read(n), has: (n) => weights.tensors.has(n) };
  const cfg_ = m.cfg;
  const model = await GpuModel.load(rt, cfg_, { read: m.read, has: m.has },
    { quant: o.quant, quantEmbeddings: o.quantEmbeddings, chunkRows: o.chunkRows, maxRows: o.maxRows, tune: false });
  const trainer = await Trainer.create(rt, model, {
    params: o.mode === 'full' ? { mode: 'full' } : { mode: 'lora', config: { rank: o.lora!.rank, alpha: 8, useRslora: false, targets: o.lora!.targets }, seed: 3 },
    optimizer: { schedule: { kind: 'constant', lr: 1e-3 } },
    recompute: o.recompute,
    valueHeadSeed: o.valueHead ? 1 : undefined,
  });
  const examples = Array.from({ length: o.batchSize }, (_, b) => {
    const ids = Array.from({ length: o.seqLen }, (_, t) => (5 + 13 * b + 7 * t + t * t) % cfg_.vocabSize);
    return { ids, mask: ids.slice(1).map(() => 1) };
  });
  const ref = o.frozenReference ? frozenReference(rt, trainer) : null;
  for (let s = 0; s < 2; s++) await trainer.sftStep(examples, o.microBatch);
  const peak = rt.memory().peak - held;
  ref?.dispose();
  await trainer.dispose();
  model.dispose();
  return peak;
}

describe('planTraining vs the measured pool peak of the real step (tiny Qwen2)', () => {
  const cases: { name: string; o: Omit<TrainingPlanOptions, 'recompute'> }[] = [
    { name: 'f32 LoRA r=4 x 7', o: { mode: 'lora', quant: 'none', quantEmbeddings: false, lora: { rank: 4, targets: [...PROJECTIONS] }, batchSize: 4, seqLen: 16, microBatch: 2, maxRows: 24, chunkRows: 8 } },
    { name: 'NF4 + NF4 embeddings LoRA r=6 q,v,down', o: { mode: 'lora', quant: 'nf4', quantEmbeddings: true, lora: { rank: 6, targets: ['q', 'v', 'down'] }, batchSize: 3, seqLen: 20, maxRows: 64 } },
    { name: 'full mode', o: { mode: 'full', quant: 'none', quantEmbeddings: false, batchSize: 4, seqLen: 12, microBatch: 4, maxRows: 32, chunkRows: 16 } },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      for (const recompute of [false, true]) {
        const o = { ...c.o, recompute };
        const plan = planTraining(cfg, o);
        const peak = await measure(o);
        const rel = (plan.total - peak) / peak;
        console.log(`${c.name}, recompute ${recompute ? 'on' : 'off'}: plan ${plan.total} B, measured peak ${peak} B, diff ${(100 * rel).toFixed(2)}%`);
        expect(Math.abs(rel)).toBeLessThan(0.05);
        expect(plan.rows.reduce((s, r) => s + r.bytes, 0)).toBe(plan.total);
      }
    }, 60_000);
  }
});

describe('planTraining is exact whichever kernel variant the tuner picked (tiny Qwen2)', () => {
  const f32: TrainingPlanOptions = { mode: 'lora', quant: 'none', quantEmbeddings: false, lora: { rank: 4, targets: [...PROJECTIONS] }, batchSize: 4, seqLen: 16, microBatch: 2, maxRows: 24, chunkRows: 8, recompute: false };
  const nf4: TrainingPlanOptions = { mode: 'lora', quant: 'nf4', quantEmbeddings: true, lora: { rank: 6, targets: ['q', 'v', 'down'] }, batchSize: 3, seqLen: 20, maxRows: 64, recompute: true };
  // Tuning families: linear:<format>:<decode1|decode8|prefill|large>:<shape> and attention (src/gpu/kernels/linear-tune.ts,
  // attention.ts). The log-prob chunks of 8 rows run the decode8 bucket. sg needs subgroups (Dawn on SwiftShader has them).
  const forced: [string, (key: string) => string | null][] = [
    ...PREFILL_CANDIDATES.map((v): [string, (key: string) => string | null] => [`linear prefill+large ${v}`, (k) => (/:linear:\w+:(prefill|large):/.test(k) ? v : null)]),
    ...[...DECODE_CANDIDATES, 'sg'].map((v): [string, (key: string) => string | null] => [`linear decode ${v}`, (k) => (/:linear:\w+:decode[18]:/.test(k) ? v : null)]),
    ['linear decode8 rb16', (k) => (/:linear:\w+:decode8:/.test(k) ? 'rb16' : null)],
    ...ATTENTION_VARIANTS.map((v): [string, (key: string) => string | null] => [`attention ${v}`, (k) => (k.endsWith(':attention') ? v : null)]),
  ];
  it('forces each variant through a private tuning store', async () => {
    useTestTuningStore(null);
    for (const [name, pick] of forced) {
      setTuningStore({ getItem: pick, setItem: () => undefined });
      // Attention variants do not depend on the weight format: f32 alone covers them.
      for (const o of name.startsWith('attention') ? [f32] : [f32, nf4]) {
        // The plan follows the attention variant the adapter runs ('thread' unless told).
        const attention = ATTENTION_VARIANTS.find((v) => name === `attention ${v}`);
        const plan = planTraining(cfg, { ...o, attention }), peak = await measure(o);
        console.log(`${name}, ${o.quant} recompute ${o.recompute ? 'on' : 'off'}: plan ${plan.total} B, measured peak ${peak} B`);
        expect(peak, name).toBe(plan.total);
      }
    }
  }, 180_000);
});

// Heads of 64 (Qwen2.5's): a training pass keeps the attention scores for the tile backward, one
// plane per kept layer (recompute off) or one (on); longer passes, whose planes would pass the
// budget, keep none.
describe('planTraining counts the kept attention scores (heads of 64)', () => {
  it('random 2-layer model, 2 / 1 heads of 64: plan == measured peak, recompute on and off', async () => {
    const hs64 = tinyConfig({ vocabSize: 128, hiddenSize: 128, intermediateSize: 64, numLayers: 2, numHeads: 2, numKvHeads: 1, headDim: 64, maxPositions: 64 });
    const w = randomWeights(hs64, 5);
    const src: Source = { cfg: hs64, read: async (n) => w.get(n)!, has: (n) => w.has(n) };
    const base = { mode: 'lora' as const, quant: 'none' as const, quantEmbeddings: false, lora: { rank: 4, targets: [...PROJECTIONS] }, batchSize: 3, seqLen: 20, microBatch: 2, maxRows: 64, chunkRows: 8 };
    for (const recompute of [false, true]) {
      const o = { ...base, recompute };
      const plan = planTraining(hs64, o), peak = await measure(o, src);
      const row = plan.rows.find((r) => r.name.startsWith('attention scores the forward keeps'));
      console.log(`heads of 64, recompute ${recompute ? 'on' : 'off'}: plan ${plan.total} B, measured peak ${peak} B, score planes ${row?.bytes ?? 0} B`);
      expect(peak).toBe(plan.total);
      // Two sequences per pass (micro-batches of 2), T = 20 rounded up to 32: [2, 2, 32, 32] f32 per kept layer.
      expect(row?.bytes).toBe((recompute ? 1 : 2) * scorePlaneBytes(2, 2, 20));
    }
  }, 60_000);
});

// Heads of 16 (the default agent's): batches of PS_MIN_ROWS rows or more keep P and dS between the
// dQ kernel and the sixteen-key dK/dV tile kernel, dispatched once for dK and once for dV, in every
// pass (maxRows 192: passes of 192 and 64 rows; in LoRA mode, since a full-mode pass of 192 rows
// holds fewer distinct ids than the min(M, V) the plan takes for the embedding gradient's CSR).
describe('planTraining counts the kept-P/dS attention backward (heads of 16)', () => {
  it('random 2-layer model, 4 / 2 heads of 16, batches of 256 rows in one pass or two: plan == measured peak, recompute on and off', async () => {
    const hs16 = tinyConfig({ vocabSize: 128, hiddenSize: 64, intermediateSize: 64, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 16, maxPositions: 64 });
    const w = randomWeights(hs16, 6);
    const src: Source = { cfg: hs16, read: async (n) => w.get(n)!, has: (n) => w.has(n) };
    const base = { mode: 'full' as const, quant: 'none' as const, quantEmbeddings: false, batchSize: 4, seqLen: 64, microBatch: 4, chunkRows: 64 };
    const lora = { mode: 'lora' as const, lora: { rank: 4, targets: [...PROJECTIONS] } };
    for (const [maxRows, recompute] of [[PS_MIN_ROWS, false], [PS_MIN_ROWS, true], [192, false]] as const) {
      const o: TrainingPlanOptions = { ...base, ...(maxRows < PS_MIN_ROWS ? lora : {}), maxRows, recompute };
      const plan = planTraining(hs16, o), peak = await measure(o, src);
      const row = plan.rows.find((r) => r.name.startsWith('attention backward scratch'));
      console.log(`heads of 16, maxRows ${maxRows}, recompute ${recompute ? 'on' : 'off'}: plan ${plan.total} B, measured peak ${peak} B, P/dS row ${row?.name}: ${row?.bytes ?? 0} B`);
      expect(row?.bytes).toBeGreaterThan(0);
      expect(peak).toBe(plan.total);
    }
  }, 60_000);
});

describe('planTraining counts PPO\'s value head (tiny Qwen2)', () => {
  it('value head w, b, their gradients and AdamW moments: plan == measured peak', async () => {
    const cases: TrainingPlanOptions[] = [
      { mode: 'lora', quant: 'none', quantEmbeddings: false, lora: { rank: 4, targets: [...PROJECTIONS] }, batchSize: 4, seqLen: 16, microBatch: 2, maxRows: 24, chunkRows: 8, recompute: false },
      { mode: 'full', quant: 'none', quantEmbeddings: false, batchSize: 4, seqLen: 12, microBatch: 4, maxRows: 32, chunkRows: 16, recompute: true },
    ];
    for (const o of cases) {
      const without = planTraining(cfg, o), plan = planTraining(cfg, { ...o, valueHead: true });
      const peak = await measure({ ...o, valueHead: true });
      const row = plan.rows.find((r) => r.name.startsWith('PPO value head'));
      console.log(`${o.mode} + value head: plan ${plan.total} B (without the head ${without.total} B, +${plan.total - without.total}), measured peak ${peak} B, head row ${row?.bytes ?? 0} B`);
      expect(peak).toBe(plan.total);
      // w, b, dw, db (16-byte rounded) in their own row; the moments join the AdamW row (pool reuse may absorb some).
      expect(row?.bytes).toBe(2 * (cfg.hiddenSize * 4 + 16));
      expect(plan.total - without.total).toBeGreaterThan(row!.bytes);
    }
  }, 120_000);
});

describe('planTraining counts the frozen KL reference copy (tiny Qwen2)', () => {
  it('full mode (beta > 0) and a LoRA adapter (model.adapter), with the PPO value head: plan == measured peak', async () => {
    const cases: TrainingPlanOptions[] = [
      { mode: 'full', quant: 'none', quantEmbeddings: false, batchSize: 4, seqLen: 12, microBatch: 4, maxRows: 32, chunkRows: 16, recompute: true, valueHead: true },
      { mode: 'lora', quant: 'nf4', quantEmbeddings: true, lora: { rank: 6, targets: ['q', 'v', 'down'] }, batchSize: 3, seqLen: 20, maxRows: 64, recompute: false },
    ];
    for (const o of cases) {
      const without = planTraining(cfg, o), plan = planTraining(cfg, { ...o, frozenReference: true });
      const peak = await measure({ ...o, frozenReference: true });
      const row = plan.rows.find((r) => r.name.startsWith('KL reference'));
      console.log(`${o.mode}${o.valueHead ? ' + value head' : ''} + frozen reference: plan ${plan.total} B (without ${without.total} B), measured peak ${peak} B, copy row ${row?.bytes ?? 0} B`);
      expect(peak).toBe(plan.total);
      expect(row?.bytes).toBeGreaterThan(0);
      // The copy's submit frees the moment fills' uniforms earlier, so a little of it is absorbed by reuse.
      expect(plan.total - without.total).toBeGreaterThan(0.95 * row!.bytes);
    }
  }, 120_000);
});

describe('planSftRun vs an SftRun on variable-length data (tiny Qwen2)', () => {
  it('replays the run\'s own batches: regrown activations, KV caches per longest sequence, pool trim', async () => {
    const lens = [5, 17, 9, 30, 12, 22, 7, 26];
    const examples = lens.map((T, b) => {
      const ids = Array.from({ length: T }, (_, t) => (7 + 3 * b + 11 * t) % cfg.vocabSize);
      return { ids, mask: ids.slice(1).map(() => 1), line: b + 1, format: 'ids' as const, truncated: false, length: ids.length };
    });
    const data: SftDataset = { file: 'mem.jsonl', lines: lens.length, examples, skipped: [], truncated: 0, tokens: lens.reduce((a, b) => a + b, 0), trainedTokens: 0 };
    for (const [mode, quant] of [['lora', 'nf4'], ['full', 'none']] as const) {
      const config = resolveSftConfig({ mode, rank: 4, batchSize: 3, microBatch: 2, steps: 4, seed: 1, recompute: mode === 'lora' }, { examples: lens.length, cfg });
      const plan = planSftRun(cfg, config, data, { quant, quantEmbeddings: false, maxRows: 40, chunkRows: 8 });
      const held = freshPool();
      const model = await GpuModel.load(rt, cfg, { read: (n) => weights.read(n), has: (n) => weights.tensors.has(n) }, { quant, quantEmbeddings: false, maxRows: 40, chunkRows: 8, tune: false });
      const run = await SftRun.create(rt, model, { config, data, baseModelName: 'tiny' });
      await run.run(() => undefined); // the checkpoint at the end reads every tensor back
      const peak = rt.memory().peak - held;
      await run.dispose();
      model.dispose();
      const rel = (plan.total - peak) / peak;
      console.log(`SftRun ${mode} ${quant}, lengths ${lens.join(',')}, batch 3 / micro 2 / maxRows 40, 4 updates: plan ${plan.total} B, measured peak ${peak} B, diff ${(100 * rel).toFixed(2)}%`);
      expect(Math.abs(rel)).toBeLessThan(0.05);
    }
  }, 60_000);
});

describe('planTraining for the target', () => {
  it('Qwen2.5-0.5B shapes, NF4 + NF4 embeddings, LoRA r=16 on all seven projections, 8 x 512', () => {
    const q = qwen25_05bConfig();
    const base = { mode: 'lora' as const, quant: 'nf4' as const, quantEmbeddings: true, lora: { rank: 16, targets: [...PROJECTIONS] }, batchSize: 8, seqLen: 512 };
    const gib = (n: number) => (n / 2 ** 30).toFixed(3);
    const on = planTraining(q, { ...base, recompute: true });
    const off = planTraining(q, { ...base, recompute: false });
    console.log(`recompute on (maxRows 512: 8 passes of one sequence):\n${formatPlan(on)}`);
    console.log(`recompute off:\n${formatPlan(off)}`);
    const big = planTraining(q, { ...base, recompute: true, maxRows: 4096 });
    const bigOff = planTraining(q, { ...base, recompute: false, maxRows: 4096 });
    console.log(`Qwen2.5-0.5B LoRA r=16 NF4 8x512, maxRows 512: recompute on ${gib(on.total)} GiB, off ${gib(off.total)} GiB; ` +
      `maxRows 4096 (one pass of 8 sequences): on ${gib(big.total)} GiB, off ${gib(bigOff.total)} GiB; weights ${gib(on.weightsBytes)} GiB`);
    expect(on.total).toBeLessThanOrEqual(1.5 * 2 ** 30);
    expect(off.total).toBeGreaterThan(on.total);
    expect(bigOff.total).toBeGreaterThan(big.total);
  });
});
