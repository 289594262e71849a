// The GRPO kernel (shaders/grpo.wgsl via src/gpu/kernels/grpo.ts) against the PyTorch goldens and
// against the CPU reference grpo_loss on a larger random batch, for every aggregation x KL
// estimator (beta 0 / > 0) x entropy coefficient, f32 and u32 masks, micro-batch accumulation,
// mu = 1 and garbage in padding rows. Prints maxdiff per case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { ShapeError } from '../../../src/gpu/errors';
import { GRPO_METRICS_BYTES, GrpoLoss, grpoTokenCoefficients } from '../../../src/gpu/kernels/grpo';
import {
  LOSS_AGGREGATIONS, batchNormaliser, grpo_loss, grpoMetrics, maskTruncated, resolveGrpoLoss,
  type GrpoLossConfig, type GrpoSums, type GrpoTokens, type LossNormaliser,
} from '../../../src/reference/grpo_loss';
import { computeAdvantages } from '../../../src/rl/advantages';
import type { KlEstimator } from '../../../src/reference/kl';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { caseConfig, flat, loadRlGoldens, offsetsOf, relDiff } from '../helpers/grpo-fixture';

let rt: GpuRuntime;
let grpo: GrpoLoss;
const live: GPUBuffer[] = [];

beforeAll(async () => {
  rt = await nodeRuntime();
  grpo = await GrpoLoss.create(rt);
});
afterAll(() => rt.release(...live.splice(0)));

function up(data: ArrayLike<number>, label: string, u32 = false): GPUBuffer {
  const b = rt.upload(u32 ? Uint32Array.from(data) : Float32Array.from(data), label);
  live.push(b);
  return b;
}

function out(N: number): { dlogp: GPUBuffer; dentropy: GPUBuffer; metrics: GPUBuffer } {
  const o = { dlogp: rt.storage(Math.max(4, N * 4), 'dlogp'), dentropy: rt.storage(Math.max(4, N * 4), 'dentropy'), metrics: rt.storage(GRPO_METRICS_BYTES, 'grpo metrics') };
  live.push(o.dlogp, o.dentropy, o.metrics);
  return o;
}

/** Runs the kernel on `tok` (uploaded as f32) and reads dlogp, dentropy and the sums back. */
async function gpuLoss(tok: GrpoTokens, cfg: GrpoLossConfig, norm: LossNormaliser, maskType: 'f32' | 'u32' = 'f32') {
  const N = tok.logp.length;
  const coef = grpoTokenCoefficients(tok.mask, tok.offsets, tok.advantages, cfg, norm);
  const o = out(N);
  grpo.run({
    logp: up(tok.logp, 'logp'), oldLogp: tok.oldLogp ? up(tok.oldLogp, 'old_logp') : null,
    refLogp: tok.refLogp && cfg.beta > 0 ? up(tok.refLogp, 'ref_logp') : null,
    entropy: tok.entropy ? up(tok.entropy, 'entropy') : null,
    mask: up(tok.mask, 'mask', maskType === 'u32'), coef: up(coef, 'coef'),
  }, o, N, cfg, { maskType });
  const sums = await grpo.readSums(o.metrics);
  return { dlogp: await rt.readF32(o.dlogp, N), dentropy: await rt.readF32(o.dentropy, N), sums };
}

function sumsDiff(a: GrpoSums, b: GrpoSums): number {
  let d = 0;
  for (const k of Object.keys(a) as (keyof GrpoSums)[]) d = Math.max(d, Math.abs(a[k] - b[k]) / Math.max(1, Math.abs(b[k])));
  return d;
}

