// LinearBackward (shaders/linear_bwd.wgsl) against linear_backward + lora_backward: dX (= and +=),
// LoRA dA/dB per segment (1, 2 and 3 segments), full-mode dW/dbias, f32 and NF4 weights, both
// variants, ranks on and off multiples of 4 (view and scalar LoRA kernels), M not a multiple of
// the tile, gradients pre-filled to check the += contract, X A^T taken from the forward Linear;
// at few rows and wide segments LoRA's dY B split along N into partial sums (the split count checked).
// Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Linear, type LinearSpec, type LinearWeight } from '../../../src/gpu/kernels/linear';
import { BACKWARD_VARIANTS, LinearBackward, dwPipelineKey, loraBackwardLayout, type BackwardVariant } from '../../../src/gpu/kernels/linear-backward';
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import { linear_backward, lora_backward } from '../../../src/reference/linear';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';
import type { GpuRuntime } from '../../../src/gpu/runtime';

const VARIANTS: readonly BackwardVariant[] = BACKWARD_VARIANTS;

async function weightOf(rt: GpuRuntime, nf4: boolean, W: Float32Array, rows: number, K: number): Promise<{ w: LinearWeight; eff: Float32Array; bufs: GPUBuffer[] }> {
  const wb = rt.upload(W, 'W');
  if (!nf4) return { w: { format: 'f32', W: wb }, eff: W, bufs: [wb] };
  const { weight } = await (await Nf4Quantizer.create(rt)).quantize(wb, rows, K, 'W');
  rt.release(wb);
  return { w: { format: 'nf4', q: weight }, eff: nf4_roundtrip(W), bufs: [weight.codes, weight.absmax] };
}

/** Columns [c0, c1) of a row-major [M, N] matrix. */
function cols(a: Float32Array, M: number, N: number, c0: number, c1: number): Float32Array {
  const out = new Float32Array(M * (c1 - c0));
  for (let m = 0; m < M; m++) out.set(a.subarray(m * N + c0, m * N + c1), m * (c1 - c0));
  return out;
}

interface Case {
  name: string; nf4: boolean; M: number; K: number; NW: number; R: number; starts: number[];
  bias: boolean; full: boolean; swiglu?: boolean;
  /** The split of dY B the rb and rb16 variants must use (default 1: none). */
  dybSplit?: number;
  /**
   * Then the same LinearBackward again on the first `rerunM` rows: its dY B partials' scratch then
   * holds the first run's values where the new layout's partials write nothing (checked against
   * the reference too).
   */
  rerunM?: number;
}

/** Reference: dX, and the pre-filled gradients after +=. */
function reference(c: Case, d: Record<string, Float32Array>, eff: Float32Array, scale: number) {
  const { M, K, NW, R } = c;
  const dW = c.full ? d.dW0.slice() : null, dbias = c.full && c.bias ? d.db0.slice() : null;
  const dX = linear_backward(d.dY, d.X, eff, c.bias ? d.b : null, M, K, NW, dW, dbias);
  const dA = d.dA0.slice(), dB = d.dB0.slice();
  const bounds = [0, ...c.starts, NW];
  for (let s = 0; s + 1 < bounds.length; s++) {
    const [r0, r1] = [bounds[s], bounds[s + 1]];
    const dAs = dA.subarray(s * R * K, (s + 1) * R * K), dBs = dB.subarray(r0 * R, r1 * R);
    const dXs = lora_backward(cols(d.dY, M, NW, r0, r1), d.X, d.A.slice(s * R * K, (s + 1) * R * K), d.B.slice(r0 * R, r1 * R), scale, M, K, r1 - r0, R, dAs, dBs);
    for (let i = 0; i < dX.length; i++) dX[i] += dXs[i];
  }
  return { dX: dX.map((v, i) => v + d.dX0[i]), dA, dB, dW, dbias };
}

