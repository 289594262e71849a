// The GPU training step's modes on the tiny Qwen2 fixture: recompute on == off (LoRA and full
// mode, with an entropy gradient), micro-batch accumulation (2 x half batch == whole batch, and
// passes split by maxRows), a DlogpFn fed the forward's log-probs, the entropy gradient against
// model_backward, log-prob passes with the adapter on/off against GpuModel.logprobs and the CPU
// reference, and the host round trips of the parameters. Prints maxdiff per comparison.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { parseModelConfig } from '../../../src/model/hf-config';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { openWeights } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { GpuModel } from '../../../src/model/gpu/model';
import type { LoraWeights, ModelConfig, TensorMap } from '../../../src/model/types';
import { model_backward, type LoraGrads } from '../../../src/reference/model_backward';
import { model_logprobs } from '../../../src/reference/model';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { GpuLoraParams } from '../../../src/train/lora-params';
import { GpuFullParams } from '../../../src/train/full-params';
import { TrainStep, type TrainStepOptions } from '../../../src/train/train-step';
import { Trainer, type TrainerConfig } from '../../../src/train/trainer';

const DIR = join(__dirname, '../../fixtures/goldens');
const SEQS = [[5, 9, 17, 3, 88, 1, 40], [3, 4], [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50], [7, 7, 7, 100, 2]];
const perSeq = (seed: number, scale: number) => SEQS.map((s, b) => Float32Array.from(randomArray(s.length - 1, seed + b), (x) => x * scale));
const DLOGP = perSeq(11, 0.3), DENT = perSeq(31, 0.1);

const flatLora = (g: LoraGrads) => [...g.keys()].sort().flatMap((k) => [...g.get(k)!.dA, ...g.get(k)!.dB]);
const flatFull = (g: TensorMap) => [...g.keys()].sort().flatMap((k) => [...g.get(k)!.data]);
const maxAbs = (a: number[]) => a.reduce((m, x) => Math.max(m, Math.abs(x)), 0);

