// NF4 matmul (shaders/matmul_nf4.wgsl, every variant, through the Linear launcher with no bias
// or LoRA) against matmul_forward(X, nf4_roundtrip(W)). Weights are quantized on the GPU.
// Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Linear, DECODE_MAX_M, linearVariants } from '../../../src/gpu/kernels/linear';
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import { matmul_forward, maxAbsDiff } from '../../../src/reference/matmul';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

const shapes: [number, number, number][] = [[1, 64, 96], [2, 64, 40], [5, 128, 40], [33, 256, 70], [8, 64, 13]];

describe('matmul_nf4', () => {
  for (const [M, K, N] of shapes) {
    it(`[${M}x${K}]x[${N}x${K}]^T matches matmul_forward(X, nf4_roundtrip(W)) in every variant`, async () => {
      const rt = await nodeRuntime();
      const X = randomArray(M * K, M + 3), W = randomArray(N * K, N + 5);
      const wb = rt.upload(W, 'W');
      const { weight } = await (await Nf4Quantizer.create(rt)).quantize(wb, N, K, 'W');
      rt.release(wb);
      const lin = await Linear.create(rt, { label: 'nf4 test', K, N, weight: { format: 'nf4', q: weight } });
      const ref = matmul_forward(X, nf4_roundtrip(W), M, K, N);
      const xb = rt.upload(X, 'X'), yb = rt.storage(M * N * 4, 'Y');
      for (const variant of linearVariants(rt)) {
        if (variant === 'gemv' && M > DECODE_MAX_M) continue;
        await lin.prepare(variant);
        rt.write(yb, new Float32Array(M * N).fill(NaN));
        lin.run(xb, yb, M, { variant });
        const d = maxAbsDiff(await rt.readF32(yb, M * N), ref);
        console.log(`matmul_nf4 ${variant} [${M}x${K}]x[${N}x${K}]^T maxdiff=${d.toExponential(2)}`);
        expect(d).toBeLessThan(2e-5 * Math.sqrt(K));
      }
      lin.dispose();
      rt.release(xb, yb, weight.codes, weight.absmax);
    });
  }

  // nf4_sg's two ways of unpacking codes (the pair table is the default only on subgroups >= 16
  // wide, so this adapter would never run it otherwise) give the same sums.
  it('runs the sg variant with the code-pair table and with one table read per code', async () => {
    const rt = await nodeRuntime();
    if (!rt.hasFeature('subgroups')) return;
    const [M, K, N] = [5, 192, 44];
    const X = randomArray(M * K, 7), W = randomArray(N * K, 8);
    const wb = rt.upload(W, 'W');
    const { weight } = await (await Nf4Quantizer.create(rt)).quantize(wb, N, K, 'W');
    rt.release(wb);
    const ref = matmul_forward(X, nf4_roundtrip(W), M, K, N);
    const xb = rt.upload(X, 'X'), yb = rt.storage(M * N * 4, 'Y');
    const out: Float32Array[] = [];
    for (const sgPairs of [true, false]) {
      const lin = await Linear.create(rt, { label: `nf4 sg pairs=${sgPairs}`, K, N, weight: { format: 'nf4', q: weight } }, undefined, { sgPairs });
      await lin.prepare('sg');
      rt.write(yb, new Float32Array(M * N).fill(NaN));
      lin.run(xb, yb, M, { variant: 'sg' });
      out.push(await rt.readF32(yb, M * N));
      const d = maxAbsDiff(out[out.length - 1], ref);
      console.log(`matmul_nf4 sg pairs=${sgPairs} [${M}x${K}]x[${N}x${K}]^T maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThan(2e-5 * Math.sqrt(K));
      lin.dispose();
    }
    expect(maxAbsDiff(out[0], out[1])).toBe(0); // the same values from either table, the same sums
    rt.release(xb, yb, weight.codes, weight.absmax);
  });

  it('says K must be a multiple of 64', async () => {
    const rt = await nodeRuntime();
    const codes = rt.storage(4 * 48 / 2, 'codes'), absmax = rt.storage(16, 'absmax');
    await expect(Linear.create(rt, { label: 'bad', K: 48, N: 4, weight: { format: 'nf4', q: { codes, absmax, rows: 4, cols: 48 } } }))
      .rejects.toThrow(/multiple of 64/);
    await expect(Linear.create(rt, { label: 'bad', K: 64, N: 4, weight: { format: 'nf4', q: { codes, absmax, rows: 5, cols: 64 } } }))
      .rejects.toThrow(ShapeError);
    rt.release(codes, absmax);
  });
});