async function runCase(c: Case): Promise<void> {
  const rt = await nodeRuntime();
  const { M, K, NW, R } = c;
  const S = c.starts.length + 1, scale = 1.5;
  const d: Record<string, Float32Array> = {
    X: randomArray(M * K, 1), W: randomArray(NW * K, 2), b: randomArray(NW, 3), A: randomArray(S * R * K, 4),
    B: randomArray(NW * R, 5), dY: randomArray(M * NW, 6), dX0: randomArray(M * K, 7), dA0: randomArray(S * R * K, 8),
    dB0: randomArray(NW * R, 9), dW0: randomArray(NW * K, 10), db0: randomArray(NW, 11),
  };
  const { w, eff, bufs } = await weightOf(rt, c.nf4, d.W, NW, K);
  const up = (k: string) => rt.upload(d[k], k);
  const [X, b, A, B, dY, dX, dA, dB, dW, db] = ['X', 'b', 'A', 'B', 'dY', 'dX0', 'dA0', 'dB0', 'dW0', 'db0'].map(up);
  const spec: LinearSpec = { label: c.name, K, N: c.swiglu ? NW / 2 : NW, weight: w, bias: c.bias ? b : null, swiglu: c.swiglu,
    lora: { A, B, R, scale, segmentStarts: c.starts.length ? c.starts : undefined } };
  const ref = reference(c, d, eff, scale);
  // X A^T from the forward Linear, handed to the backward (rb) or recomputed (tiled).
  const fwd = await Linear.create(rt, spec);
  const xa = rt.storage(M * S * R * 4, 'xa'), Y = rt.storage(M * spec.N * 4, 'Y');
  const dWOf: Record<string, Float32Array> = {};
  for (const variant of VARIANTS) {
    const bwd = await LinearBackward.create(rt, spec, variant);
    for (const [buf, k] of [[dX, 'dX0'], [dA, 'dA0'], [dB, 'dB0'], [dW, 'dW0'], [db, 'db0']] as const) rt.write(buf, d[k]);
    if (variant !== 'tiled') fwd.run(X, Y, M, { xa });
    bwd.run(dY, X, M, { dX, accumulate: true, lora: { dA, dB }, full: c.full ? { dW, dbias: c.bias ? db : null } : null, xa: variant !== 'tiled' ? xa : undefined });
    expect(bwd.lastDybSplit, `${variant}: dY B split`).toBe(variant === 'tiled' ? 1 : c.dybSplit ?? 1);
    const diffs: Record<string, number> = {
      dX: maxAbsDiff(await rt.readF32(dX, M * K), ref.dX),
      dA: maxAbsDiff(await rt.readF32(dA, S * R * K), ref.dA),
      dB: maxAbsDiff(await rt.readF32(dB, NW * R), ref.dB),
    };
    if (ref.dW) {
      dWOf[variant] = await rt.readF32(dW, NW * K);
      diffs.dW = maxAbsDiff(dWOf[variant], ref.dW);
    }
    if (ref.dbias) diffs.dbias = maxAbsDiff(await rt.readF32(db, NW), ref.dbias);
    if (c.rerunM) {
      const m = c.rerunM;
      const dm = { ...d, X: d.X.slice(0, m * K), dY: d.dY.slice(0, m * NW), dX0: d.dX0.slice(0, m * K) };
      const refM = reference({ ...c, M: m }, dm, eff, scale);
      for (const [buf, k] of [[dX, 'dX0'], [dA, 'dA0'], [dB, 'dB0'], [dW, 'dW0'], [db, 'db0']] as const) rt.write(buf, d[k]);
      if (variant !== 'tiled') fwd.run(X, Y, m, { xa });
      bwd.run(dY, X, m, { dX, accumulate: true, lora: { dA, dB }, full: c.full ? { dW, dbias: c.bias ? db : null } : null, xa: variant !== 'tiled' ? xa : undefined });
      diffs[`dX (M=${m} after)`] = maxAbsDiff(await rt.readF32(dX, m * K), refM.dX);
      diffs[`dA (M=${m} after)`] = maxAbsDiff(await rt.readF32(dA, S * R * K), refM.dA);
      diffs[`dB (M=${m} after)`] = maxAbsDiff(await rt.readF32(dB, NW * R), refM.dB);
    }
    // dX overwrite (=) with LoRA switched off: the base path alone.
    bwd.loraEnabled = false;
    rt.write(dX, new Float32Array(M * K).fill(NaN));
    bwd.run(dY, X, M, { dX });
    diffs['dX= base'] = maxAbsDiff(await rt.readF32(dX, M * K), linear_backward(d.dY, d.X, eff, null, M, K, NW, null, null));
    console.log(`linear_backward ${c.name} ${variant} M=${M} K=${K} NW=${NW} S=${S}: ${Object.entries(diffs).map(([k, v]) => `${k} maxdiff=${v.toExponential(2)}`).join(' ')}`);
    for (const v of Object.values(diffs)) expect(v).toBeLessThan(2e-4);
    bwd.dispose();
  }
  // dw_rb16 sums in dw_rb's order (four rows of M per step, then two, then one): the same dW bit for bit.
  if (dWOf.rb && dWOf.rb16) expect(dWOf.rb16, 'dW rb16 = rb').toEqual(dWOf.rb);
  fwd.dispose();
  rt.release(X, b, A, B, dY, dX, dA, dB, dW, db, xa, Y, ...bufs);
}

