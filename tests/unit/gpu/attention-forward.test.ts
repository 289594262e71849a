// attention (shaders/attention.wgsl, both variants) fed by qkv_rope through the KV cache,
// against rope_forward + attention_forward per sequence, on Dawn: one-sequence prefill, three
// sequences of different lengths packed, decode steps of one token on uneven sequences, GQA and
// plain multi-head. Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Attention, ATTENTION_VARIANTS, PAIR_MIN_INVOCATIONS } from '../../../src/gpu/kernels/attention';
import { QkvRope } from '../../../src/gpu/kernels/rope';
import { KvCache } from '../../../src/gpu/kv-cache';
import { rope_forward } from '../../../src/reference/rope';
import { attention_forward } from '../../../src/reference/attention';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

interface Scenario {
  name: string;
  NH: number;
  KVH: number;
  HS: number;
  /** Per step, tokens appended by each sequence slot. */
  steps: number[][];
  /** Slots emptied (KvCache.reset) before the step of that index. */
  resets?: Record<number, number[]>;
}

const THETA = 10000;

const scenarios: Scenario[] = [
  { name: 'prefill T=7, one sequence', NH: 4, KVH: 2, HS: 16, steps: [[7]] },
  { name: 'prefill packed 3+8+5', NH: 4, KVH: 2, HS: 16, steps: [[3, 8, 5]] },
  { name: 'prefill then decode, uneven', NH: 4, KVH: 2, HS: 16, steps: [[3, 8, 5], [1, 1, 1], [1, 0, 1], [1, 1, 1], [2, 1, 0]] },
  { name: 'MHA NH=KVH, decode', NH: 2, KVH: 2, HS: 8, steps: [[4, 1], [1, 1], [1, 1]] },
  { name: 'GQA 14/2 HS=64 (Qwen heads)', NH: 14, KVH: 2, HS: 64, steps: [[5, 2], [1, 1]] },
  { name: 'long sequence over several key chunks', NH: 2, KVH: 1, HS: 8, steps: [[150], [1]] },
  { name: 'stories heads 8/4 HS=8, prefill then decode', NH: 8, KVH: 4, HS: 8, steps: [[6, 9, 1], [1, 1, 1], [1, 1, 0], [2, 1, 1]] },
  { name: 'GQA 8/2 HS=16, decode', NH: 8, KVH: 2, HS: 16, steps: [[5, 2, 7], [1, 1, 1], [1, 0, 1]] },
  { name: 'slot reset and reused', NH: 4, KVH: 1, HS: 12, steps: [[6, 4], [1, 1], [3, 1], [1, 1]], resets: { 2: [0] } },
];

