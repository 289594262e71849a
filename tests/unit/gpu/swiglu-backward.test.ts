// SwiGluBackward (swiglu_bwd in shaders/swiglu.wgsl) against swiglu_backward on the fused
// gate|up layout [M, 2I], for an I the scalar entry runs (37) and a multiple of 4 (swiglu_bwd4);
// the output buffer is pre-filled with NaN to check it is overwritten.
// Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { SwiGluBackward } from '../../../src/gpu/kernels/swiglu-backward';
import { swiglu_backward } from '../../../src/reference/swiglu';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('swiglu backward', () => {
  for (const [M, I] of [[5, 37], [70, 64]]) {
    it(`M=${M} I=${I}: dgate|dup from dout and the saved gate|up`, async () => {
      const rt = await nodeRuntime();
      const gu = randomArray(M * 2 * I, 41).map((v) => v * 6), dout = randomArray(M * I, 42);
      const gate = new Float32Array(M * I), up = new Float32Array(M * I);
      for (let m = 0; m < M; m++) {
        gate.set(gu.subarray(m * 2 * I, m * 2 * I + I), m * I);
        up.set(gu.subarray(m * 2 * I + I, (m + 1) * 2 * I), m * I);
      }
      const { dgate, dup } = swiglu_backward(dout, gate, up);
      const ref = new Float32Array(M * 2 * I);
      for (let m = 0; m < M; m++) {
        ref.set(dgate.subarray(m * I, (m + 1) * I), m * 2 * I);
        ref.set(dup.subarray(m * I, (m + 1) * I), m * 2 * I + I);
      }
      const bwd = await SwiGluBackward.create(rt);
      const db = rt.upload(dout, 'dout'), gb = rt.upload(gu, 'gu'), ob = rt.upload(new Float32Array(M * 2 * I).fill(NaN), 'dgu');
      bwd.run(db, gb, ob, M, I);
      const d = maxAbsDiff(await rt.readF32(ob, M * 2 * I), ref);
      console.log(`swiglu_backward M=${M} I=${I} maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThan(1e-5);
      rt.release(db, gb, ob);
    });
  }

  it('rejects wrong shapes with the op and the expected shape', async () => {
    const rt = await nodeRuntime();
    const bwd = await SwiGluBackward.create(rt);
    const a = rt.storage(4 * 8 * 4, 'a'), small = rt.storage(16, 'small');
    expect(() => bwd.run(a, small, a, 4, 4)).toThrow(ShapeError);
    expect(() => bwd.run(a, small, a, 4, 4)).toThrow(/swiglu_backward: expected gate\|up of \[4, 8\]/);
    rt.release(a, small);
  });
});