/** A random packed batch: S sequences with prompt rows, tool spans, one truncated, ratios across both bounds. */
function randomBatch(S: number, seed: number): GrpoTokens {
  const lens: number[] = [];
  const u = randomArray(S * 4, seed);
  for (let s = 0; s < S; s++) lens.push(4 + Math.floor((u[s] + 1) * 60));
  const offsets = new Uint32Array(S + 1);
  lens.forEach((l, s) => { offsets[s + 1] = offsets[s] + l; });
  const N = offsets[S];
  const r = randomArray(N * 4, seed + 1);
  const logp = new Float32Array(N), old = new Float32Array(N), ref = new Float32Array(N), ent = new Float32Array(N), mask = new Float32Array(N);
  for (let n = 0; n < N; n++) {
    logp[n] = -1.6 + 1.5 * r[4 * n];                  // [-3.1, -0.1]
    old[n] = logp[n] - Math.log(1.05 + 0.5 * r[4 * n + 1]); // ratio in [0.55, 1.55]
    ref[n] = logp[n] + 0.3 * r[4 * n + 2];
    ent[n] = 1.3 + 1.2 * r[4 * n + 3];
  }
  for (let s = 0; s < S; s++) {
    const p = 2 + (s % 3);   // prompt rows
    for (let n = offsets[s] + p; n < offsets[s + 1]; n++) mask[n] = 1;
    if (s % 5 === 2) mask.fill(0, offsets[s] + p + 1, Math.min(offsets[s + 1], offsets[s] + p + 4));   // tool output
  }
  const rewards = Array.from(u.subarray(S, 2 * S), (v, i) => (i < 4 ? 1 : Math.round(v * 2) / 2));   // group 0 all equal
  const advantages = computeAdvantages(rewards, { groupSize: 4, scaling: 'group' }).advantages;
  const truncated = lens.map((_, s) => s === 5);
  return { logp, oldLogp: old, refLogp: ref, entropy: ent, mask: maskTruncated(mask, offsets, truncated), offsets, advantages };
}

describe('grpo kernel vs PyTorch goldens', () => {
  const g = loadRlGoldens();
  const b = g.batch;
  const offsets = offsetsOf(b.logp);
  const mask = maskTruncated(flat(b.mask), offsets, b.truncated);
  const adv = computeAdvantages(b.rewards, { groupSize: g.config.group_size, scaling: 'group' }).advantages;
  for (const c of g.cases) {
    const name = `${c.aggregation} kl=${c.kl ?? 'off'} entropy_coef=${c.entropy_coef}${c.old_is_logp ? ' mu=1' : ''}`;
    it(name, async () => {
      const cfg = caseConfig(g, c);
      const tok: GrpoTokens = {
        logp: flat(b.logp), oldLogp: c.old_is_logp ? undefined : flat(b.old_logp), refLogp: flat(b.ref_logp),
        entropy: flat(b.entropy), mask, offsets, advantages: adv,
      };
      const r = await gpuLoss(tok, cfg, batchNormaliser(mask, offsets));
      const m = grpoMetrics(r.sums, { beta: cfg.beta, hasEntropy: true });
      const dl = relDiff(r.dlogp, flat(c.dlogp));
      const de = maxAbsDiff(r.dentropy, flat(c.dentropy));
      let dm = 0;
      for (const [k, v] of Object.entries(c.metrics)) dm = Math.max(dm, Math.abs((m[k] ?? NaN) - v));
      console.log(`gpu ${name}: loss ${r.sums.loss.toFixed(6)} diff=${Math.abs(r.sums.loss - c.loss).toExponential(2)} dlogp rel maxdiff=${dl.toExponential(2)} dentropy maxdiff=${de.toExponential(2)} metrics maxdiff=${dm.toExponential(2)}`);
      expect(dl).toBeLessThan(2e-6);
      expect(de).toBeLessThan(1e-8);
      expect(Math.abs(r.sums.loss - c.loss)).toBeLessThan(2e-6);
      expect(dm).toBeLessThan(2e-6);
    });
  }
});

