// RmsNormBackward (rmsnorm_bwd / rmsnorm_dw in shaders/rmsnorm.wgsl) against rmsnorm_backward:
// dx overwritten and accumulated into a pre-filled residual gradient, dw += into a pre-filled
// buffer, C not a multiple of the workgroup. Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { RmsNormBackward } from '../../../src/gpu/kernels/rmsnorm-backward';
import { rmsnorm_backward } from '../../../src/reference/rmsnorm';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('rmsnorm backward', () => {
  for (const layout of ['wg', 'thread'] as const) for (const [N, C] of [[1, 64], [7, 896], [33, 52], ...(layout === 'thread' ? [[70, 8]] : [])]) {
    it(`${layout} N=${N} C=${C}: dx (= and +=) and dw (+=)`, async () => {
      const rt = await nodeRuntime();
      const eps = 1e-6;
      const x = randomArray(N * C, N + C), w = randomArray(C, 7), dy = randomArray(N * C, 8);
      const dx0 = randomArray(N * C, 9), dw0 = randomArray(C, 10);
      const bwd = await RmsNormBackward.create(rt, C, eps, layout);
      const [xb, wb, dyb, dxb, dwb] = [x, w, dy, dx0, dw0].map((a, i) => rt.upload(a, `t${i}`));
      const dwRef = dw0.slice();
      const dxRef = rmsnorm_backward(dy, x, w, N, C, eps, dwRef);
      bwd.run(dyb, xb, wb, dxb, N, { accumulate: true, dw: dwb });
      const dAcc = maxAbsDiff(await rt.readF32(dxb, N * C), dxRef.map((v, i) => v + dx0[i]));
      const dW = maxAbsDiff(await rt.readF32(dwb, C), dwRef);
      rt.write(dxb, new Float32Array(N * C).fill(NaN));
      bwd.run(dyb, xb, wb, dxb, N);
      const dSet = maxAbsDiff(await rt.readF32(dxb, N * C), dxRef);
      const dwAgain = maxAbsDiff(await rt.readF32(dwb, C), dwRef);
      console.log(`rmsnorm_backward ${layout} N=${N} C=${C}: dx+= maxdiff=${dAcc.toExponential(2)} dx= maxdiff=${dSet.toExponential(2)} dw+= maxdiff=${dW.toExponential(2)}`);
      expect(dAcc).toBeLessThan(1e-5);
      expect(dSet).toBeLessThan(1e-5);
      expect(dW).toBeLessThan(1e-5);
      expect(dwAgain).toBe(dW); // no dw given: dw untouched
      bwd.dispose();
      rt.release(xb, wb, dyb, dxb, dwb);
    });
  }

  it('rejects wrong shapes with the op and the expected shape', async () => {
    const rt = await nodeRuntime();
    const bwd = await RmsNormBackward.create(rt, 8, 1e-6);
    const ok = rt.storage(4 * 8 * 4, 'ok'), small = rt.storage(16, 'small');
    expect(() => bwd.run(ok, small, ok, ok, 4)).toThrow(ShapeError);
    expect(() => bwd.run(ok, small, ok, ok, 4)).toThrow(/rmsnorm_backward: expected x of \[4, 8\]/);
    expect(() => bwd.run(ok, ok, ok, ok, 4, { dw: small })).toThrow(/rmsnorm_backward: expected dw of \[8\]/);
    await expect(RmsNormBackward.create(rt, 6, 1e-6)).rejects.toThrow(/rmsnorm_backward: expected C/);
    bwd.dispose();
    rt.release(ok, small);
  });
});
