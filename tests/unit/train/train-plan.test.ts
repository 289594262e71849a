// Memory planner: inference plans against the runtime pool's measured peak (GpuModel.load + one
// DecodeSession prefill step, each case on a runtime of its own: an empty pool on the process's
// shared device, so the pipelines are built once for the file, not once per case: 43 s -> 3.4 s)
// for the tiny Qwen2 fixture and stories260K, f32 and NF4, batch 1 and 4, with and without LoRA;
// and the training plan of a Qwen2.5-0.5B-shaped model (NF4 + quantized embeddings, LoRA r=16 on
// all seven projections, batch 8 x 512) with recompute on and off, printed row by row.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeRuntime } from '../../../src/gpu/node-runtime';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { NodeDirSource, openNodeModelSource } from '../../../src/model/io/node-source';
import { openWeights, type WeightStore } from '../../../src/model/io/weights';
import { loadModelFiles } from '../../../src/model/io/loader';
import { readJson } from '../../../src/model/io/source';
import { parseModelConfig } from '../../../src/model/hf-config';
import { GpuModel } from '../../../src/model/gpu/model';
import { DecodeSession } from '../../../src/model/gpu/session';
import { PROJECTIONS, type ModelConfig } from '../../../src/model/types';
import { qwen25_05bConfig } from '../../../src/model/random-weights';
import { lora_init } from '../../../src/reference/lora';
import { formatPlan, planInference, planTraining, type InferencePlanOptions } from '../../../src/train/memory-plan';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

interface Fixture { name: string; cfg: ModelConfig; weights: WeightStore }
const fixtures: Fixture[] = [];

beforeAll(async () => {
  const tinySrc = new NodeDirSource(join(__dirname, '../../fixtures/goldens/tiny-qwen2'));
  fixtures.push({ name: 'tiny-qwen2', cfg: parseModelConfig(await readJson(tinySrc, 'config.json')), weights: await openWeights(tinySrc) });
  if (existsSync(STORIES_DIR)) {
    const m = await loadModelFiles(await openNodeModelSource(join(STORIES_DIR, 'stories260K.bin')));
    fixtures.push({ name: 'stories260K', cfg: m.config, weights: m.weights });
  }
});

const rtList: GpuRuntime[] = [];
afterAll(() => {
  for (const rt of rtList) rt.destroy();
});

/** Loads the model on a runtime of its own (an empty pool), runs one prefill step of B slots, returns the pool's peak. */
async function measure(f: Fixture, o: InferencePlanOptions & { loraSeed?: number }, promptLen: number): Promise<number> {
  const rt = await openNodeRuntime();
  rtList.push(rt);
  const lora = o.lora ? lora_init(f.cfg, { rank: o.lora.rank, alpha: 2 * o.lora.rank, useRslora: false, targets: o.lora.targets }, o.loraSeed ?? 1) : null;
  const reader = { read: (n: string) => f.weights.read(n), has: (n: string) => f.weights.tensors.has(n) };
  const model = await GpuModel.load(rt, f.cfg, reader, { quant: o.quant, quantEmbeddings: o.quantEmbeddings, lora, chunkRows: o.chunkRows, maxRows: o.maxRows, tune: false });
  const session = new DecodeSession(rt, model, o.B, o.Tmax);
  const prompts = Array.from({ length: o.B }, (_, s) => Array.from({ length: promptLen }, (_, t) => (3 + 7 * s + 5 * t) % f.cfg.vocabSize));
  const out = await session.step(prompts, { temperature: 0, topK: 0, topP: 1, seed: 0, step: 0 });
  expect(out.ids.every((id) => id >= 0 && id < f.cfg.vocabSize)).toBe(true);
  return rt.memory().peak;
}

