// RMSNorm and fused residual + RMSNorm (shaders/rmsnorm.wgsl) against rmsnorm_forward.
// Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { RmsNorm } from '../../../src/gpu/kernels/rmsnorm';
import { rmsnorm_forward } from '../../../src/reference/rmsnorm';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('rmsnorm', () => {
  for (const layout of ['wg', 'thread'] as const) for (const [N, C] of [[1, 64], [7, 896], [33, 52], ...(layout === 'thread' ? [[70, 8]] : [])]) {
    it(`${layout} N=${N} C=${C}: plain and fused residual`, async () => {
      const rt = await nodeRuntime();
      const eps = 1e-6;
      const x = randomArray(N * C, N + C), w = randomArray(C, 7), delta = randomArray(N * C, 9);
      const norm = await RmsNorm.create(rt, C, eps, layout);
      const xb = rt.upload(x, 'x'), wb = rt.upload(w, 'w'), db = rt.upload(delta, 'delta'), yb = rt.storage(N * C * 4, 'y');
      norm.run(xb, wb, yb, N);
      const d1 = maxAbsDiff(await rt.readF32(yb, N * C), rmsnorm_forward(x, w, N, C, eps));
      norm.runResidual(db, wb, xb, yb, N);
      const xs = x.map((v, i) => v + delta[i]);
      const dx = maxAbsDiff(await rt.readF32(xb, N * C), xs);
      const d2 = maxAbsDiff(await rt.readF32(yb, N * C), rmsnorm_forward(xs, w, N, C, eps));
      console.log(`rmsnorm ${layout} N=${N} C=${C} maxdiff=${d1.toExponential(2)}; residual+rmsnorm x maxdiff=${dx.toExponential(2)} y maxdiff=${d2.toExponential(2)}`);
      expect(d1).toBeLessThan(1e-5);
      expect(dx).toBe(0);
      expect(d2).toBeLessThan(1e-5);
      rt.release(xb, wb, db, yb);
    });
  }

  it('rejects wrong shapes', async () => {
    const rt = await nodeRuntime();
    await expect(RmsNorm.create(rt, 6, 1e-6)).rejects.toThrow(/multiple of 4/);
    const norm = await RmsNorm.create(rt, 8, 1e-6);
    const xb = rt.storage(2 * 8 * 4, 'x'), wb = rt.storage(8 * 4, 'w'), yb = rt.storage(8 * 4, 'y');
    expect(() => norm.run(xb, wb, yb, 2)).toThrow(ShapeError);
    rt.release(xb, wb, yb);
  });
});
