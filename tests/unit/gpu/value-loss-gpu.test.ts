// PPO's clipped value-loss kernel (shaders/value_loss.wgsl via src/gpu/kernels/value-loss.ts)
// against the PyTorch goldens (ppo_goldens.json: dvalues, value loss, vf_clipfrac per GAE case)
// and against its CPU twin value_loss_forward / value_loss_backward on a larger random batch with
// values straddling the clip range, vf_coef != 1, micro-batch accumulation. Prints maxdiff per case.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { ShapeError } from '../../../src/gpu/errors';
import { VALUE_METRICS_BYTES, ValueLoss, type ValueLossConfig } from '../../../src/gpu/kernels/value-loss';
import { gae_forward, value_loss_backward, value_loss_forward } from '../../../src/reference/ppo';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { GOLDENS_DIR } from '../../fixtures/goldens';

interface Goldens {
  config: { value_clip: number };
  batch: { mask: number[]; offsets: number[]; token_rewards: number[]; values: number[]; old_values: number[] };
  cases: { gamma: number; lambda: number; value_loss: number; dvalues: number[]; vf_clipfrac: number }[];
}
const g = JSON.parse(readFileSync(`${GOLDENS_DIR}/ppo_goldens.json`, 'utf8')) as Goldens;

let rt: GpuRuntime;
let kernel: ValueLoss;
const live: GPUBuffer[] = [];

beforeAll(async () => {
  rt = await nodeRuntime();
  kernel = await ValueLoss.create(rt);
});
afterAll(() => rt.release(...live.splice(0)));

function up(data: ArrayLike<number>, label: string): GPUBuffer {
  const b = rt.upload(Float32Array.from(data), label);
  live.push(b);
  return b;
}

interface Rows { values: ArrayLike<number>; old: ArrayLike<number>; returns: ArrayLike<number>; mask: ArrayLike<number> }

async function gpu(r: Rows, cfg: ValueLossConfig, metrics?: GPUBuffer, accumulate = false) {
  const N = r.values.length;
  const dv = rt.storage(Math.max(4, N * 4), 'dv');
  const m = metrics ?? rt.storage(VALUE_METRICS_BYTES, 'value metrics');
  live.push(dv);
  if (!metrics) live.push(m);
  kernel.run({ values: up(r.values, 'values'), oldValues: up(r.old, 'old'), returns: up(r.returns, 'returns'), mask: up(r.mask, 'mask') }, dv, m, N, cfg, { accumulate });
  const sums = await rt.readF32(m, 4);
  return { dv: await rt.readF32(dv, N), loss: sums[0], clipped: sums[1], rows: sums[2] };
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

describe('value loss kernel vs goldens and the CPU twin', () => {
  for (const c of g.cases) {
    it(`PyTorch goldens (gamma ${c.gamma}, lambda ${c.lambda})`, async () => {
      const b = g.batch;
      const gae = gae_forward(b.token_rewards, b.values, b.mask, b.offsets, c.gamma, c.lambda);
      const tokens = b.mask.reduce((a, x) => a + x, 0);
      const r = await gpu({ values: b.values, old: b.old_values, returns: gae.returns, mask: b.mask }, { vfCoef: 1, clip: g.config.value_clip, tokens });
      const dGold = maxAbsDiff(r.dv, c.dvalues);
      const twin = value_loss_backward(b.values, b.old_values, gae.returns, b.mask, g.config.value_clip, tokens);
      const dTwin = maxAbsDiff(r.dv, twin);
      const lossDiff = Math.abs(r.loss - c.value_loss), clipDiff = Math.abs(r.clipped / r.rows - c.vf_clipfrac);
      console.log(`value loss GPU gamma ${c.gamma} lambda ${c.lambda}: dv maxdiff vs goldens=${dGold.toExponential(2)} vs twin=${dTwin.toExponential(2)}; loss diff=${lossDiff.toExponential(2)} clipfrac diff=${clipDiff.toExponential(2)}`);
      expect(dGold).toBeLessThan(1e-6);
      expect(dTwin).toBeLessThan(1e-6);
      expect(lossDiff).toBeLessThan(1e-5);
      expect(clipDiff).toBeLessThan(1e-6);
      expect(r.rows).toBe(tokens);
    });
  }

  it('random batch, vf_coef 0.5, two micro-batches accumulate into one sums buffer', async () => {
    const rand = rng(7), N = 3000, clip = 0.2, vfCoef = 0.5;
    const f = Math.fround;   // f32-exact inputs: both sides read the same numbers
    const old = Array.from({ length: N }, () => f(rand() * 2 - 1));
    const values = old.map((o) => f(o + (rand() - 0.5)));   // |v - old| up to 0.5: both sides of the clip
    const returns = Array.from({ length: N }, () => f(rand() * 2 - 1));
    const mask: number[] = Array.from({ length: N }, () => (rand() < 0.8 ? 1 : 0));
    const tokens = mask.reduce((a, x) => a + x, 0);
    const cfg = { vfCoef, clip, tokens };
    const want = value_loss_backward(values, old, returns, mask, clip, tokens).map((d) => vfCoef * d);
    const fw = value_loss_forward(values, old, returns, mask, clip, tokens);
    const metrics = rt.storage(VALUE_METRICS_BYTES, 'value metrics (step)');
    live.push(metrics);
    const h = 1700;
    const part = (a: number[], lo: number, hi: number) => a.slice(lo, hi);
    const a = await gpu({ values: part(values, 0, h), old: part(old, 0, h), returns: part(returns, 0, h), mask: part(mask, 0, h) }, cfg, metrics, false);
    const b = await gpu({ values: part(values, h, N), old: part(old, h, N), returns: part(returns, h, N), mask: part(mask, h, N) }, cfg, metrics, true);
    const dv = new Float32Array(N);
    dv.set(a.dv, 0);
    dv.set(b.dv, h);
    const d = maxAbsDiff(dv, want);
    const clippedWant = fw.clipFrac * tokens;
    console.log(`value loss GPU random N=${N}: dv maxdiff vs twin=${d.toExponential(2)}; loss ${b.loss.toFixed(6)} vs ${fw.loss.toFixed(6)}; clipped ${b.clipped} vs ${clippedWant.toFixed(0)}; rows ${b.rows}`);
    expect(d).toBeLessThan(1e-7);
    expect(Math.abs(b.loss - fw.loss)).toBeLessThan(1e-5 * Math.max(1, fw.loss));
    expect(b.clipped).toBeCloseTo(clippedWant, 3);
    expect(clippedWant).toBeGreaterThan(0);
    expect(b.rows).toBe(tokens);
    expect(dv.some((x, n) => mask[n] === 0 && x !== 0)).toBe(false);
  });

  it('names the buffer that is too small', () => {
    const small = up([0], 'tiny');
    const big = up(new Float32Array(8), 'big');
    expect(() => kernel.run({ values: big, oldValues: small, returns: big, mask: big }, up(new Float32Array(8), 'dv'), up(new Float32Array(4), 'm'), 8, { vfCoef: 1, clip: 0.2, tokens: 8 }))
      .toThrow(ShapeError);
  });
});
