// The decoder on the GPU against PyTorch goldens and the CPU reference: tiny Qwen2 (GQA, q/k/v
// biases, tied embeddings) in f32 with the adapter off, on, and switched off at run time, NF4
// weights against the CPU reference on the same quantization, batched sequences of different
// lengths; greedy generation against the reference; sampling fused into the LM head draws what
// logits-then-sampler draw; stories260K's documented greedy text. DecodeSession's look-ahead (the
// next step recorded while a step's samples are read back): a scripted schedule of continuations, a
// finished slot, a tool response, a slot reset for a new prompt and changed sampling parameters
// gives, with look-ahead on, the ids, log-probs and lengths of the same schedule with it off
// (greedy; seeded draws up to the first slot that stops), with the look-ahead rows used and rolled
// back counted; a step refused for its length changes nothing; a weight write or the adapter
// switched off between two steps discards the look-ahead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { DecodeSession, type LookAheadStats } from '../../../src/model/gpu/session';
import type { SamplingParams } from '../../../src/gpu/kernels/sampling';
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

  it('f32 with the adapter merged into the weights (as rollouts run) matches PyTorch and decodes what the separate path decodes; unmerged, the separate path again; NF4 does not merge', async () => {
    const model = await load({ lora });
    const prompts = [[5, 9, 17], [3], [40, 41, 42, 43, 44, 45]];
    const separate = await generate(rt, model, null, prompts, { maxNewTokens: 8, temperature: 0 });
    expect(await model.mergeLora()).toBe(true);
    expect(model.loraMerged).toBe(true);
    await compare(model, cases('f32', true), 'gpu f32+lora merged vs torch');
    const merged = await generate(rt, model, null, prompts, { maxNewTokens: 8, temperature: 0 });
    prompts.forEach((_p, i) => {
      const d = maxAbsDiff(Float32Array.from(merged[i].logprobs), Float32Array.from(separate[i].logprobs));
      console.log(`greedy merged vs separate LoRA prompt ${i}: ${merged[i].tokens.join(',')} | ${separate[i].tokens.join(',')}, logprobs maxdiff=${d.toExponential(2)}`);
      expect(merged[i].tokens).toEqual(separate[i].tokens);
      expect(d).toBeLessThan(1e-4);
    });
    model.loraEnabled = false; // the reference policy: the base weights, merged or not
    await compare(model, cases('f32', false), 'gpu f32 merged, lora-off vs torch');
    model.loraEnabled = true;
    model.unmergeLora();
    expect(model.loraMerged).toBe(false);
    await compare(model, cases('f32', true), 'gpu f32+lora unmerged again vs torch');
    model.dispose();
    const nf4 = await load({ quant: 'nf4', lora });
    expect(await nf4.mergeLora()).toBe(false);
    expect(nf4.loraMerged).toBe(false);
    nf4.dispose();
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

  it('sampling fused into the LM head draws the tokens of logits then the sampler (dec, gemv, sg; a step split into passes)', async () => {
    // The head on each fused variant at 1-8 rows, whatever an earlier test tuned. maxRows 4 splits the
    // prompt step into three passes, the last drawing row 2 of the step (the noise key's row offset).
    const { hiddenSize: C, vocabSize: V } = loaded.config;
    const prompts = [[5, 9, 17], [3], [40, 41, 42, 43, 44, 45]];
    const params = { temperature: 0.8, topK: 0, topP: 1, seed: 3, step: 0 };
    const opts = { maxNewTokens: 8, temperature: 0.8, seed: 3 };
    for (const variant of ['dec', 'gemv', ...(rt.hasFeature('subgroups') ? ['sg' as const] : [])] as const) {
      for (const b of ['decode1', 'decode8'] as const) setTuning(rt.report, tuningFamily(rt, 'f32', b, C, V), variant);
      const model = await load({ tune: false, maxRows: 4 });
      expect(model.fusedHead(3, params)?.group).toBe(variant === 'sg' ? 4 : 8);
      expect(model.fusedHead(3, { ...params, topK: 20 })).toBeNull(); // top-k: logits, then the sampler
      const fused = await generate(rt, model, null, prompts, opts);
      model.fuseSampling = false;
      const plain = await generate(rt, model, null, prompts, opts);
      const d = Math.max(...fused.map((g, i) => maxAbsDiff(Float32Array.from(g.logprobs), Float32Array.from(plain[i].logprobs))));
      console.log(`fused vs unfused sampling, head ${variant}: ${fused.map((g) => g.tokens.join(',')).join(' | ')}; log-prob maxdiff ${d.toExponential(2)}`);
      expect(fused.map((g) => g.tokens)).toEqual(plain.map((g) => g.tokens));
      expect(d).toBeLessThan(1e-5);
      model.dispose();
    }
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

/** What a schedule step appends, given the samples of the step before (per slot, -1: none). */
type Plan = (last: Int32Array) => number[][];

interface Trace { ids: number[][]; logprobs: number[][]; lengths: number[][]; stats: LookAheadStats }

describe('DecodeSession look-ahead (tiny Qwen2)', () => {
  let rt: GpuRuntime;
  let model: GpuModel;

  beforeAll(async () => {
    rt = await nodeRuntime();
    const loaded = await loadFixture(join(DIR, 'tiny-qwen2'));
    const lora = await readPeftAdapter(new NodeDirSource(join(DIR, 'tiny-qwen2-lora')), loaded.config);
    model = await GpuModel.load(rt, loaded.config, reader(loaded), { quant: 'none', quantEmbeddings: false, lora, tune: false });
  });
  afterAll(() => model.dispose());

  const go = (last: Int32Array, slots: number[]) => Array.from(last, (id, s) => (slots.includes(s) ? [id] : []));
  // Three slots: prompts, four steps of all three, slot 1 finishes, slot 2 takes a 3-token tool
  // response, slot 1 starts a new prompt (reset before the step), three more steps of all three.
  const schedule: { plan: Plan; reset?: number; params?: Partial<SamplingParams> }[] = [
    { plan: () => [[5, 9, 17], [40, 41, 42, 43, 44], [3, 7]] },
    ...Array.from({ length: 4 }, () => ({ plan: (l: Int32Array) => go(l, [0, 1, 2]) })),
    { plan: (l) => go(l, [0, 2]) },
    { plan: (l) => [[l[0]], [], [100, 101, 102]] },
    { plan: (l) => [[l[0]], [11, 12, 13, 14], [l[2]]], reset: 1 },
    ...Array.from({ length: 3 }, () => ({ plan: (l: Int32Array) => go(l, [0, 1, 2]) })),
    { plan: (l: Int32Array) => go(l, [0, 1, 2]), params: { seed: 99 } }, // changed parameters: nothing taken
    { plan: (l: Int32Array) => go(l, [0, 1, 2]) },
  ];

  async function run(lookAhead: boolean, base: Omit<SamplingParams, 'step'>): Promise<Trace> {
    model.lookAhead = lookAhead;
    const session = new DecodeSession(rt, model, 3, 40);
    const t: Trace = { ids: [], logprobs: [], lengths: [], stats: session.lookAheadStats };
    let last: Int32Array = new Int32Array(3).fill(-1);
    try {
      for (const [step, s] of schedule.entries()) {
        if (s.reset !== undefined) session.reset(s.reset);
        const r = await session.step(s.plan(last), { ...base, ...s.params, step });
        last = r.ids;
        t.ids.push(Array.from(r.ids));
        t.logprobs.push(Array.from(r.logprobs));
        t.lengths.push(Array.from(session.lengths));
      }
    } finally {
      session.free();
      model.lookAhead = true;
    }
    return t;
  }

  it('gives the samples, log-probs and lengths of the same steps without it; rolls back what the caller did not append', async () => {
    const greedy = { temperature: 0, topK: 0, topP: 1, seed: 0 };
    const off = await run(false, greedy), on = await run(true, greedy);
    console.log(`look-ahead greedy: ids ${on.ids.map((r) => r.join(',')).join(' | ')}; stats ${JSON.stringify(on.stats)}`);
    expect(on.ids).toEqual(off.ids);
    expect(on.logprobs).toEqual(off.logprobs); // the same rows through the same kernels: bit for bit
    expect(on.lengths).toEqual(off.lengths);
    expect(off.stats).toEqual({ recorded: 0, used: 0, wasted: 0, rowsRolledBack: 0 });
    // Recorded after every step that continued a slot (all but the prompts); taken in part or
    // whole by steps 2-10, by neither the changed-parameters step nor the one after it (back to
    // the first parameters); rolled back: slot 1 at its end, slot 2 at its tool response, all
    // three at each of the last two steps.
    expect(on.stats).toEqual({ recorded: 12, used: 9, wasted: 2, rowsRolledBack: 8 });
  });

  it('seeded draws: the same samples and log-probs as without it at every step, rolled-back rows and tool responses included', async () => {
    const seeded = { temperature: 0.9, topK: 0, topP: 1, seed: 7 };
    const off = await run(false, seeded), on = await run(true, seeded), again = await run(true, seeded);
    // The noise is keyed by (slot stream, token index), not by the row a look-ahead drew it in. The
    // log-probs agree to rounding: a step's rest (a tool response) runs in a pass of its own rows,
    // whose kernel variant can differ from the pass of all rows in the last bits.
    expect(on.ids).toEqual(off.ids);
    const lpDiff = Math.max(...on.logprobs.flatMap((r, i) => r.map((x, s) => (Number.isNaN(x) && Number.isNaN(off.logprobs[i][s]) ? 0 : Math.abs(x - off.logprobs[i][s])))));
    console.log(`look-ahead seeded: ids ${on.ids.map((r) => r.join(',')).join(' | ')}; log-prob maxdiff vs without it ${lpDiff.toExponential(2)}`);
    expect(lpDiff).toBeLessThan(1e-5);
    expect(again.ids).toEqual(on.ids);
    expect(on.lengths).toEqual(off.lengths);
    expect(on.stats.used).toBeGreaterThan(5);
  });

  // Seeded noise keyed by (the slot's stream, the token's index): a sequence draws the same tokens
  // alone in slot 0 as in slot 2 beside two others (one of them sharing its prompt, one stopping
  // early, the look-ahead on), whichever rows step with it.
  it('seeded draws follow a sequence\'s stream, not its slot or the slots beside it', async () => {
    const params = { temperature: 1.2, topK: 0, topP: 1, seed: 3 };
    const prompt = [5, 9, 17, 23], other = [40, 41, 42];
    const solo = async (stream: number, toks: number[]) => {
      const session = new DecodeSession(rt, model, 1, 40);
      try {
        session.reset(0, stream);
        const ids: number[] = [];
        let r = await session.step([toks], { ...params, step: 0 });
        for (let step = 1; step <= 8; step++) {
          ids.push(r.ids[0]);
          r = await session.step([[r.ids[0]]], { ...params, step });
        }
        return ids;
      } finally {
        session.free();
      }
    };
    const session = new DecodeSession(rt, model, 3, 40);
    const got: number[][] = [[], [], []];
    try {
      session.reset(0, 6);
      session.reset(1, 11);
      session.reset(2, 5);
      let r = await session.step([prompt, other, prompt], { ...params, step: 0 });
      for (let step = 1; step <= 8; step++) {
        const live = step <= 3 ? [0, 1, 2] : [0, 2];
        for (const s of live) got[s].push(r.ids[s]);
        r = await session.step([0, 1, 2].map((s) => (live.includes(s) ? [r.ids[s]] : [])), { ...params, step: step + 10 });
      }
    } finally {
      session.free();
    }
    const [s5, s6, s11] = [await solo(5, prompt), await solo(6, prompt), await solo(11, other)];
    console.log(`streams: slot 2 ${got[2].join(',')} | alone ${s5.join(',')}; slot 0 (shared prompt) ${got[0].join(',')} | alone ${s6.join(',')}`);
    expect(got[2]).toEqual(s5);
    expect(got[0]).toEqual(s6);
    expect(got[1]).toEqual(s11.slice(0, 3));
    expect(s5).not.toEqual(s6); // the same prompt on two streams draws apart
    expect(() => session.reset(0, 2 ** 24)).toThrow(/stream 16777216 for slot 0; it must be an integer in \[0, 2\^24\)/);
  });

  it('a step refused for its length changes nothing: the look-ahead is still taken after it', async () => {
    const greedy = { temperature: 0, topK: 0, topP: 1, seed: 0, step: 0 };
    const session = new DecodeSession(rt, model, 2, 8);
    try {
      let r = await session.step([[5, 9, 17], [40, 41]], greedy);
      r = await session.step(Array.from(r.ids, (id) => [id]), { ...greedy, step: 1 });
      const held = Array.from(session.lengths);
      expect(held).toEqual([4, 3]);
      await expect(session.step([[r.ids[0]], [1, 2, 3, 4, 5, 6]], { ...greedy, step: 2 })).rejects.toThrow(/slot 1 holds 3 tokens and appends 6, over its 8/);
      expect(Array.from(session.lengths)).toEqual(held);
      r = await session.step(Array.from(r.ids, (id) => [id]), { ...greedy, step: 2 });
      expect(session.lookAheadStats).toMatchObject({ recorded: 2, used: 1, wasted: 0, rowsRolledBack: 0 });
      expect(Array.from(session.lengths)).toEqual([5, 4]);
    } finally {
      session.free();
    }
  });

  it('a weight write or the adapter switched off between two steps discards it', async () => {
    const greedy = { temperature: 0, topK: 0, topP: 1, seed: 0, step: 0 };
    const steps = async (between: () => void) => {
      const session = new DecodeSession(rt, model, 1, 16);
      try {
        let r = await session.step([[5, 9, 17]], greedy);
        r = await session.step([[r.ids[0]]], { ...greedy, step: 1 });
        between();
        r = await session.step([[r.ids[0]]], { ...greedy, step: 2 });
        return { id: r.ids[0], lp: r.logprobs[0], stats: { ...session.lookAheadStats } };
      } finally {
        session.free();
        model.loraEnabled = true;
      }
    };
    model.lookAhead = false;
    const baseOff = await steps(() => { model.loraEnabled = false; });
    model.lookAhead = true;
    const baseOn = await steps(() => { model.loraEnabled = false; });
    expect(baseOn.stats).toMatchObject({ recorded: 2, used: 0, wasted: 1 });
    expect([baseOn.id, baseOn.lp]).toEqual([baseOff.id, baseOff.lp]);
    const scratch = rt.storage(16, 'look-ahead test scratch');
    const written = await steps(() => rt.write(scratch, new Float32Array(4)));
    rt.release(scratch);
    expect(written.stats).toMatchObject({ recorded: 2, used: 0, wasted: 1 });
    const untouched = await steps(() => {});
    expect(untouched.stats).toMatchObject({ recorded: 2, used: 1, wasted: 0 });
    expect([written.id, written.lp]).toEqual([untouched.id, untouched.lp]);
  });
});