describe('grpo kernel vs CPU reference, random batch', () => {
  const tok = randomBatch(40, 77);
  const N = tok.logp.length;
  const norm = batchNormaliser(tok.mask, tok.offsets);
  let i = 0;
  for (const aggregation of LOSS_AGGREGATIONS) {
    for (const kl of [null, 'k1', 'k2', 'k3'] as (KlEstimator | null)[]) {
      for (const entropyCoef of [0, 0.02]) {
        const maskType = (i + Math.floor(i / 2)) % 2 ? 'u32' : 'f32';
        i++;
        const name = `${aggregation} kl=${kl ?? 'off'} entropy_coef=${entropyCoef} mask ${maskType}`;
        it(name, async () => {
          const cfg = resolveGrpoLoss({ aggregation, beta: kl ? 0.05 : 0, klEstimator: kl ?? 'k3', entropyCoef, maxCompletionLength: 64 });
          const want = grpo_loss(tok, cfg, norm);
          const r = await gpuLoss(tok, cfg, norm, maskType);
          const dl = relDiff(r.dlogp, want.dlogp), de = relDiff(r.dentropy, want.dentropy), ds = sumsDiff(r.sums, want.sums);
          console.log(`gpu N=${N} ${name}: dlogp rel maxdiff=${dl.toExponential(2)} dentropy rel maxdiff=${de.toExponential(2)} sums rel maxdiff=${ds.toExponential(2)} clipped low/high ${want.sums.clipLow}/${want.sums.clipHigh} of ${want.sums.tokens}`);
          expect(want.sums.clipLow).toBeGreaterThan(0);
          expect(want.sums.clipHigh).toBeGreaterThan(0);
          expect(dl).toBeLessThan(5e-6);
          expect(de).toBeLessThan(1e-6);
          expect(ds).toBeLessThan(5e-5);
        });
      }
    }
  }

  it('micro-batches: the metrics accumulate (+=) and the gradients equal one batch\'s', async () => {
    const cfg = resolveGrpoLoss({ aggregation: 'seq-mean-token-mean', beta: 0.05, entropyCoef: 0.02 });
    const whole = grpo_loss(tok, cfg, norm);
    const o = out(N);
    const S = tok.offsets.length - 1, cut = 17;
    const dlogp = new Float32Array(N);
    for (const [k, [s0, s1]] of [[0, cut], [cut, S]].entries()) {
      const r0 = tok.offsets[s0], r1 = tok.offsets[s1];
      const sl = (a: ArrayLike<number> | undefined) => Float32Array.from(a as ArrayLike<number>).subarray(r0, r1);
      const part: GrpoTokens = {
        logp: sl(tok.logp), oldLogp: sl(tok.oldLogp), refLogp: sl(tok.refLogp), entropy: sl(tok.entropy), mask: sl(tok.mask),
        offsets: Array.from(tok.offsets).slice(s0, s1 + 1).map((v) => v - r0), advantages: Array.from(tok.advantages).slice(s0, s1),
      };
      const coef = grpoTokenCoefficients(part.mask, part.offsets, part.advantages, cfg, norm);
      const dl = rt.storage((r1 - r0) * 4, 'micro dlogp');
      live.push(dl);
      grpo.run({ logp: up(part.logp, 'logp'), oldLogp: up(part.oldLogp!, 'old'), refLogp: up(part.refLogp!, 'ref'), entropy: up(part.entropy!, 'ent'),
        mask: up(part.mask, 'mask'), coef: up(coef, 'coef') }, { ...o, dlogp: dl }, r1 - r0, cfg, { accumulate: k > 0 });
      dlogp.set(await rt.readF32(dl, r1 - r0), r0);
    }
    const sums = await grpo.readSums(o.metrics);
    const ds = sumsDiff(sums, whole.sums), dl = relDiff(dlogp, whole.dlogp);
    console.log(`gpu micro-batches [0,${cut})+[${cut},${S}): sums vs one batch rel maxdiff=${ds.toExponential(2)}, dlogp rel maxdiff=${dl.toExponential(2)}`);
    expect(ds).toBeLessThan(5e-5);
    expect(dl).toBeLessThan(5e-6);
  });

  it('mu = 1 (old = logp) and garbage in masked rows', async () => {
    const cfg = resolveGrpoLoss({ beta: 0.05, klEstimator: 'k2', entropyCoef: 0.01 });
    const logp = Float32Array.from(tok.logp), ent = Float32Array.from(tok.entropy!);
    for (let n = 0; n < N; n++) if (tok.mask[n] === 0) { logp[n] = NaN; ent[n] = Infinity; }
    const t: GrpoTokens = { ...tok, logp, entropy: ent, oldLogp: undefined };
    const want = grpo_loss(t, cfg, norm);
    const r = await gpuLoss(t, cfg, norm);
    const dl = relDiff(r.dlogp, want.dlogp), ds = sumsDiff(r.sums, want.sums);
    console.log(`gpu mu=1 with NaN/Inf padding: dlogp rel maxdiff=${dl.toExponential(2)} sums rel maxdiff=${ds.toExponential(2)} clip region ${r.sums.clipRegion}`);
    expect(dl).toBeLessThan(5e-6);
    expect(ds).toBeLessThan(5e-5);
    expect(r.sums.clipRegion).toBe(0);
    expect(r.dlogp.every(Number.isFinite) && r.dentropy.every(Number.isFinite)).toBe(true);
  });

  it('rejects wrong shapes and missing inputs', () => {
    const cfg = resolveGrpoLoss({ beta: 0.1 });
    const small = up(new Float32Array(4), 'small');
    const o = out(8);
    const inp = { logp: small, mask: small, coef: small };
    expect(() => grpo.run({ ...inp, refLogp: small }, o, 8, cfg)).toThrow(ShapeError);
    expect(() => grpo.run(inp, o, 1, cfg)).toThrow(/refLogp/);
    expect(() => grpoTokenCoefficients([1, 1], [0, 3], [1], cfg, { tokens: 2, sequences: 1 })).toThrow(/offsets/);
  });
});