describe('planInference vs the measured pool peak', () => {
  const cases: { quant: 'none' | 'nf4'; quantEmbeddings: boolean; B: number; lora: boolean }[] = [
    { quant: 'none', quantEmbeddings: false, B: 1, lora: false },
    { quant: 'none', quantEmbeddings: false, B: 4, lora: true },
    { quant: 'nf4', quantEmbeddings: false, B: 1, lora: false },
    { quant: 'nf4', quantEmbeddings: true, B: 4, lora: true },
  ];
  for (const c of cases) {
    it(`${c.quant}${c.quantEmbeddings ? '+embeddings' : ''}, B=${c.B}${c.lora ? ', LoRA r=4' : ''}`, async () => {
      for (const f of fixtures) {
        const promptLen = 6, Tmax = 32;
        const o: InferencePlanOptions = {
          quant: c.quant, quantEmbeddings: c.quantEmbeddings, B: c.B, Tmax, chunkRows: 8, maxRows: 64,
          stepRows: c.B * promptLen, lora: c.lora ? { rank: 4, targets: [...PROJECTIONS] } : null,
        };
        const plan = planInference(f.cfg, o);
        const peak = await measure(f, o, promptLen);
        const rel = (plan.total - peak) / peak;
        console.log(`${f.name} ${c.quant}${c.quantEmbeddings ? '+emb' : ''} B=${c.B}${c.lora ? ' lora' : ''}: plan ${plan.total} B, measured peak ${peak} B, diff ${(100 * rel).toFixed(2)}%`);
        expect(Math.abs(rel)).toBeLessThan(0.05);
        expect(plan.rows.reduce((s, r) => s + r.bytes, 0)).toBe(plan.total);
      }
    }, 120_000);
  }
});

describe('planTraining', () => {
  it('Qwen2.5-0.5B shapes, NF4 + quantized embeddings, LoRA r=16 on all projections, 8 x 512', () => {
    const cfg = qwen25_05bConfig();
    const base = { mode: 'lora' as const, quant: 'nf4' as const, quantEmbeddings: true, lora: { rank: 16, targets: [...PROJECTIONS] }, batchSize: 8, seqLen: 512, maxRows: 4096 }; // one pass of all 8 x 512 rows
    const on = planTraining(cfg, { ...base, recompute: true });
    const off = planTraining(cfg, { ...base, recompute: false });
    console.log(`recompute on:\n${formatPlan(on)}`);
    console.log(`recompute off:\n${formatPlan(off)}`);
    const gib = (n: number) => (n / 2 ** 30).toFixed(3);
    console.log(`Qwen2.5-0.5B LoRA r=16 NF4 8x512: recompute on ${gib(on.total)} GiB, off ${gib(off.total)} GiB; weights ${gib(on.weightsBytes)} GiB`);
    // LoRA parameters: 8.8 M (anchors.md) -> 35 MB each for params, grads, m, v.
    const loraRow = on.rows.find((r) => r.name.startsWith('LoRA A/B'))!;
    expect(loraRow.bytes / 4).toBeCloseTo(8_798_208, -3);
    expect(on.total).toBeLessThanOrEqual(1.5 * 2 ** 30);
    expect(off.total).toBeGreaterThan(on.total + 5 * 2 ** 30); // every layer's activations kept
    expect(() => planTraining(cfg, { ...base, mode: 'full', recompute: true })).toThrow(/full fine-tuning trains f32 weights/);
  });

  it('full mode on the tiny model counts f32 gradients and moments for every weight', async () => {
    const f = fixtures[0];
    const plan = planTraining(f.cfg, { mode: 'full', quant: 'none', quantEmbeddings: false, batchSize: 2, seqLen: 16, recompute: false });
    const weights = plan.rows.filter((r) => r.name.startsWith('weights:')).reduce((s, r) => s + r.bytes, 0);
    const grads = plan.rows.find((r) => r.name.startsWith('gradients'))!.bytes;
    const adam = plan.rows.find((r) => r.name === 'AdamW m and v')!.bytes;
    console.log(`tiny full mode 2x16:\n${formatPlan(plan)}`);
    expect(grads).toBe(weights);
    expect(adam).toBe(2 * weights);
  });
});
