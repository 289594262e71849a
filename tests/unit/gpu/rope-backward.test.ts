// qkv_rope_backward (shaders/rope.wgsl) on Dawn: against rope_backward + a gather from the cache
// layout for rows at arbitrary (slot, position) (and a row outside the cache, whose k/v parts
// must be 0; HS 8 and 64 run qkv_rope_backward4, HS 12 the one-pair entry), then the whole
// attention block backward chain (qkv_rope -> attention -> attention
// backward -> qkv_rope_backward) against the CPU twins. Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { caseInputs, gpuGrads, referenceGrads, type AttnCase } from './backward-helpers';
import { QkvRopeBackward } from '../../../src/gpu/kernels/rope-backward';
import { rope_backward } from '../../../src/reference/rope';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

const cases = [
  { NH: 4, KVH: 2, HS: 8, theta: 10000, rows: [[0, 0], [0, 1], [2, 5], [1, 30], [2, 6]] },
  { NH: 14, KVH: 2, HS: 64, theta: 1e6, rows: [[1, 3], [0, 31], [2, 0], [3, 4]] }, // slot 3 >= B: outside
  { NH: 2, KVH: 1, HS: 12, theta: 10000, rows: [[0, 2], [1, 7], [3, 1]] },            // HS % 8 != 0: one pair per invocation
];

describe('qkv_rope_backward', () => {
  for (const { NH, KVH, HS, theta, rows } of cases) {
    it(`NH=${NH} KVH=${KVH} HS=${HS} rows ${rows.map((r) => `(${r})`).join(' ')}`, async () => {
      const rt = await nodeRuntime();
      const B = 3, Tmax = 32, M = rows.length, F = (NH + 2 * KVH) * HS, n = B * KVH * Tmax * HS;
      const dQ = randomArray(M * NH * HS, 1), dK = randomArray(n, 2), dV = randomArray(n, 3);
      const rowTab = Uint32Array.from(rows.flat());
      const rb = await QkvRopeBackward.create(rt, { NH, KVH, HS, theta, Tmax });
      const dqb = rt.upload(dQ, 'dQ'), rowsb = rt.upload(rowTab, 'rows'), dkb = rt.upload(dK, 'dK'), dvb = rt.upload(dV, 'dV');
      const out = rt.upload(randomArray(M * F, 4), 'dQKV');
      rb.run(dqb, rowsb, dkb, dvb, { B, KVH, HS, Tmax }, out, M);
      const got = await rt.readF32(out, M * F);

      // Twin: rope_backward of dQ and of the gathered dK rows; dV gathered as is.
      const pos = rows.map((r) => r[1]);
      const gk = new Float32Array(M * KVH * HS), gv = new Float32Array(M * KVH * HS);
      rows.forEach(([s, p], m) => {
        if (s >= B || p >= Tmax) return;
        for (let kh = 0; kh < KVH; kh++) {
          const src = ((s * KVH + kh) * Tmax + p) * HS;
          gk.set(dK.subarray(src, src + HS), (m * KVH + kh) * HS);
          gv.set(dV.subarray(src, src + HS), (m * KVH + kh) * HS);
        }
      });
      const dq = rope_backward(dQ, pos, M, NH, HS, theta), dk = rope_backward(gk, pos, M, KVH, HS, theta);
      const expected = new Float32Array(M * F);
      for (let m = 0; m < M; m++) {
        expected.set(dq.subarray(m * NH * HS, (m + 1) * NH * HS), m * F);
        expected.set(dk.subarray(m * KVH * HS, (m + 1) * KVH * HS), m * F + NH * HS);
        expected.set(gv.subarray(m * KVH * HS, (m + 1) * KVH * HS), m * F + (NH + KVH) * HS);
      }
      const d = maxAbsDiff(got, expected);
      console.log(`qkv_rope_backward NH=${NH} KVH=${KVH} HS=${HS} M=${M} maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThan(1e-6);
      rt.release(dqb, rowsb, dkb, dvb, out);
      rb.destroy();
    });
  }

  const chain: (AttnCase & { name: string })[] = [
    { name: 'GQA packed 5+9+1', NH: 4, KVH: 2, HS: 16, lengths: [5, 9, 1], Tmax: 10, theta: 10000 },
    { name: 'Qwen heads 14/2', NH: 14, KVH: 2, HS: 64, lengths: [4, 6], Tmax: 8, theta: 1e6 },
  ];
  for (const c of chain) {
    it(`attention block chain: ${c.name} -> dQKV`, async () => {
      const rt = await nodeRuntime();
      const { QKV, dO } = caseInputs(c, 5);
      const got = await gpuGrads(rt, c, 'thread', QKV, dO);
      const ref = referenceGrads(c, QKV, dO);
      const d = maxAbsDiff(got.dQKV, ref.dQKV);
      console.log(`attention block backward ${c.name} maxdiff dQKV=${d.toExponential(2)}`);
      expect(d).toBeLessThan(2e-5);
    });
  }

  it('rejects wrong shapes with the op name and the expected shape', async () => {
    const rt = await nodeRuntime();
    const rb = await QkvRopeBackward.create(rt, { NH: 4, KVH: 2, HS: 8, theta: 10000, Tmax: 16 });
    const g = { B: 2, KVH: 2, HS: 8, Tmax: 16 };
    const small = rt.storage(16, 'small'), big = rt.storage(2 * 2 * 16 * 8 * 4, 'big');
    expect(() => rb.run(big, big, big, big, g, small, 2)).toThrow(/qkv_rope_backward: expected dQKV of \[2, 64\]/);
    expect(() => rb.run(big, big, small, big, g, big, 2)).toThrow(/qkv_rope_backward: expected dK of \[2, 2, 16, 8\]/);
    expect(() => rb.run(big, big, big, big, { ...g, Tmax: 32 }, big, 2)).toThrow(ShapeError);
    rt.release(small, big);
    rb.destroy();
  });
});