describe('LinearBackward', () => {
  it('f32 W, bias, one LoRA segment, full-mode dW/dbias', () => runCase({ name: 'f32', nf4: false, M: 17, K: 132, NW: 40, R: 4, starts: [], bias: true, full: true }));
  it('NF4 W, fused q|k|v with three LoRA segments', () => runCase({ name: 'qkv nf4', nf4: true, M: 37, K: 128, NW: 48, R: 4, starts: [32, 40], bias: true, full: false }));
  it('NF4 W, gate|up (swiglu spec) with two LoRA segments', () => runCase({ name: 'gate_up nf4', nf4: true, M: 70, K: 64, NW: 2 * 36, R: 8, starts: [36], bias: false, full: false, swiglu: true }));
  it('NF4 W, K=256 and M=70: dx_nf4_rb16 runs (8 workgroups of 16 x 16 tiles, a partial row tile); rank 16 (dY B and dB in 2 x 8 workgroups)', () => runCase({ name: 'nf4 rb16 r16', nf4: true, M: 70, K: 256, NW: 44, R: 16, starts: [], bias: false, full: false }));
  it('f32 W, fused q|k|v, segments off multiples of 8, rank 5 (scalar LoRA kernels), full mode', () => runCase({ name: 'qkv f32', nf4: false, M: 9, K: 64, NW: 30, R: 5, starts: [13, 21], bias: true, full: true }));

  it('f32 W, the default agent\'s gate|up shape (K=64, NW=384), M a multiple of four, full mode (dw_rb16 four rows per step), dY B of both segments in one dispatch of 6 splits', () => runCase({ name: 'agent gate_up f32', nf4: false, M: 160, K: 64, NW: 384, R: 4, starts: [192], bias: false, full: true, dybSplit: 6, rerunM: 36 }));
  it('f32 W, full mode with M = 39 and M = 2 (dw_rb16\'s two-row step and last row after its four-row steps; 4 workgroups of 16 x 16 tiles)', async () => {
    await runCase({ name: 'dw_rb16 tail', nf4: false, M: 39, K: 64, NW: 256, R: 4, starts: [], bias: true, full: true, dybSplit: 4 });
    await runCase({ name: 'dw_rb16 two rows', nf4: false, M: 2, K: 64, NW: 256, R: 4, starts: [], bias: false, full: true, dybSplit: 4 });
  });
  it('LoRA dY B split along N at few rows: q|k|v segments of 1024, 8 and 8 (the short ones\' later partials empty), rank 8, M=20', () =>
    runCase({ name: 'dyb split', nf4: false, M: 20, K: 64, NW: 1040, R: 8, starts: [1024, 1032], bias: false, full: false, dybSplit: 16 }));
  it('LoRA dY B split at rank 16 and M=64, NF4 W, one segment of 1000 (250 vec4 in 15 splits of 17)', () =>
    runCase({ name: 'dyb split r16', nf4: true, M: 64, K: 64, NW: 1000, R: 16, starts: [], bias: false, full: false, dybSplit: 15 }));
  it('rank 16 on rb16: dY B and dB on 16 x 16 tiles (q|k|v\'s dY B in one dispatch of 18 splits at M=60, dB in one; again at M=44), dA (48 rows, K=256) in one-SIMD-group workgroups', () =>
    runCase({ name: 'wide r16', nf4: false, M: 60, K: 256, NW: 1152, R: 16, starts: [896, 1024], bias: true, full: false, dybSplit: 18, rerunM: 44 }));
  it('rank 32 on rb16 (two invocations across), M=75 (a partial row tile), segments of 64 and 32 (too short to split)', () =>
    runCase({ name: 'wide r32', nf4: false, M: 75, K: 128, NW: 96, R: 32, starts: [64], bias: false, full: false, dybSplit: 1 }));
  it('dwPipelineKey: dw_rb / dw_rb16 without their two-row and one-row steps only at M % 4 == 0', () => {
    const built = new Set(['dw:rb16', 'dw:rb16:even', 'dw:wide', 'dw:wide:even', 'dw:tiled']);
    expect(dwPipelineKey('dw:rb16', 64, built)).toBe('dw:rb16:even');
    expect(dwPipelineKey('dw:wide', 1280, built)).toBe('dw:wide:even');
    for (const M of [39, 2, 75, 70]) expect(dwPipelineKey('dw:rb16', M, built)).toBe('dw:rb16');
    // Kernels without the form (tiled, dx_*) keep their key.
    expect(dwPipelineKey('dw:tiled', 64, built)).toBe('dw:tiled');
    expect(dwPipelineKey('dx:rb16', 64, built)).toBe('dx:rb16');
  });

  // Which segments' dY B and dB share a dispatch (the memory plan counts the same dispatches).
  it('loraBackwardLayout: all segments in one dispatch where the splits or tiles align with them', () => {
    const pick = (l: ReturnType<typeof loraBackwardLayout>) => [l.parts, l.split4, l.dybMerged, l.dbMerged, l.dybDispatches, l.dbDispatches];
    // Qwen2.5-0.5B q|k|v at 64 rows: 14 splits of 16 vec4 per segment -> 18 in one dispatch; dB in one.
    expect(pick(loraBackwardLayout('rb16', 16, 1152, [896, 1024], 64))).toEqual([18, 16, true, true, 1, 1]);
    // Many rows: no split, dY B per segment, dB still in one.
    expect(pick(loraBackwardLayout('rb16', 16, 1152, [896, 1024], 4096))).toEqual([1, 0, false, true, 3, 1]);
    // Segment starts at 1024 and 1032 (vec4 256, 258): no split size of at least half 16 divides both.
    expect(pick(loraBackwardLayout('rb16', 8, 1040, [1024, 1032], 20))).toEqual([16, 16, false, true, 3, 1]);
    // The default agent's q|k|v (64, 32, 32) at rank 8: dB (8-row tiles) in one dispatch.
    expect(pick(loraBackwardLayout('rb16', 8, 128, [64, 96], 4096))).toEqual([1, 0, false, true, 3, 1]);
    // dB tiles of 16 rows do not fit segments starting at 40; the tiled variant and odd ranks never merge.
    expect(loraBackwardLayout('rb16', 16, 96, [40, 72], 4096).dbMerged).toBe(false);
    expect(pick(loraBackwardLayout('tiled', 16, 1152, [896, 1024], 64))).toEqual([1, 0, false, false, 3, 3]);
    expect(pick(loraBackwardLayout('rb16', 5, 30, [13, 21], 9))).toEqual([1, 0, false, false, 1, 1]);
  });

  it('rejects wrong shapes with the op and the expected shape', async () => {
    const rt = await nodeRuntime();
    const W = rt.storage(8 * 16 * 4, 'W'), small = rt.storage(16, 'small');
    const spec: LinearSpec = { label: 'shape', K: 16, N: 8, weight: { format: 'f32', W } };
    const bwd = await LinearBackward.create(rt, spec);
    expect(() => bwd.run(small, small, 4, {})).toThrow(ShapeError);
    expect(() => bwd.run(small, small, 4, {})).toThrow(/linear_backward shape: expected dY of \[4, 8\]/);
    const dY = rt.storage(4 * 8 * 4, 'dY'), X = rt.storage(4 * 16 * 4, 'X');
    expect(() => bwd.run(dY, X, 4, { dX: small })).toThrow(/linear_backward shape: expected dX of \[4, 16\]/);
    expect(() => bwd.run(dY, X, 4, { full: { dW: small } })).toThrow(/expected dW of \[8, 16\]/);
    expect(() => bwd.run(dY, X, 4, { lora: { dA: small, dB: small } })).toThrow(/LoRA spec/);
    await expect(LinearBackward.create(rt, { ...spec, K: 18 })).rejects.toThrow(/linear_backward shape: expected K/);
    bwd.dispose();
    rt.release(W, small, dY, X);
  });
});
