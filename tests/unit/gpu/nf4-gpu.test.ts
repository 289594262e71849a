// GPU NF4 quantization (shaders/nf4.wgsl) against the CPU twin: identical codes and scales on
// random data and on hand-made ties, and the per-tensor error figures. Prints the figures.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import { NF4_LEVELS, NF4_THRESHOLDS, nf4_error, nf4_quantize, nf4_unpack } from '../../../src/reference/nf4';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

/** Random weights with ties: every 5th element sits exactly on a scaled threshold or level. */
function tiedWeights(n: number, seed: number): Float32Array {
  const w = randomArray(n, seed);
  for (let b = 0; b < n / 64; b++) {
    const s = 0.5 + (b % 7) * 0.25; // absmax of the block, set by element 0
    w[b * 64] = b % 2 ? s : -s;
    for (let i = 1; i < 64; i++) {
      const x = w[b * 64 + i] * s * 0.999;
      const k = (b * 64 + i) % 15;
      w[b * 64 + i] = i % 5 === 0 ? Math.fround(NF4_THRESHOLDS[k] * s) : i % 5 === 1 ? Math.fround(NF4_LEVELS[k] * s) : x;
    }
  }
  return w;
}

describe('nf4_quantize on the GPU', () => {
  const cases: [string, number, number, Float32Array][] = [
    ['random [96, 64]', 96, 64, randomArray(96 * 64, 5)],
    ['random [70, 256]', 70, 256, randomArray(70 * 256, 9)],
    ['ties [40, 128]', 40, 128, tiedWeights(40 * 128, 13)],
    ['zero block [2, 64]', 2, 64, new Float32Array(128).map((_, i) => (i < 64 ? 0 : (i - 96) / 32))],
  ];
  for (const [name, rows, cols, W] of cases) {
    it(`${name}: same codes and absmax as the twin`, async () => {
      const rt = await nodeRuntime();
      const q = await Nf4Quantizer.create(rt);
      const wb = rt.upload(W, 'W');
      const { weight, error } = await q.quantize(wb, rows, cols, name);
      const codes = nf4_unpack(await rt.readU32(weight.codes, rows * cols / 8), rows * cols);
      const absmax = await rt.readF32(weight.absmax, rows * cols / 64);
      rt.release(wb, weight.codes, weight.absmax);
      const ref = nf4_quantize(W);
      let mismatches = 0;
      for (let i = 0; i < codes.length; i++) if (codes[i] !== ref.codes[i]) mismatches++;
      const e = nf4_error(W);
      console.log(`nf4_quantize ${name}: code mismatches=${mismatches}/${codes.length} ` +
        `error mean=${error.meanAbs.toExponential(3)} (twin ${e.meanAbs.toExponential(3)}) max=${error.maxAbs.toExponential(3)} (twin ${e.maxAbs.toExponential(3)})`);
      expect(mismatches).toBe(0);
      expect([...absmax]).toEqual([...ref.absmax]);
      expect(Math.abs(error.meanAbs - e.meanAbs)).toBeLessThanOrEqual(1e-6 * Math.max(1, e.meanAbs));
      expect(error.maxAbs).toBeCloseTo(e.maxAbs, 6);
    });
  }

  it('rejects a tensor that is not a whole number of blocks', async () => {
    const rt = await nodeRuntime();
    const q = await Nf4Quantizer.create(rt);
    const wb = rt.storage(10 * 10 * 4, 'W');
    await expect(q.quantize(wb, 10, 10, 'odd')).rejects.toThrow(ShapeError);
    rt.release(wb);
  });
});
