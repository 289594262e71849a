// KvShare (shaders/kv_share.wgsl) against its CPU twins kvShareCopy / kvShareSum: a pass's shared
// prefixes copied from root slots to sharer slots in K and V, and the sharers' gradients on those
// positions added into the roots'; slots outside any share, and positions past a slot's shared
// count, untouched; a root that shares a shorter prefix of its own root (a chain). Prints maxdiff
// per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { KvShare } from '../../../src/gpu/kernels/kv-share';
import { kvShareCopy, kvShareSum } from '../../../src/reference/kv-share';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('KvShare', () => {
  it('copies the roots\' shared positions into their sharers and sums the sharers\' gradients back into the roots', async () => {
    const rt = await nodeRuntime();
    const op = await KvShare.create(rt);
    for (const [KVH, HS] of [[2, 8], [1, 16]]) {
      const s = { B: 6, KVH, Tmax: 9, HS };
      // Slots 1 and 2 share 5 and 7 positions of root 0; slot 3 shares 2 of root 0 and slot 4 shares
      // 4 of slot 3 (positions 0-1 then slot 0's: a chain); slot 5 alone.
      const share = Uint32Array.from([0, 0, 0, 5, 0, 7, 0, 2, 3, 4, 5, 0]);
      const n = s.B * KVH * s.Tmax * HS;
      const k0 = randomArray(n, 11 + HS), v0 = randomArray(n, 12 + HS);
      const table = rt.upload(share, 'share table'), k = rt.upload(k0, 'K'), v = rt.upload(v0, 'V');
      const plan = { table, maxN: 7 };
      /** K and V through `gpu` against the twin on copies of their values: the larger maxdiff. */
      const check = async (gpu: () => void, twin: (buf: Float32Array) => void, kIn: Float32Array, vIn: Float32Array) => {
        gpu();
        const kWant = kIn.slice(), vWant = vIn.slice();
        twin(kWant);
        twin(vWant);
        const d = Math.max(maxAbsDiff(await rt.readF32(k, n), kWant), maxAbsDiff(await rt.readF32(v, n), vWant));
        return { d, kWant };
      };
      const { d: dCopy, kWant } = await check(() => op.copy(k, v, plan, s), (b) => kvShareCopy(b, share, s), k0, v0);
      // The twin itself: slot 2 position 6 is slot 0's; position 7 kept; slot 5 untouched.
      const row = (b: number, h: number, t: number) => ((b * KVH + h) * s.Tmax + t) * HS;
      expect(Array.from(kWant.subarray(row(2, KVH - 1, 6), row(2, KVH - 1, 6) + HS))).toEqual(Array.from(k0.subarray(row(0, KVH - 1, 6), row(0, KVH - 1, 6) + HS)));
      expect(kWant[row(2, 0, 7)]).toBe(k0[row(2, 0, 7)]);
      expect(maxAbsDiff(kWant.subarray(row(5, 0, 0)), k0.subarray(row(5, 0, 0)))).toBe(0);
      // The chain: slot 4 position 1 is slot 0's, position 3 slot 3's own.
      expect(kWant[row(4, 0, 1) + 2]).toBe(k0[row(0, 0, 1) + 2]);
      expect(kWant[row(4, 0, 3) + 2]).toBe(k0[row(3, 0, 3) + 2]);

      const dk0 = randomArray(n, 21 + HS), dv0 = randomArray(n, 22 + HS);
      rt.write(k, dk0);
      rt.write(v, dv0);
      const { d: dSum, kWant: dkWant } = await check(() => op.sum(k, v, plan, s), (b) => kvShareSum(b, share, s), dk0, dv0);
      // By hand: root 0 at position 6 gains slot 2's only; at position 2 slots 1 and 2; root 3 at 5 nothing.
      const i6 = row(0, 0, 6) + 1, i2 = row(0, 0, 2) + 3;
      expect(dkWant[i6]).toBeCloseTo(dk0[i6] + dk0[row(2, 0, 6) + 1], 6);
      expect(dkWant[i2]).toBeCloseTo(dk0[i2] + dk0[row(1, 0, 2) + 3] + dk0[row(2, 0, 2) + 3], 6);
      expect(dkWant[row(3, 0, 5)]).toBe(dk0[row(3, 0, 5)]);
      // The chain: root 0 at position 1 gains slots 1-4's; slot 3 at 3 gains slot 4's, at 1 keeps its own.
      const j1 = row(0, 0, 1);
      expect(dkWant[j1]).toBeCloseTo(dk0[j1] + dk0[row(1, 0, 1)] + dk0[row(2, 0, 1)] + dk0[row(3, 0, 1)] + dk0[row(4, 0, 1)], 5);
      expect(dkWant[row(3, 0, 3)]).toBeCloseTo(dk0[row(3, 0, 3)] + dk0[row(4, 0, 3)], 6);
      expect(dkWant[row(3, 0, 1)]).toBe(dk0[row(3, 0, 1)]);
      expect(maxAbsDiff(dkWant.subarray(row(1, 0, 0), row(3, 0, 0)), dk0.subarray(row(1, 0, 0), row(3, 0, 0)))).toBe(0);   // sharers keep theirs
      console.log(`kv_share KVH=${KVH} HS=${HS}: copy maxdiff=${dCopy}, sum maxdiff=${dSum}`);
      expect(dCopy).toBe(0);
      expect(dSum).toBe(0);
      rt.release(table, k, v);
    }
  });

  it('refuses a head size not divisible by 4, a short buffer or table, and a shared count past Tmax', async () => {
    const rt = await nodeRuntime();
    const op = await KvShare.create(rt);
    const s = { B: 2, KVH: 1, Tmax: 4, HS: 4 };
    const k = rt.storage(48 * 4, 'K'), v = rt.storage(48 * 4, 'V'), table = rt.storage(16, 'table'), short = rt.storage(16 * 4, 'short');
    expect(() => op.copy(k, v, { table, maxN: 2 }, { ...s, HS: 6 })).toThrow(/HS divisible by 4/);
    expect(() => op.sum(k, short, { table, maxN: 2 }, s)).toThrow(ShapeError);
    expect(() => op.copy(k, v, { table, maxN: 5 }, s)).toThrow(/maxN in \[0, Tmax = 4\]/);
    expect(() => op.copy(k, v, { table, maxN: 1 }, { ...s, B: 3 })).toThrow(/share table of \[3, 2\]/);
    rt.release(k, v, table, short);
  });
});
