// WGSL matmul (both variants) against the CPU reference on Dawn, with odd shapes that exercise
// the bounds checks. Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Matmul, MATMUL_VARIANTS } from '../../../src/gpu/kernels/matmul';
import { matmul_forward, maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

const shapes: [number, number, number][] = [[1, 64, 96], [7, 36, 13], [33, 128, 70], [64, 256, 64]];

describe('matmul_f32', () => {
  for (const variant of MATMUL_VARIANTS) {
    for (const [M, K, N] of shapes) {
      it(`${variant} M=${M} K=${K} N=${N} matches the reference`, async () => {
        const rt = await nodeRuntime();
        const X = randomArray(M * K, M + 7), W = randomArray(N * K, N + 11);
        const mm = await Matmul.create(rt, { variant });
        const xb = rt.upload(X, 'X'), wb = rt.upload(W, 'W'), yb = rt.storage(M * N * 4, 'Y');
        mm.run(xb, wb, yb, M, K, N);
        const got = await rt.readF32(yb, M * N);
        rt.release(xb, wb, yb);
        const d = maxAbsDiff(got, matmul_forward(X, W, M, K, N));
        console.log(`matmul ${variant} [${M}x${K}]x[${N}x${K}]^T maxdiff=${d.toExponential(2)}`);
        expect(d).toBeLessThan(1e-4);
      });
    }
  }

  it('rejects a wrong shape with a message naming the op and the expected shape', async () => {
    const rt = await nodeRuntime();
    const mm = await Matmul.create(rt, { variant: 'rb' });
    const xb = rt.storage(4 * 8 * 4, 'X'), wb = rt.storage(4 * 8 * 4, 'W'), yb = rt.storage(4 * 4 * 4, 'Y');
    expect(() => mm.run(xb, wb, yb, 4, 8, 5)).toThrow(ShapeError);
    expect(() => mm.run(xb, wb, yb, 4, 6, 4)).toThrow(/multiple of 4/);
    rt.release(xb, wb, yb);
  });
});
