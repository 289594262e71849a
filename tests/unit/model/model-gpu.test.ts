// The decoder on the GPU against PyTorch goldens and the CPU reference: tiny Qwen2 (GQA, q/k/v
// biases, tied embeddings) in f32 with the adapter off, on, and switched off at run time, NF4
// weights against the CPU reference on the same quantization, batched sequences of different
// lengths; greedy generation against the reference; sampling fused into the LM head draws what
// logits-then-sampler draw; stories260K's documented greedy text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { GpuRuntime } from '../../../src/gpu/runtime';
import { getNodeGpu } from '../../../src/gpu/node-gpu';
import { GpuOutOfMemoryError } from '../../../src/gpu/errors';
import { setTuning } from '../../../src/gpu/tuning';
import { tuningFamily } from '../../../src/gpu/kernels/linear-tune';
import { NodeDirSource, openNodeModelSource } from '../../../src/model/io/node-source';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openWeights, type WeightStore } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { parseModelConfig } from '../../../src/model/hf-config';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { GpuModel, type GpuModelOptions } from '../../../src/model/gpu/model';
import { generate } from '../../../src/model/generate';
import { DecodeSession } from '../../../src/model/gpu/session';
import { hfNames, PROJECTIONS, projShape, type LoraWeights, type TensorMap } from '../../../src/model/types';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { greedy_generate, model_forward, model_logprobs } from '../../../src/reference/model';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { greedySample, STORIES_DIR } from '../../fixtures/io/stories260k';

const DIR = join(__dirname, '../../fixtures/goldens');
interface GoldenCase { weights: 'f32' | 'nf4'; adapter: boolean; ids: number[]; logprobs: number[]; entropy: number[] }
const goldens = JSON.parse(readFileSync(join(DIR, 'goldens.json'), 'utf8')) as { cases: GoldenCase[] };

function reader(m: { weights: WeightStore }) {
  return { read: (n: string) => m.weights.read(n), has: (n: string) => m.weights.tensors.has(n) };
}

/** The fixture folder has config + weights but no tokenizer: load those two. */
async function loadFixture(dir: string) {
  const src = new NodeDirSource(dir);
  return { config: parseModelConfig(await readJson(src, 'config.json')), weights: await openWeights(src) };
}