describe('GPU training step modes (tiny Qwen2)', () => {
  let rt: GpuRuntime;
  let cfg: ModelConfig;
  let weights: TensorMap;
  let lora: LoraWeights;
  const load = () => GpuModel.load(rt, cfg, { has: (n) => weights.has(n), read: async (n) => weights.get(n)! }, { quant: 'none', quantEmbeddings: false, tune: false });

  beforeAll(async () => {
    rt = await nodeRuntime();
    const src = new NodeDirSource(join(DIR, 'tiny-qwen2'));
    cfg = parseModelConfig(await readJson(src, 'config.json'));
    weights = await (await openWeights(src)).readAll();
    lora = await readPeftAdapter(new NodeDirSource(join(DIR, 'tiny-qwen2-lora')), cfg);
  });

  /** LoRA grads of `run` on a fresh model + adapter. */
  async function loraGrads(opts: TrainStepOptions, run: (s: TrainStep) => Promise<void>): Promise<number[]> {
    const model = await load();
    const params = GpuLoraParams.fromHost(rt, cfg, lora);
    const step = await TrainStep.create(rt, model, { mode: 'lora', params }, opts);
    await run(step);
    const g = flatLora(await params.gradsToHost());
    step.dispose(); params.dispose(); model.dispose();
    return g;
  }

  async function fullGrads(opts: TrainStepOptions, run: (s: TrainStep) => Promise<void>): Promise<number[]> {
    const model = await load();
    const params = GpuFullParams.create(rt, model);
    const step = await TrainStep.create(rt, model, { mode: 'full', params }, opts);
    await run(step);
    const g = flatFull(await params.gradsToHost());
    step.dispose(); params.dispose(); model.dispose();
    return g;
  }

  const whole = async (s: TrainStep) => { await s.run({ seqs: SEQS, dlogp: DLOGP, dentropy: DENT }); };

  it('recompute on == off (LoRA and full mode, with dentropy)', async () => {
    for (const [mode, grads] of [['lora', loraGrads], ['full', fullGrads]] as const) {
      const off = await grads({ recompute: false }, whole);
      const on = await grads({ recompute: true }, whole);
      const d = maxAbsDiff(on, off);
      const same = on.every((x, i) => x === off[i]);
      console.log(`${mode}: recompute on vs off maxdiff=${d.toExponential(2)} (${same ? 'bitwise equal' : 'not bitwise'}) over ${on.length} values, max |grad| ${maxAbs(off).toExponential(2)}`);
      expect(maxAbs(off)).toBeGreaterThan(1e-3);
      expect(d).toBeLessThanOrEqual(1e-6);
    }
  });

  it('micro-batches accumulate: 2 x half batch == 1 x batch; passes split by maxRows too', async () => {
    for (const [mode, grads] of [['lora', loraGrads], ['full', fullGrads]] as const) {
      const one = await grads({}, whole);
      const two = await grads({}, async (s) => {
        await s.run({ seqs: SEQS.slice(0, 2), dlogp: DLOGP.slice(0, 2), dentropy: DENT.slice(0, 2) });
        await s.run({ seqs: SEQS.slice(2), dlogp: DLOGP.slice(2), dentropy: DENT.slice(2) });
      });
      const split = await grads({ maxRows: 12, recompute: true }, whole); // passes of 7+2, 11, 5 rows
      // The row sums run in another order (f32): compare relative to the largest gradient.
      const d2 = maxAbsDiff(two, one), ds = maxAbsDiff(split, one), m = maxAbs(one);
      console.log(`${mode}: 2 micro-batches vs whole maxdiff=${d2.toExponential(2)}; maxRows 12 (3 passes) vs whole maxdiff=${ds.toExponential(2)} (max |grad| ${m.toExponential(2)})`);
      expect(d2 / m).toBeLessThan(1e-6);
      expect(ds / m).toBeLessThan(1e-6);
    }
  });

  it('loss rows only (lossRows): the LM head on the masked rows gives the gradients and log-probs of every row, 0 off the mask', async () => {
    // One sequence without a loss row; dlogp / dentropy are 0 off the mask (what a loss gives).
    const MASK = SEQS.map((s, b) => Float32Array.from({ length: s.length - 1 }, (_, t) => (b === 1 || (t * 7 + b) % 3 === 0 ? 0 : 1)));
    const masked = (v: Float32Array[]) => v.map((x, b) => x.map((y, t) => y * MASK[b][t]));
    const dl = masked(DLOGP), de = masked(DENT);
    const flat = (v: Float32Array[]) => v.flatMap((x) => [...x]);
    for (const [mode, grads] of [['lora', loraGrads], ['full', fullGrads]] as const) {
      let lpAll: Float32Array[] = [], lpSel: Float32Array[] = [], lpFn: Float32Array[] = [];
      const all = await grads({}, async (s) => { lpAll = (await s.run({ seqs: SEQS, dlogp: dl, dentropy: de })).logprobs; });
      const sel = await grads({}, async (s) => { lpSel = (await s.run({ seqs: SEQS, dlogp: dl, dentropy: de, lossRows: MASK })).logprobs; });
      // Passes of 7+2, 11, 5 rows (recomputing) in LM-head chunks of 3 rows, and the log-probs
      // first (a DlogpFn: the one chunk's logits kept for the backward).
      const split = await grads({ maxRows: 12, recompute: true, chunkRows: 3 }, async (s) => { await s.run({ seqs: SEQS, dlogp: dl, dentropy: de, lossRows: MASK }); });
      const viaFn = await grads({}, async (s) => {
        await s.run({ seqs: SEQS, lossRows: MASK, dlogp: (lp) => { lpFn = lp; return { dlogp: dl, dentropy: de }; } });
      });
      const m = maxAbs(all);
      const dSel = maxAbsDiff(sel, all), dSplit = maxAbsDiff(split, all), dFn = maxAbsDiff(viaFn, all);
      const onMask = (v: Float32Array[]) => flat(masked(v)), offMask = (v: Float32Array[]) => flat(v.map((x, b) => x.filter((_, t) => !MASK[b][t])));
      const dLp = Math.max(maxAbsDiff(onMask(lpSel), onMask(lpAll)), maxAbsDiff(onMask(lpFn), onMask(lpAll)));
      console.log(`${mode}: loss rows only (${MASK.reduce((n, x) => n + x.reduce((a, v) => a + v, 0), 0)} of ${flat(MASK).length}) vs every row: grads maxdiff=${dSel.toExponential(2)}, ` +
        `3 passes in chunks of 3 rows ${dSplit.toExponential(2)}, DlogpFn ${dFn.toExponential(2)} (max |grad| ${m.toExponential(2)}); log-probs on the mask maxdiff=${dLp.toExponential(2)}`);
      expect(m).toBeGreaterThan(1e-3);
      for (const d of [dSel, dSplit, dFn]) expect(d / m).toBeLessThan(1e-6);
      expect(dLp).toBeLessThan(1e-6);
      expect(maxAbs(onMask(lpAll))).toBeGreaterThan(0.1);
      expect(maxAbs([...offMask(lpSel), ...offMask(lpFn)])).toBe(0);   // rows off the mask: not computed, 0
    }
  });

  it('merged weights (LoRA over f32, the default) give the separate path\'s gradients within rounding, with recompute and several passes', async () => {
    const sep = await loraGrads({ merge: false }, whole);
    const merged = await loraGrads({}, whole);
    const mergedSplit = await loraGrads({ maxRows: 12, recompute: true }, whole);
    const m = maxAbs(sep), d = maxAbsDiff(merged, sep), ds = maxAbsDiff(mergedSplit, sep);
    console.log(`LoRA grads on merged weights vs the separate path: maxdiff=${d.toExponential(2)}, recompute + 3 passes ${ds.toExponential(2)} (max |grad| ${m.toExponential(2)})`);
    expect(m).toBeGreaterThan(1e-3);
    expect(d / m).toBeLessThan(2e-5);
    expect(ds / m).toBeLessThan(2e-5);
    expect(d).toBeGreaterThan(0);   // the merged path ran (its sums round differently)
  });

  it('a DlogpFn sees the forward log-probs and gives the same gradients as precomputed dlogp', async () => {
    let seen: Float32Array[] = [];
    const direct = await loraGrads({}, whole);
    const viaFn = await loraGrads({}, async (s) => {
      await s.run({ seqs: SEQS, dlogp: (lp, _ent, first) => { seen = lp; expect(first).toBe(0); return { dlogp: DLOGP, dentropy: DENT }; } });
    });
    const ref = SEQS.map((s) => model_logprobs(cfg, weights, s, lora).logprobs);
    const dl = maxAbsDiff(seen.flatMap((x) => [...x]), ref.flatMap((x) => [...x]));
    console.log(`DlogpFn: log-probs it saw vs CPU reference maxdiff=${dl.toExponential(2)}; grads vs precomputed maxdiff=${maxAbsDiff(viaFn, direct).toExponential(2)}`);
    expect(dl).toBeLessThan(1e-4);
    expect(maxAbsDiff(viaFn, direct)).toBe(0);
  });

  it('dlogp + dentropy LoRA gradients match model_backward', async () => {
    const gpu = await loraGrads({}, whole);
    let ref: LoraGrads | undefined;
    SEQS.forEach((s, b) => { ref = model_backward(cfg, weights, s, DLOGP[b], { mode: 'lora', lora, dentropy: DENT[b], into: ref }); });
    const cpu = flatLora(ref!);
    const d = maxAbsDiff(gpu, cpu);
    console.log(`LoRA grads with dentropy vs model_backward: maxdiff=${d.toExponential(2)}, rel=${(d / maxAbs(cpu)).toExponential(2)}`);
    expect(d / maxAbs(cpu)).toBeLessThan(1e-4);
  });

  it('log-prob passes: adapter on/off vs GpuModel.logprobs and the CPU reference; nothing accumulates; a training step returns the same log-probs', async () => {
    const model = await load();
    const params = GpuLoraParams.fromHost(rt, cfg, lora);
    const step = await TrainStep.create(rt, model, { mode: 'lora', params });
    const on = await step.run({ seqs: SEQS, dlogp: null });
    const off = await step.run({ seqs: SEQS, dlogp: null, adapter: false });
    const inf = await model.logprobs(SEQS); // the model reads the same adapter (useLora)
    let dOn = 0, dOff = 0, dInf = 0, dEnt = 0;
    SEQS.forEach((s, b) => {
      const refOn = model_logprobs(cfg, weights, s, lora), refOff = model_logprobs(cfg, weights, s);
      dOn = Math.max(dOn, maxAbsDiff(on.logprobs[b], refOn.logprobs));
      dEnt = Math.max(dEnt, maxAbsDiff(on.entropy[b], refOn.entropy));
      dOff = Math.max(dOff, maxAbsDiff(off.logprobs[b], refOff.logprobs));
      dInf = Math.max(dInf, maxAbsDiff(on.logprobs[b], inf.logprobs[b]));
    });
    const grads = flatLora(await params.gradsToHost());
    console.log(`log-prob pass: adapter on vs CPU maxdiff=${dOn.toExponential(2)} (entropy ${dEnt.toExponential(2)}), off vs CPU base ${dOff.toExponential(2)}, ` +
      `on vs GpuModel.logprobs ${dInf.toExponential(2)}; grads after two passes max |g| = ${maxAbs(grads)}`);
    expect(Math.max(dOn, dOff, dEnt)).toBeLessThan(1e-4);
    expect(dInf).toBeLessThan(1e-5);
    expect(maxAbs(grads)).toBe(0);
    // with dlogp given up front the log-probs come from the backward's LM-head chunks: same values
    // on the separate LoRA path, within rounding on the merged weights (the default for training)
    const flatLp = (r: { logprobs: Float32Array[] }) => r.logprobs.flatMap((x) => [...x]);
    const dMerged = maxAbsDiff(flatLp(await step.run({ seqs: SEQS, dlogp: DLOGP })), flatLp(on));
    step.merge = false;
    const dFused = maxAbsDiff(flatLp(await step.run({ seqs: SEQS, dlogp: DLOGP })), flatLp(on));
    console.log(`log-probs returned by a training step vs the log-prob pass: maxdiff=${dFused.toExponential(2)} (merged weights: ${dMerged.toExponential(2)})`);
    expect(dFused).toBe(0);
    expect(dMerged).toBeLessThan(1e-4);
    await expect(step.run({ seqs: SEQS, dlogp: DLOGP, adapter: false })).rejects.toThrow(/reference policy/);
    await expect(step.run({ seqs: SEQS, dlogp: DLOGP.slice(1) })).rejects.toThrow(/dlogp has 3 rows for 4 sequences/);
    step.dispose(); params.dispose(); model.dispose();
  });

  it('host round trips: LoRA params (PEFT layout, partial targets) and full-mode weights are exact', async () => {
    const partial: LoraWeights = {
      config: { ...lora.config, targets: ['q', 'v', 'down'] },
      pairs: new Map([...lora.pairs].filter(([k]) => /\.(q|v|down)$/.test(k))),
    };
    for (const a of [lora, partial]) {
      const p = GpuLoraParams.fromHost(rt, cfg, a);
      const back = await p.toHost();
      expect([...back.pairs.keys()].sort()).toEqual([...a.pairs.keys()].sort());
      for (const [k, pair] of a.pairs) {
        expect(back.pairs.get(k)!.A).toEqual(pair.A);
        expect(back.pairs.get(k)!.B).toEqual(pair.B);
      }
      console.log(`LoRA round trip: ${a.config.targets.join(',')} -> ${back.pairs.size} pairs exact, ${p.numParams} trainable values, ${p.optimParams().length} optimizer tensors`);
      p.dispose();
    }
    const model = await load();
    const full = GpuFullParams.create(rt, model);
    const back = await full.toHost();
    for (const [name, t] of weights) expect(back.get(name)?.data).toEqual(t.data);
    console.log(`full round trip: ${back.size} tensors exact, ${full.numParams} values`);
    full.dispose(); model.dispose();
  });

  it('Trainer.state / restore resume bit-exactly (LoRA: PEFT keys; full: HF names; AdamW moments and t)', async () => {
    const examples = SEQS.map((ids) => ({ ids, mask: ids.slice(1).map((_, t) => (t % 3 === 0 ? 0 : 1)) }));
    const optimizer = { schedule: { kind: 'cosine' as const, lr: 1e-2, warmupSteps: 1, totalSteps: 10 }, maxGradNorm: 1.0 };
    for (const params of [{ mode: 'lora', adapter: lora }, { mode: 'full' }] as TrainerConfig['params'][]) {
      const ma = await load(), mb = await load();
      const a = await Trainer.create(rt, ma, { params, optimizer });
      const b = await Trainer.create(rt, mb, { params, optimizer });
      await a.sftStep(examples);
      await a.sftStep(examples);
      const st = await a.state();
      b.restore(st);
      const sa = await a.sftStep(examples), sb = await b.sftStep(examples);
      const [pa, pb] = [(await a.state()).params, (await b.state()).params];
      let d = 0;
      for (const [k, t] of pa) d = Math.max(d, maxAbsDiff(t.data, pb.get(k)!.data));
      console.log(`${params.mode} resume: ${st.params.size} tensors, ${st.adam.m.size} m, t=${st.adam.t}; next update loss ${sa.loss.toFixed(6)} vs ${sb.loss.toFixed(6)}, ` +
        `lr ${sa.lr} vs ${sb.lr}, params maxdiff=${d.toExponential(2)}`);
      expect(st.adam.t).toBe(2);
      expect(sb.loss).toBe(sa.loss);
      expect(sb.lr).toBe(sa.lr);
      expect(d).toBe(0);
      await a.dispose(); await b.dispose(); ma.dispose(); mb.dispose();
    }
  });
});
