// The NF4 rb16 kernels at 32 rows per invocation (nf4_dec32, dx_nf4_rb32; scripts/gen-nf4-tiles.ts)
// against the 16-row ones and the CPU twins: a run over M rows that takes 32-row tiles must equal,
// bit for bit, the same rows run 16 at a time (nf4_dec16, dx_nf4_rb16), with bias, LoRA, Y +=,
// SwiGLU, partial row tiles and a partial column group. Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { nf4Weight, swigluLoraRef } from '../helpers/nf4-layer';
import { Linear, nf4TileRows, type LinearSpec } from '../../../src/gpu/kernels/linear';
import { LinearBackward } from '../../../src/gpu/kernels/linear-backward';
import { linear_backward, linear_forward, lora_forward } from '../../../src/reference/linear';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import type { GpuRuntime } from '../../../src/gpu/runtime';

/** M values whose runs take 32-row tiles (a partial last tile at 20, 50 and 70). */
const ROWS32 = [20, 32, 50, 64, 70];
/** In features of the forward cases. */
const K = 128;

/**
 * `run(m, in, out)` over all M rows at once, and over the same rows 16 at a time (each slice its
 * own buffers, out pre-filled with `init`'s rows): both outputs, [M, outC] each.
 */
async function wholeAndSliced(rt: GpuRuntime, M: number, inC: number, outC: number, input: Float32Array, init: Float32Array,
  run: (m: number, inBuf: GPUBuffer, outBuf: GPUBuffer) => void): Promise<{ whole: Float32Array; sliced: Float32Array }> {
  const ib = rt.upload(input, 'in'), ob = rt.upload(init, 'out');
  run(M, ib, ob);
  const whole = await rt.readF32(ob, M * outC);
  const sliced = new Float32Array(M * outC);
  for (let r0 = 0; r0 < M; r0 += 16) {
    const m = Math.min(16, M - r0);
    const is = rt.upload(input.slice(r0 * inC, (r0 + m) * inC), 'in slice'), os = rt.upload(init.slice(r0 * outC, (r0 + m) * outC), 'out slice');
    run(m, is, os);
    sliced.set(await rt.readF32(os, m * outC), r0 * outC);
    rt.release(is, os);
  }
  rt.release(ib, ob);
  return { whole, sliced };
}