describe('GpuModel (tiny Qwen2)', () => {
  let rt: GpuRuntime;
  let loaded: Awaited<ReturnType<typeof loadFixture>>;
  let lora: LoraWeights;
  const cases = (w: 'f32' | 'nf4', adapter: boolean) => goldens.cases.filter((c) => c.weights === w && c.adapter === adapter);
  const load = (o: Partial<GpuModelOptions>) => GpuModel.load(rt, loaded.config, reader(loaded), { quant: 'none', quantEmbeddings: false, ...o });

  beforeAll(async () => {
    rt = await nodeRuntime();
    loaded = await loadFixture(join(DIR, 'tiny-qwen2'));
    lora = await readPeftAdapter(new NodeDirSource(join(DIR, 'tiny-qwen2-lora')), loaded.config);
  });

  async function compare(model: GpuModel, cs: GoldenCase[], label: string): Promise<void> {
    const r = await model.logprobs(cs.map((c) => c.ids)); // one batch of different lengths
    cs.forEach((c, i) => {
      const dl = maxAbsDiff(r.logprobs[i], c.logprobs), de = maxAbsDiff(r.entropy[i], c.entropy);
      console.log(`${label} T=${c.ids.length}: logprobs maxdiff=${dl.toExponential(2)} entropy maxdiff=${de.toExponential(2)}`);
      expect(dl).toBeLessThan(1e-4);
      expect(de).toBeLessThan(1e-4);
    });
  }

  it('f32, no adapter: log-probs and entropies match PyTorch', async () => {
    const model = await load({});
    await compare(model, cases('f32', false), 'gpu f32 vs torch');
    model.dispose();
  });

  it('f32 with the LoRA adapter matches PyTorch; switched off it is the base model', async () => {
    const model = await load({ lora });
    await compare(model, cases('f32', true), 'gpu f32+lora vs torch');
    model.loraEnabled = false;
    await compare(model, cases('f32', false), 'gpu f32 lora-off vs torch');
    model.loraEnabled = true;
    await compare(model, cases('f32', true), 'gpu f32 lora-on-again vs torch');
    model.dispose();
  });

  it('NF4 base (+ adapter) matches the CPU reference on the same quantized weights', async () => {
    const model = await load({ quant: 'nf4', lora });
    const report = model.weights.report;
    for (const r of report) console.log(`quant ${r.tensor}: ${r.format}${r.meanAbs !== undefined ? ` mean|err|=${r.meanAbs.toExponential(2)} max=${r.maxAbs!.toExponential(2)}` : ''}${r.note ? ` (${r.note})` : ''}`);
    expect(report.filter((r) => r.format === 'nf4').length).toBeGreaterThan(0);
    // The CPU reference with the same policy: NF4 where in-features are a multiple of 64.
    const cfg = loaded.config;
    const w: TensorMap = await loaded.weights.readAll();
    for (let l = 0; l < cfg.numLayers; l++) {
      for (const p of PROJECTIONS) {
        if (projShape(cfg, p)[1] % 64 !== 0) continue;
        const t = w.get(hfNames.proj(l, p))!;
        w.set(hfNames.proj(l, p), { shape: t.shape, data: nf4_roundtrip(t.data) });
      }
    }
    const seqs = cases('f32', true).map((c) => c.ids);
    const gpu = await model.logprobs(seqs);
    seqs.forEach((ids, i) => {
      const ref = model_logprobs(cfg, w, ids, lora);
      const d = maxAbsDiff(gpu.logprobs[i], ref.logprobs);
      console.log(`gpu nf4+lora vs cpu reference T=${ids.length}: logprobs maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThan(1e-4);
    });
    model.dispose();
  });

  it('greedy generation matches the CPU reference token for token, batched', async () => {
    const model = await load({ lora });
    const cfg = loaded.config, w = await loaded.weights.readAll();
    const prompts = [[5, 9, 17], [3], [40, 41, 42, 43, 44, 45]];
    const res = await generate(rt, model, null, prompts, { maxNewTokens: 8, temperature: 0 });
    model.loraEnabled = false;
    const base = await generate(rt, model, null, prompts, { maxNewTokens: 8, temperature: 0 });
    prompts.forEach((p, i) => {
      const ref = greedy_generate(cfg, w, p, 8, []);
      console.log(`greedy base prompt ${i}: gpu ${base[i].tokens.join(',')} | cpu ${ref.join(',')}`);
      expect(base[i].tokens).toEqual(ref);
      expect(res[i].tokens.length).toBe(8);
    });
    expect(res.map((r) => r.tokens)).not.toEqual(base.map((r) => r.tokens)); // the adapter matters
    model.dispose();
  });

  it('a live sequence extended with outside tokens (a tool response) continues as if prefilled whole', async () => {
    const model = await load({ lora });
    const cfg = loaded.config, w = await loaded.weights.readAll();
    const session = new DecodeSession(rt, model, 2, 32);
    const greedy = { temperature: 0, topK: 0, topP: 1, seed: 0, step: 0 };
    const p0 = [5, 9, 17], p1 = [40, 41];
    const first = await session.step([p0, p1], greedy);
    // Slot 0 receives a "tool response" instead of its sampled token; slot 1 keeps decoding.
    const tool = [100, 101, 102, 103];
    const second = await session.step([[first.ids[0], ...tool], [first.ids[1]]], { ...greedy, step: 1 });
    const full0 = [...p0, first.ids[0], ...tool];
    const nextOf = (ids: number[]) => {
      const V = cfg.vocabSize, logits = model_forward(cfg, w, ids, lora).subarray((ids.length - 1) * V, ids.length * V);
      let best = 0;
      for (let v = 1; v < V; v++) if (logits[v] > logits[best]) best = v;
      return best;
    };
    const refNext = nextOf(full0);
    const refLp = model_logprobs(cfg, w, [...full0, refNext], lora).logprobs;
    console.log(`extension: gpu next=${second.ids[0]} lp=${second.logprobs[0].toFixed(6)} | cpu next=${refNext} lp=${refLp[refLp.length - 1].toFixed(6)}`);
    expect(second.ids[0]).toBe(refNext);
    expect(Math.abs(second.logprobs[0] - refLp[refLp.length - 1])).toBeLessThan(1e-4);
    expect(second.ids[1]).toBe(nextOf([...p1, first.ids[1]]));
    expect(Array.from(session.lengths)).toEqual([full0.length, p1.length + 1]);
    session.free();
    model.dispose();
  });

  it('sampling fused into the LM head draws the tokens of logits then the sampler', async () => {
    // The head on dec at 1-8 rows (the fused kernel's variant), whatever an earlier test tuned.
    const { hiddenSize: C, vocabSize: V } = loaded.config;
    for (const b of ['decode1', 'decode8'] as const) setTuning(rt.report, tuningFamily(rt, 'f32', b, C, V), 'dec');
    const model = await load({ tune: false });
    const prompts = [[5, 9, 17], [3], [40, 41, 42, 43, 44, 45]];
    const params = { temperature: 0.8, topK: 0, topP: 1, seed: 3, step: 0 };
    expect(model.fusedHead(3, params)).not.toBeNull();
    expect(model.fusedHead(3, { ...params, topK: 20 })).toBeNull(); // top-k: logits, then the sampler
    const opts = { maxNewTokens: 8, temperature: 0.8, seed: 3 };
    const fused = await generate(rt, model, null, prompts, opts);
    model.fuseSampling = false;
    const plain = await generate(rt, model, null, prompts, opts);
    const d = Math.max(...fused.map((g, i) => maxAbsDiff(Float32Array.from(g.logprobs), Float32Array.from(plain[i].logprobs))));
    console.log(`fused vs unfused sampling: ${fused.map((g) => g.tokens.join(',')).join(' | ')}; log-prob maxdiff ${d.toExponential(2)}`);
    expect(fused.map((g) => g.tokens)).toEqual(plain.map((g) => g.tokens));
    expect(d).toBeLessThan(1e-5);
    model.dispose();
  });

  it('a model too big for the device is refused by name, and nothing stays allocated', async () => {
    const { gpu } = await getNodeGpu();
    const small = await GpuRuntime.create(gpu, { memoryBudget: 24 * 1024 });
    const before = small.memory();
    const err = await GpuModel.load(small, loaded.config, reader(loaded), { quant: 'none', quantEmbeddings: false }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(GpuOutOfMemoryError);
    console.log(`too-big model: ${(err as Error).message}`);
    expect((err as Error).message).toContain('model.embed_tokens.weight');
    expect((err as Error).message).toContain('--quant nf4');
    expect(small.memory().inUse).toBe(before.inUse);
    small.destroy();
  });

  it('seeded sampling is reproducible and sequences stop at their own budget / stop ids', async () => {
    const model = await load({});
    const opts = { maxNewTokens: 6, temperature: 1, topK: 20, topP: 0.9, seed: 7 };
    const a = await generate(rt, model, null, [[1, 2], [3, 4, 5]], opts);
    const b = await generate(rt, model, null, [[1, 2], [3, 4, 5]], opts);
    expect(a.map((g) => g.tokens)).toEqual(b.map((g) => g.tokens));
    expect(a.every((g) => g.logprobs.every((x) => x <= 0 && Number.isFinite(x)))).toBe(true);
    const stopId = a[0].tokens[2];
    const c = await generate(rt, model, null, [[1, 2], [3, 4, 5]], { ...opts, stopTokenIds: [stopId] });
    expect(c[0].finishReason).toBe('stop_token');
    expect(c[0].tokens.length).toBeLessThanOrEqual(3);
    model.dispose();
  });
});

describe('GpuModel (stories260K, llama2.c checkpoint)', () => {
  it('greedy generation from BOS reproduces the documented text', async () => {
    const rt = await nodeRuntime();
    const loaded = await loadModelFiles(await openNodeModelSource(join(STORIES_DIR, 'stories260K.bin')));
    const model = await GpuModel.load(rt, loaded.config, reader(loaded), { quant: 'none', quantEmbeddings: false });
    const bos = loaded.tokenizer.bosTokenId ?? 1;
    const [g] = await generate(rt, model, loaded.tokenizer, [[bos]], { maxNewTokens: 256, temperature: 0, stopTokenIds: [bos] });
    const expected = greedySample();
    console.log(`stories260K on the GPU: ${g.tokens.length} tokens, ${g.text.length} chars, first 80: ${JSON.stringify(g.text.slice(0, 80))}`);
    expect(g.text.trim()).toBe(expected.trim());
    model.dispose();
  });
});
