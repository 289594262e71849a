// Standalone SwiGLU (shaders/swiglu.wgsl) on the fused gate|up layout [M, 2I] against
// swiglu_forward, for an I the scalar entry runs (37) and a multiple of 4 (swiglu4). Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { SwiGlu } from '../../../src/gpu/kernels/swiglu';
import { swiglu_forward } from '../../../src/reference/swiglu';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('swiglu', () => {
  for (const [M, I] of [[5, 37], [70, 64]]) it(`M=${M} I=${I}: matches swiglu_forward on [M, 2I] rows of gate then up`, async () => {
    const rt = await nodeRuntime();
    const gu = randomArray(M * 2 * I, 41).map((v) => v * 6);
    const gate = new Float32Array(M * I), up = new Float32Array(M * I);
    for (let m = 0; m < M; m++) {
      gate.set(gu.subarray(m * 2 * I, m * 2 * I + I), m * I);
      up.set(gu.subarray(m * 2 * I + I, (m + 1) * 2 * I), m * I);
    }
    const sw = await SwiGlu.create(rt);
    const gb = rt.upload(gu, 'gate|up'), ob = rt.upload(new Float32Array(M * I).fill(NaN), 'out');
    sw.run(gb, ob, M, I);
    const d = maxAbsDiff(await rt.readF32(ob, M * I), swiglu_forward(gate, up));
    console.log(`swiglu M=${M} I=${I} maxdiff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-5);
    expect(() => sw.run(gb, ob, M, I + 1)).toThrow(ShapeError);
    rt.release(gb, ob);
  });
});