describe('NF4 32-row tiles', () => {
  it('nf4TileRows: 32 except at 1-16 and 33-48 rows', () => {
    const at = (Ms: number[]) => Ms.map(nf4TileRows);
    expect(at([1, 8, 16, 33, 40, 48])).toEqual([16, 16, 16, 16, 16, 16]);
    expect(at([17, 20, 32, 49, 64, 65, 80, 97, 126, 128, 6145])).toEqual([32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32]);
  });

  it('forward: bias + LoRA (=, then +=) and plain N=70 (a partial column group) equal the 16-row runs bit for bit', async () => {
    const rt = await nodeRuntime();
    const N = 40, R = 4, scale = 2;
    const W = randomArray(N * K, 2), b = randomArray(N, 3), A = randomArray(R * K, 4), B = randomArray(N * R, 5);
    const { spec: weight, eff, bufs } = await nf4Weight(rt, W, N, K);
    const bb = rt.upload(b, 'bias'), ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
    const lin = await Linear.create(rt, { label: 'rows32 lora', K, N, weight, bias: bb, lora: { A: ab, B: Bb, R, scale } });
    await lin.prepare('rb16');
    const W70 = randomArray(70 * K, 6);
    const plain = await nf4Weight(rt, W70, 70, K);
    const lin70 = await Linear.create(rt, { label: 'rows32 plain', K, N: 70, weight: plain.spec });
    await lin70.prepare('rb16');
    for (const M of ROWS32) {
      const X = randomArray(M * K, M), Y0 = randomArray(M * N, M + 1);
      const ref = linear_forward(X, eff, b, M, K, N).map((v, i) => v + lora_forward(X, A, B, scale, M, K, N, R)[i]);
      for (const accumulate of [false, true]) {
        const init = accumulate ? Y0 : new Float32Array(M * N).fill(NaN);
        const { whole, sliced } = await wholeAndSliced(rt, M, K, N, X, init, (m, x, y) => lin.run(x, y, m, { variant: 'rb16', accumulate }));
        const d = maxAbsDiff(whole, accumulate ? ref.map((v, i) => v + Y0[i]) : ref);
        console.log(`nf4 rows32 forward M=${M} bias+lora ${accumulate ? '+=' : '='}: maxdiff=${d.toExponential(2)} (16-row runs identical: ${whole.every((v, i) => Object.is(v, sliced[i]))})`);
        expect(whole, `M=${M} ${accumulate ? '+=' : '='}: 32-row tiles = 16-row tiles`).toEqual(sliced);
        expect(d).toBeLessThan(1e-4);
      }
      const { whole, sliced } = await wholeAndSliced(rt, M, K, 70, X, new Float32Array(M * 70).fill(NaN), (m, x, y) => lin70.run(x, y, m, { variant: 'rb16' }));
      expect(whole, `M=${M} plain N=70`).toEqual(sliced);
      expect(maxAbsDiff(whole, linear_forward(X, plain.eff, null, M, K, 70))).toBeLessThan(1e-4);
    }
    lin.dispose(); lin70.dispose();
    rt.release(bb, ab, Bb, ...bufs, ...plain.bufs);
  });

  it('forward: fused gate|up with SwiGLU and per-segment LoRA (I=22: a partial column group) equals the 16-row runs bit for bit', async () => {
    const rt = await nodeRuntime();
    const I = 22, R = 4, scale = 0.5;
    const W = randomArray(2 * I * K, 7), A = randomArray(2 * R * K, 8), B = randomArray(2 * I * R, 9);
    const { spec: weight, eff, bufs } = await nf4Weight(rt, W, 2 * I, K);
    const ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
    const lin = await Linear.create(rt, { label: 'rows32 swiglu', K, N: I, weight, swiglu: true, lora: { A: ab, B: Bb, R, scale, segmentStarts: [I] } });
    await lin.prepare('rb16');
    for (const M of ROWS32) {
      const X = randomArray(M * K, M + 2);
      const ref = swigluLoraRef(X, eff, A, B, scale, M, K, I, R);
      const { whole, sliced } = await wholeAndSliced(rt, M, K, I, X, new Float32Array(M * I).fill(NaN), (m, x, y) => lin.run(x, y, m, { variant: 'rb16' }));
      const d = maxAbsDiff(whole, ref);
      console.log(`nf4 rows32 forward M=${M} swiglu+lora: maxdiff=${d.toExponential(2)}`);
      expect(whole, `M=${M}`).toEqual(sliced);
      expect(d).toBeLessThan(1e-4);
    }
    lin.dispose();
    rt.release(ab, Bb, ...bufs);
  });

  // K = 256: four workgroups of 64 columns, the fewest that take the 16 x 16 (and 32-row) tiles
  // rather than dx_nf4_rb's 8 x 8 ones (mmChoice in src/gpu/kernels/linear-backward.ts).
  it('dX (=, then +=) at K=256 equals the 16-row runs bit for bit', async () => {
    const rt = await nodeRuntime();
    const NW = 44, K = 256;
    const W = randomArray(NW * K, 10);
    const { spec: weight, eff, bufs } = await nf4Weight(rt, W, NW, K);
    const spec: LinearSpec = { label: 'rows32 dX', K, N: NW, weight };
    const bwd = await LinearBackward.create(rt, spec, 'rb16');
    const X = rt.storage(Math.max(...ROWS32) * K * 4, 'X (unused by dX)');
    for (const M of ROWS32) {
      const dY = randomArray(M * NW, M + 3), dX0 = randomArray(M * K, M + 4);
      for (const accumulate of [false, true]) {
        const init = accumulate ? dX0 : new Float32Array(M * K).fill(NaN);
        const { whole, sliced } = await wholeAndSliced(rt, M, NW, K, dY, init, (m, dy, dx) => bwd.run(dy, X, m, { dX: dx, accumulate }));
        const ref = linear_backward(dY, new Float32Array(M * K), eff, null, M, K, NW, null, null);
        const d = maxAbsDiff(whole, accumulate ? ref.map((v, i) => v + dX0[i]) : ref);
        console.log(`nf4 rows32 dX M=${M} ${accumulate ? '+=' : '='}: maxdiff=${d.toExponential(2)}`);
        expect(whole, `M=${M} ${accumulate ? '+=' : '='}`).toEqual(sliced);
        expect(d).toBeLessThan(1e-4);
      }
    }
    bwd.dispose();
    rt.release(X, ...bufs);
  });
});
