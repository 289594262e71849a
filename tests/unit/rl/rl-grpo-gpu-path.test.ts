// The GPU-resident GRPO update (src/rl/grpo-micro.ts grpoGpuUpstream: loss gradients written on
// the GPU into the backward's buffers, metric sums and grad norm read back once) against the
// CPU-twin path (log-probs read back, grpo_loss on the host, gradients uploaded): one full-mode
// AdamW update of the tiny Qwen2 fixture, micro-batches of 2 and passes split by maxRows. Prints
// the maxdiff of every parameter after the update, of the metric sums and of the grad norm.
// Run: npx vitest run tests/unit/rl-grpo-gpu-path.test.ts
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { parseModelConfig } from '../../../src/model/hf-config';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { openWeights } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { GpuModel } from '../../../src/model/gpu/model';
import type { ModelConfig, TensorMap } from '../../../src/model/types';
import { randomArray } from '../../../src/gpu/selftest';
import { GRPO_METRICS_BYTES, GrpoLoss } from '../../../src/gpu/kernels/grpo';
import { PhaseTimer } from '../../../src/gpu/phase-timer';
import { Trainer } from '../../../src/train/trainer';
import { addSums, batchNormaliser, grpo_loss, resolveGrpoLoss, zeroSums, type GrpoSums } from '../../../src/reference/grpo_loss';
import { grpoGpuUpstream, GrpoStepSums, rowStarts, type SeqRows } from '../../../src/rl/grpo-micro';
import { gpuPhaseMetrics, rolloutSplit } from '../../../src/rl/step-phases';

const DIR = join(__dirname, '../../fixtures/goldens');
const SEQS = [[5, 9, 17, 3, 88, 1, 40], [3, 4, 60, 61], [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50], [7, 7, 7, 100, 2], [1, 2, 3, 4, 5, 6]];
const MB = 2;