/** Columns [c0, c0 + w) of each row of a row-major [M, F] matrix. */
function columns(x: Float32Array, M: number, F: number, c0: number, w: number): Float32Array {
  const out = new Float32Array(M * w);
  for (let m = 0; m < M; m++) out.set(x.subarray(m * F + c0, m * F + c0 + w), m * w);
  return out;
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

describe('attention over the KV cache', () => {
  for (const variant of ATTENTION_VARIANTS) {
    for (const sc of scenarios) {
      it(`${variant}: ${sc.name} (NH=${sc.NH} KVH=${sc.KVH} HS=${sc.HS})`, async () => {
        const rt = await nodeRuntime();
        const { NH, KVH, HS } = sc;
        const B = sc.steps[0].length, Tmax = 160, F = (NH + 2 * KVH) * HS;
        const cache = new KvCache(rt, { numLayers: 1, B, KVH, HS, Tmax });
        const rope = await QkvRope.create(rt, { NH, KVH, HS, theta: THETA, Tmax });
        const attn = await Attention.create(rt, { NH, KVH, HS, variant });
        // Host mirror: per sequence the rotated keys and the values seen so far, [T, KVH, HS].
        const kHist: Float32Array[][] = Array.from({ length: B }, () => []);
        const vHist: Float32Array[][] = Array.from({ length: B }, () => []);
        let worst = 0;
        for (const [si, newTokens] of sc.steps.entries()) {
          for (const slot of sc.resets?.[si] ?? []) {
            cache.reset(slot);
            kHist[slot] = [];
            vHist[slot] = [];
          }
          const step = cache.append(newTokens);
          const M = step.M;
          const QKV = randomArray(M * F, 100 * si + 17);
          const qkvb = rt.upload(QKV, 'QKV'), rowsb = rt.upload(step.rows, 'rows');
          const qb = rt.storage(M * NH * HS * 4, 'Q'), ob = rt.storage(M * NH * HS * 4, 'O');
          rope.run(qkvb, rowsb, qb, cache, 0, M);
          attn.run(qb, rowsb, cache, 0, ob, M);
          const got = await rt.readF32(ob, M * NH * HS);
          rt.release(qkvb, rowsb, qb, ob);

          const expected = new Float32Array(M * NH * HS);
          let r0 = 0;
          for (let s = 0; s < B; s++) {
            const n = newTokens[s];
            if (n === 0) continue;
            const p0 = step.rows[2 * r0 + 1];
            const pos = Array.from({ length: n }, (_, i) => p0 + i);
            const rowsOf = QKV.subarray(r0 * F, (r0 + n) * F);
            const q = rope_forward(columns(rowsOf, n, F, 0, NH * HS), pos, n, NH, HS, THETA);
            kHist[s].push(rope_forward(columns(rowsOf, n, F, NH * HS, KVH * HS), pos, n, KVH, HS, THETA));
            vHist[s].push(columns(rowsOf, n, F, (NH + KVH) * HS, KVH * HS));
            const Tk = p0 + n;
            expected.set(attention_forward(q, concat(kHist[s]), concat(vHist[s]), n, Tk, NH, KVH, HS, p0), r0 * NH * HS);
            r0 += n;
          }
          const d = maxAbsDiff(got, expected);
          worst = Math.max(worst, d);
          console.log(`attention ${variant} ${sc.name} step ${si} M=${M} maxdiff=${d.toExponential(2)}`);
        }
        expect(worst).toBeLessThan(1e-5);
        rope.destroy();
        cache.free();
      });
    }
  }

  // attn_thread_hs{8,16}_h2 (two query heads of one kv head per invocation) against the one-head
  // forms on the same cache: each head takes the same steps, so O must match bit for bit. Steps
  // with fewer than PAIR_MIN_INVOCATIONS head pairs run the one-head form.
  for (const [NH, KVH, HS] of [[4, 2, 16], [8, 4, 8], [8, 2, 16]]) {
    it(`two heads per invocation equal the one-head form bit for bit (NH=${NH} KVH=${KVH} HS=${HS})`, async () => {
      const rt = await nodeRuntime();
      const B = 4, Tmax = 64;
      const cache = new KvCache(rt, { numLayers: 1, B, KVH, HS, Tmax });
      const paired = await Attention.create(rt, { NH, KVH, HS, variant: 'thread' });
      const single = await Attention.create(rt, { NH, KVH, HS, variant: 'thread', pairHeads: false });
      rt.write(cache.k[0], randomArray(cache.layerBytes / 4, 5));
      rt.write(cache.v[0], randomArray(cache.layerBytes / 4, 6));
      // a prefill of uneven lengths (odd ones end on a single key), decode rows, one lone row
      const steps = [[13, 2, 30, 7], [1, 1, 1, 1], [2, 1, 0, 1], [0, 1, 0, 0]];
      let pairedSteps = 0;
      for (const [si, tokens] of steps.entries()) {
        const step = cache.append(tokens);
        const M = step.M;
        const heads = paired.headsPerInvocation(M);
        expect(heads).toBe(M * NH / 2 >= PAIR_MIN_INVOCATIONS ? 2 : 1);
        expect(single.headsPerInvocation(M)).toBe(1);
        if (heads === 2) pairedSteps++;
        const q = rt.upload(randomArray(M * NH * HS, 40 + si), 'Q'), rows = rt.upload(step.rows, 'rows');
        const oa = rt.storage(M * NH * HS * 4, 'O paired'), ob = rt.storage(M * NH * HS * 4, 'O single');
        paired.run(q, rows, cache, 0, oa, M);
        single.run(q, rows, cache, 0, ob, M);
        const [a, b] = [await rt.readF32(oa, M * NH * HS), await rt.readF32(ob, M * NH * HS)];
        console.log(`attention ${heads} vs 1 heads per invocation, NH=${NH} KVH=${KVH} HS=${HS} step ${si} M=${M}: maxdiff=${maxAbsDiff(a, b).toExponential(2)}`);
        expect(Array.from(a)).toEqual(Array.from(b));
        rt.release(q, rows, oa, ob);
      }
      expect(pairedSteps).toBeGreaterThanOrEqual(3);
      cache.free();
    });
  }

  it('rejects wrong shapes with the op name and the expected shape', async () => {
    const rt = await nodeRuntime();
    const cache = new KvCache(rt, { numLayers: 1, B: 1, KVH: 2, HS: 8, Tmax: 8 });
    const attn = await Attention.create(rt, { NH: 4, KVH: 2, HS: 8, variant: 'thread' });
    const q = rt.storage(16, 'Q'), rows = rt.storage(16, 'rows'), o = rt.storage(2 * 32 * 4, 'O');
    expect(() => attn.run(q, rows, cache, 0, o, 2)).toThrow(/attention: expected Q of \[2, 4, 8\]/);
    await expect(Attention.create(rt, { NH: 4, KVH: 2, HS: 6, variant: 'thread' })).rejects.toThrow(ShapeError);
    await expect(Attention.create(rt, { NH: 4, KVH: 2, HS: 64, variant: 'wg', wg: 8 })).rejects.toThrow(/power of two >= HS\/4/);
    rt.release(q, rows, o);
    cache.free();
  });
});
