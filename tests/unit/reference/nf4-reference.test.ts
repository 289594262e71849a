// The NF4 CPU twin (src/reference/nf4.ts) on known values: the bitsandbytes levels, block
// scales, codes at the extremes, at zero and exactly on level midpoints (ties go low), packing.
import { describe, expect, it } from 'vitest';
import { NF4_LEVELS, NF4_THRESHOLDS, nf4_code, nf4_dequantize, nf4_error, nf4_pack, nf4_quantize, nf4_roundtrip, nf4_unpack } from '../../../src/reference/nf4';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';

describe('nf4 reference', () => {
  it('has the 16 bitsandbytes levels and 15 thresholds between them', () => {
    expect(NF4_LEVELS.length).toBe(16);
    expect(NF4_LEVELS[0]).toBe(-1);
    expect(NF4_LEVELS[7]).toBe(0);
    expect(NF4_LEVELS[15]).toBe(1);
    expect(NF4_LEVELS[8]).toBeCloseTo(0.07958029955625534, 15);
    for (let i = 0; i < 15; i++) {
      expect(NF4_THRESHOLDS[i]).toBeGreaterThan(NF4_LEVELS[i]);
      expect(NF4_THRESHOLDS[i]).toBeLessThan(NF4_LEVELS[i + 1]);
      // bitsandbytes' thresholds are the midpoints of adjacent levels (to f32 precision).
      expect(Math.abs(NF4_THRESHOLDS[i] - (NF4_LEVELS[i] + NF4_LEVELS[i + 1]) / 2)).toBeLessThan(1e-7);
    }
  });

  it('quantizes a block whose max is 2.0: 2 -> 15, -2 -> 0, 0 -> 7, midpoints go to the lower code', () => {
    const w = new Float32Array(64);
    w[0] = 2.0; w[1] = -2.0; w[2] = 0;
    for (let i = 0; i < 15; i++) {
      w[3 + i] = NF4_THRESHOLDS[i] * 2; // exactly on a midpoint (x2 is exact in f32)
      w[20 + i] = Math.fround(NF4_THRESHOLDS[i] * 2 + 2 ** -18); // just above it
      w[40 + i] = NF4_LEVELS[i] * 2; // exactly on a level
    }
    const { codes, absmax } = nf4_quantize(w);
    expect(absmax[0]).toBe(2);
    expect([codes[0], codes[1], codes[2]]).toEqual([15, 0, 7]);
    for (let i = 0; i < 15; i++) {
      expect(codes[3 + i]).toBe(i);
      expect(codes[20 + i]).toBe(i + 1);
      expect(codes[40 + i]).toBe(i);
    }
    const deq = nf4_dequantize(codes, absmax, 64);
    expect(deq[0]).toBe(2);
    expect(deq[1]).toBe(-2);
    expect(deq[2]).toBe(0);
  });

  it('gives an all-zero block code 7 and decodes it to 0', () => {
    const { codes, absmax } = nf4_quantize(new Float32Array(128));
    expect([...absmax]).toEqual([0, 0]);
    expect(codes.every((c) => c === 7)).toBe(true);
    expect(nf4_code(0, 0)).toBe(7);
  });

  it('round trip error is bounded by half the widest level gap (absmax <= 1 here)', () => {
    const w = randomArray(64 * 40, 3);
    const r = nf4_roundtrip(w);
    const e = nf4_error(w);
    const d = maxAbsDiff(w, r);
    console.log(`nf4 roundtrip uniform[-1,1) meanAbs=${e.meanAbs.toExponential(3)} maxAbs=${e.maxAbs.toExponential(3)}`);
    expect(e.maxAbs).toBe(d);
    let gap = 0;
    for (let i = 0; i < 15; i++) gap = Math.max(gap, NF4_LEVELS[i + 1] - NF4_LEVELS[i]);
    expect(d).toBeLessThanOrEqual(gap / 2 + 1e-6);
    expect(e.meanAbs).toBeGreaterThan(0);
  });

  it('packs 8 codes per u32, low nibble first', () => {
    const codes = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 15]);
    const words = nf4_pack(codes);
    expect(words[0]).toBe(0x87654321);
    expect(words[1]).toBe(15);
    expect([...nf4_unpack(words, 9)]).toEqual([...codes]);
  });
});
