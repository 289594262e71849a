// qkv_rope (shaders/rope.wgsl) against rope_forward + a scatter into [B, KVH, Tmax, HS], on
// Dawn: rows of three sequences packed in one dispatch, cache slots the rows do not name must
// keep their old contents. Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { QkvRope } from '../../../src/gpu/kernels/rope';
import { KvCache } from '../../../src/gpu/kv-cache';
import { rope_forward } from '../../../src/reference/rope';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

/** Columns [c0, c0 + w) of a row-major [M, F] matrix. */
function columns(x: Float32Array, M: number, F: number, c0: number, w: number): Float32Array {
  const out = new Float32Array(M * w);
  for (let m = 0; m < M; m++) out.set(x.subarray(m * F + c0, m * F + c0 + w), m * w);
  return out;
}

const cases = [
  { NH: 4, KVH: 2, HS: 8, theta: 10000, lengths: [3, 8, 5], prior: [0, 4, 2] },
  { NH: 2, KVH: 2, HS: 16, theta: 1e6, lengths: [7], prior: [40] },
  { NH: 14, KVH: 2, HS: 64, theta: 1e6, lengths: [2, 1], prior: [100, 0] },
  { NH: 2, KVH: 1, HS: 12, theta: 10000, lengths: [3, 2], prior: [5, 0] },   // HS % 8 != 0: one pair per invocation (qkv_rope); the others qkv_rope4
];

describe('qkv_rope', () => {
  for (const { NH, KVH, HS, theta, lengths, prior } of cases) {
    it(`NH=${NH} KVH=${KVH} HS=${HS} lengths ${lengths} after ${prior}`, async () => {
      const rt = await nodeRuntime();
      const B = lengths.length, Tmax = 128, F = (NH + 2 * KVH) * HS;
      const cache = new KvCache(rt, { numLayers: 2, B, KVH, HS, Tmax });
      const cacheElems = B * KVH * Tmax * HS;
      const sentinelK = randomArray(cacheElems, 5), sentinelV = randomArray(cacheElems, 6);
      rt.write(cache.k[1], sentinelK);
      rt.write(cache.v[1], sentinelV);
      cache.append(prior);
      const step = cache.append(lengths);
      const M = step.M;
      const QKV = randomArray(M * F, 3 + HS);
      const rope = await QkvRope.create(rt, { NH, KVH, HS, theta, Tmax });
      const qkvb = rt.upload(QKV, 'QKV'), rowsb = rt.upload(step.rows, 'rows'), qb = rt.storage(M * NH * HS * 4, 'Q');
      rope.run(qkvb, rowsb, qb, cache, 1, M);
      const q = await rt.readF32(qb, M * NH * HS);
      const K = await rt.readF32(cache.k[1], cacheElems), V = await rt.readF32(cache.v[1], cacheElems);

      const pos = Array.from({ length: M }, (_, r) => step.rows[2 * r + 1]);
      const qRef = rope_forward(columns(QKV, M, F, 0, NH * HS), pos, M, NH, HS, theta);
      const kRef = rope_forward(columns(QKV, M, F, NH * HS, KVH * HS), pos, M, KVH, HS, theta);
      const vRef = columns(QKV, M, F, (NH + KVH) * HS, KVH * HS);
      const expK = sentinelK.slice(), expV = sentinelV.slice();
      for (let r = 0; r < M; r++) {
        const s = step.rows[2 * r], p = step.rows[2 * r + 1];
        for (let h = 0; h < KVH; h++) {
          const dst = ((s * KVH + h) * Tmax + p) * HS, src = (r * KVH + h) * HS;
          expK.set(kRef.subarray(src, src + HS), dst);
          expV.set(vRef.subarray(src, src + HS), dst);
        }
      }
      const dq = maxAbsDiff(q, qRef), dk = maxAbsDiff(K, expK), dv = maxAbsDiff(V, expV);
      console.log(`qkv_rope NH=${NH} KVH=${KVH} HS=${HS} M=${M} maxdiff q=${dq.toExponential(2)} k=${dk.toExponential(2)} v=${dv.toExponential(2)}`);
      expect(dq).toBeLessThan(1e-5);
      expect(dk).toBeLessThan(1e-5);
      expect(dv).toBe(0);
      rt.release(qkvb, rowsb, qb);
      rope.destroy();
      cache.free();
    });
  }

  it('rejects wrong shapes with the op name and the expected shape', async () => {
    const rt = await nodeRuntime();
    const cache = new KvCache(rt, { numLayers: 1, B: 2, KVH: 2, HS: 8, Tmax: 16 });
    const rope = await QkvRope.create(rt, { NH: 4, KVH: 2, HS: 8, theta: 10000, Tmax: 16 });
    const small = rt.storage(16, 'small'), rows = rt.storage(64, 'rows'), q = rt.storage(4 * 4 * 8 * 4, 'Q');
    expect(() => rope.run(small, rows, q, cache, 0, 4)).toThrow(/qkv_rope: expected QKV of \[4, 64\]/);
    expect(() => rope.run(small, rows, q, cache, 3, 4)).toThrow(ShapeError);
    expect(() => cache.append([17, 0])).toThrow(/at most Tmax = 16/);
    await expect(QkvRope.create(rt, { NH: 3, KVH: 2, HS: 8, theta: 1, Tmax: 4 })).rejects.toThrow(/NH a multiple of KVH/);
    rt.release(small, rows, q);
    rope.destroy();
    cache.free();
  });
});