describe('GRPO update: GPU-resident loss vs the CPU twin', () => {
  let rt: GpuRuntime;
  let cfg: ModelConfig;
  let weights: TensorMap;
  let loss: GrpoLoss;
  const load = () => GpuModel.load(rt, cfg, { has: (n) => weights.has(n), read: async (n) => weights.get(n)! }, { quant: 'none', quantEmbeddings: false, tune: false });
  const newTrainer = async () => Trainer.create(rt, await load(), { params: { mode: 'full' }, optimizer: { schedule: { kind: 'constant', lr: 1e-2 }, maxGradNorm: 1e9, eps: 1e-3 }, maxRows: 16 });

  const gradsOf = async (t: Trainer) => {
    if (t.trainable.mode !== 'full') throw new Error('full mode expected');
    const g = await t.trainable.params.gradsToHost();
    return [...g.keys()].sort().flatMap((k) => Array.from(g.get(k)!.data));
  };

  beforeAll(async () => {
    rt = await nodeRuntime();
    const src = new NodeDirSource(join(DIR, 'tiny-qwen2'));
    cfg = parseModelConfig(await readJson(src, 'config.json'));
    weights = await (await openWeights(src)).readAll();
    loss = await GrpoLoss.create(rt);
  });

  it('splits the rollout wall time into generation and tool wait', () => {
    expect(rolloutSplit(10, 0.25)).toEqual({ 'perf/generation_time': 7.5, 'perf/tool_wait_time': 2.5 });
    expect(rolloutSplit(4, NaN)).toEqual({ 'perf/generation_time': 4, 'perf/tool_wait_time': 0 });
    expect(gpuPhaseMetrics({ forward: 1500, backward: 250 })).toEqual({ 'perf/forward_time': 1.5, 'perf/loss_time': 0, 'perf/backward_time': 0.25, 'perf/optimizer_time': 0 });
  });

  it('one update with KL, entropy bonus and clipping: parameters, sums and grad norm agree', async () => {
    const lcfg = resolveGrpoLoss({ aggregation: 'seq-mean-token-mean', beta: 0.04, klEstimator: 'k3', entropyCoef: 0.01, maxCompletionLength: 16 });
    const gpuT = await newTrainer(), cpuT = await newTrainer();
    // Old / ref log-probs near the model's own, so ratios land on both sides of the clip range.
    const base = await gpuT.logprobs(SEQS);
    const rows: SeqRows[] = SEQS.map((s, b) => {
      const n = s.length - 1, u = randomArray(3 * n, 70 + b);
      const lp = base.logprobs[b];
      const mask = Float32Array.from({ length: n }, (_, t) => (t < 1 || u[t] > 0.85 ? 0 : 1));
      return { mask, old: lp.map((v, t) => (mask[t] ? v + 0.4 * u[n + t] : 0)), ref: lp.map((v, t) => v - 0.3 * u[2 * n + t]), advantage: (b % 3) - 1 + 0.3 * b };
    });
    const offsets = [0];
    rows.forEach((r, s) => offsets.push(offsets[s] + r.mask.length));
    const cat = (xs: ArrayLike<number>[]) => xs.flatMap((x) => Array.from(x));
    const norm = batchNormaliser(cat(rows.map((r) => r.mask)), offsets);

    // GPU path: no readback until the one per step.
    const read0 = rt.readbackCount;
    rt.phases = new PhaseTimer(rt.device, 64);
    const sums = new GrpoStepSums(rt);
    for (let i = 0; i < SEQS.length; i += MB) {
      await gpuT.accumulate({ seqs: SEQS.slice(i, i + MB), dlogp: grpoGpuUpstream(rt, loss, rows.slice(i, i + MB), lcfg, norm, sums) });
    }
    const accReadbacks = rt.readbackCount - read0;
    const gpuGrads = await gradsOf(gpuT);
    const read1 = rt.readbackCount;
    rt.phase('optimizer');
    const u = gpuT.optimizer.record();
    rt.phase(null);
    const read = await rt.readParts([{ buf: sums.buf, bytes: GRPO_METRICS_BYTES }, { buf: u.gradNorm, bytes: 4 }], true);
    const readbacks = rt.readbackCount - read1;
    const gpuSums = sums.parse(read.parts[0]);
    const gpuNorm = new Float32Array(read.parts[1])[0];
    const phases = gpuPhaseMetrics(read.phaseMs!);
    rt.phases.destroy();
    rt.phases = null;
    sums.release();

    // CPU twin path: log-probs to the host, grpo_loss there, gradients uploaded.
    let cpuSums: GrpoSums = zeroSums();
    for (let i = 0; i < SEQS.length; i += MB) {
      await cpuT.accumulate({
        seqs: SEQS.slice(i, i + MB),
        dlogp: (lp, ent, first) => {
          const rs = rows.slice(i + first, i + first + lp.length);
          const off = [0];
          rs.forEach((r, s) => off.push(off[s] + r.mask.length));
          const r = grpo_loss({ logp: cat(lp), oldLogp: cat(rs.map((x) => x.old!)), refLogp: cat(rs.map((x) => x.ref!)), entropy: cat(ent), mask: cat(rs.map((x) => x.mask)), offsets: off, advantages: rs.map((x) => x.advantage) }, lcfg, norm);
          cpuSums = addSums(cpuSums, r.sums);
          const split = (a: ArrayLike<number>) => rs.map((_, s) => Float32Array.from(Array.from(a).slice(off[s], off[s + 1])));
          return { dlogp: split(r.dlogp), dentropy: split(r.dentropy) };
        },
      });
    }
    const cpuGrads = await gradsOf(cpuT);
    const cpuNorm = (await cpuT.optimizer.update()).gradNorm;
    let gd = 0, gmax = 0;
    for (let i = 0; i < cpuGrads.length; i++) { gd = Math.max(gd, Math.abs(gpuGrads[i] - cpuGrads[i])); gmax = Math.max(gmax, Math.abs(cpuGrads[i])); }

    const a = await gpuT.exportFull(), b = await cpuT.exportFull();
    let maxdiff = 0, maxMoved = 0;
    for (const [name, t] of a) {
      const o = b.get(name)!.data, w0 = weights.get(name)?.data;
      for (let i = 0; i < t.data.length; i++) {
        maxdiff = Math.max(maxdiff, Math.abs(t.data[i] - o[i]));
        if (w0) maxMoved = Math.max(maxMoved, Math.abs(t.data[i] - w0[i]));
      }
    }
    const sd = Math.max(...(Object.keys(cpuSums) as (keyof GrpoSums)[]).map((k) => Math.abs(gpuSums[k] - cpuSums[k]) / Math.max(1, Math.abs(cpuSums[k]))));
    console.log(`GRPO gradients GPU path vs CPU twin: maxdiff ${gd.toExponential(2)} at max |grad| ${gmax.toExponential(2)}`);
    console.log(`GRPO update GPU path vs CPU twin: parameter maxdiff ${maxdiff.toExponential(2)} (largest move ${maxMoved.toExponential(2)}), ` +
      `sums rel maxdiff ${sd.toExponential(2)} (loss ${gpuSums.loss.toFixed(6)} vs ${cpuSums.loss.toFixed(6)}, clipped ${cpuSums.clipRegion} of ${cpuSums.tokens}), ` +
      `grad norm ${gpuNorm.toFixed(6)} vs ${cpuNorm.toFixed(6)}; readbacks ${accReadbacks} during the micro-batches, ${readbacks} for the step's figures; GPU phases ms ${JSON.stringify(Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, +(v * 1000).toFixed(2)])))}`);
    expect(accReadbacks).toBe(0);
    expect(readbacks).toBe(1);
    expect(gd).toBeLessThan(1e-5 * Math.max(1, gmax));
    expect(maxMoved).toBeGreaterThan(1e-3);         // the update moved the weights (lr 1e-2)
    expect(maxdiff).toBeLessThan(2e-5);
    expect(sd).toBeLessThan(1e-4);
    expect(Math.abs(gpuNorm - cpuNorm)).toBeLessThan(1e-4 * Math.max(1, cpuNorm));
    expect(cpuSums.clipRegion).toBeGreaterThan(0);  // the data exercises clipping
    for (const k of ['perf/forward_time', 'perf/loss_time', 'perf/backward_time', 'perf/optimizer_time']) expect(phases[k]).toBeGreaterThan(0);
    for (const t of [gpuT, cpuT]) { await t.dispose(); t.model.dispose(); }
  }, 120_000);

  it('old / reference log-probs left on the GPU: the log-prob pass fills the packed rows across passes, and the loss reads them as if uploaded', async () => {
    const lcfg = resolveGrpoLoss({ aggregation: 'token-mean', beta: 0.04, klEstimator: 'k3', entropyCoef: 0, maxCompletionLength: 16 });
    const t = await newTrainer();   // maxRows 16: the 33 rows of SEQS take three passes
    const host = await t.logprobs(SEQS);
    const buf = await t.logprobsOnGpu(SEQS);
    const packed = await rt.readF32(buf, SEQS.reduce((n, q) => n + q.length, 0));
    const starts = rowStarts(SEQS);
    let d = 0;
    host.logprobs.forEach((lp, b) => lp.forEach((v, r) => { d = Math.max(d, Math.abs(packed[starts[b] + r] - v)); }));
    // The reference: the policy's own log-probs shifted, so the KL term is not 0.
    const ref = packed.map((v) => v - 0.25);
    const refBuf = rt.upload(ref, 'test ref');
    const rows: SeqRows[] = SEQS.map((q, b) => ({
      mask: Float32Array.from({ length: q.length - 1 }, (_, r) => (r > 0 ? 1 : 0)),
      old: host.logprobs[b].map((v) => v + 0.1), ref: Float32Array.from({ length: q.length - 1 }, (_, r) => ref[starts[b] + r]), advantage: b - 2,
    }));
    const oldBuf = rt.upload(packed.map((v) => v + 0.1), 'test old');
    const norm = batchNormaliser(rows.flatMap((r) => Array.from(r.mask)), rowStarts(rows.map((r) => Array.from(r.mask))).concat(rows.reduce((n, r) => n + r.mask.length, 0)));
    const run = async (resident: boolean) => {
      const sums = new GrpoStepSums(rt);
      for (let i = 0; i < SEQS.length; i += MB) {
        const mbRows = rows.slice(i, i + MB).map((r) => (resident ? { ...r, old: null, ref: null } : r));
        await t.accumulate({ seqs: SEQS.slice(i, i + MB), dlogp: grpoGpuUpstream(rt, loss, mbRows, lcfg, norm, sums, resident ? { old: oldBuf, ref: refBuf, rowStart: starts, firstSeq: i } : null) });
      }
      const got = sums.parse((await rt.readParts([{ buf: sums.buf, bytes: GRPO_METRICS_BYTES }])).parts[0]);
      sums.release();
      const grads = await gradsOf(t);
      t.optimizer.zeroGrads();
      return { got, grads };
    };
    const up = await run(false), res = await run(true);
    let gd = 0;
    up.grads.forEach((v, i) => { gd = Math.max(gd, Math.abs(v - res.grads[i])); });
    console.log(`log-probs on the GPU vs read back: maxdiff ${d.toExponential(2)}; resident vs uploaded old/ref: grad maxdiff ${gd.toExponential(2)}, loss ${res.got.loss} vs ${up.got.loss}, kl ${res.got.kl} vs ${up.got.kl}`);
    expect(d).toBe(0);
    expect(up.got.kl).toBeGreaterThan(0);
    expect(res.got).toEqual(up.got);
    expect(gd).toBe(0);
    rt.release(buf, refBuf, oldBuf);
    await t.dispose();
    t.model.dispose();
  }, 120_000);

  it('loss rows only (the masks as lossRows): old log-probs on the GPU and one update equal those of every row', async () => {
    const lcfg = resolveGrpoLoss({ aggregation: 'token-mean', beta: 0, klEstimator: 'k3', entropyCoef: 0.01, maxCompletionLength: 16 });
    const t = await newTrainer();   // maxRows 16: three passes
    const masks = SEQS.map((q, b) => Float32Array.from({ length: q.length - 1 }, (_, r) => (r < 2 || (r + b) % 4 === 0 ? 0 : 1)));
    const starts = rowStarts(SEQS), rowsN = SEQS.reduce((n, q) => n + q.length, 0);
    const allBuf = await t.logprobsOnGpu(SEQS), selBuf = await t.logprobsOnGpu(SEQS, true, 1, 'loss-row log-probs', masks);
    const all = await rt.readF32(allBuf, rowsN), sel = await rt.readF32(selBuf, rowsN);
    let dOn = 0, maxOff = 0;
    masks.forEach((m, b) => m.forEach((v, r) => {
      const i = starts[b] + r;
      if (v) dOn = Math.max(dOn, Math.abs(sel[i] - all[i]));
      else maxOff = Math.max(maxOff, Math.abs(sel[i]));
    }));
    const rows: SeqRows[] = masks.map((mask, b) => ({ mask, old: null, ref: null, advantage: b - 2 }));
    const norm = batchNormaliser(masks.flatMap((m) => Array.from(m)), rowStarts(masks.map((m) => Array.from(m))).concat(masks.reduce((n, m) => n + m.length, 0)));
    const run = async (lossRows: boolean) => {
      const sums = new GrpoStepSums(rt);
      const old = lossRows ? selBuf : allBuf;
      for (let i = 0; i < SEQS.length; i += MB) {
        await t.accumulate({ seqs: SEQS.slice(i, i + MB), dlogp: grpoGpuUpstream(rt, loss, rows.slice(i, i + MB), lcfg, norm, sums, { old, ref: null, rowStart: starts, firstSeq: i }),
          lossRows: lossRows ? masks.slice(i, i + MB) : null });
      }
      const got = sums.parse((await rt.readParts([{ buf: sums.buf, bytes: GRPO_METRICS_BYTES }])).parts[0]);
      sums.release();
      const grads = await gradsOf(t);
      t.optimizer.zeroGrads();
      return { got, grads };
    };
    const every = await run(false), only = await run(true);
    let gd = 0, gmax = 0;
    every.grads.forEach((v, i) => { gd = Math.max(gd, Math.abs(v - only.grads[i])); gmax = Math.max(gmax, Math.abs(v)); });
    const sd = Math.max(...(Object.keys(every.got) as (keyof GrpoSums)[]).map((k) => Math.abs(only.got[k] - every.got[k]) / Math.max(1, Math.abs(every.got[k]))));
    console.log(`loss rows only vs every row: old log-probs on the mask maxdiff ${dOn.toExponential(2)} (off the mask max |v| ${maxOff}); ` +
      `grads maxdiff ${gd.toExponential(2)} at max |grad| ${gmax.toExponential(2)}; sums rel maxdiff ${sd.toExponential(2)} (entropy ${only.got.entropy} vs ${every.got.entropy})`);
    expect(dOn).toBeLessThan(1e-6);
    expect(maxOff).toBe(0);
    expect(gmax).toBeGreaterThan(1e-3);
    expect(gd).toBeLessThan(1e-6 * gmax);
    expect(sd).toBeLessThan(1e-6);
    rt.release(allBuf, selBuf);
    await t.dispose();
    t.model.dispose();
  }, 120_000);
});
