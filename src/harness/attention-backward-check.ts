// The training attention's backward in the browser against its CPU twin (attention_backward per
// sequence): the 16 x 16 tile kernels at heads of 64 (the slot-table training forward in named
// registers) from the scores the forward kept, and at 128 (the generic row kernel) recomputing
// them (each form once: on SwiftShader the HS = 64 forward compiles in about 9 s per form, and Node
// runs both forms at 32, 48, 64 and 128); at heads of 16 the kept-P/dS dQ kernel and the sixteen-key dK/dV tile; at
// heads of 8 (stories260K) the fused dK/dV/dQ-partial kernel and its reduction. Packed sequences
// of 21 and 7 tokens in a cache of 24 (two key groups of sixteen). Used by
// src/harness/attention-kernels.harness.ts (tests/e2e/attention-kernels.spec.ts); Node runs the
// same kernels in tests/unit/gpu/attention-backward.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import { KvCache } from '../gpu/kv-cache';
import { Attention, scorePlaneBytes } from '../gpu/kernels/attention';
import { AttentionBackward, sequenceTable } from '../gpu/kernels/attention-backward';
import { randomArray } from '../gpu/selftest';
import { attention_backward } from '../reference/attention';
import { maxAbsDiff } from '../reference/matmul';

/** The tile forms each head size runs here: kept scores at 64, recomputed at 128. */
const KEEP_SCORES: Record<number, boolean> = { 64: true, 128: false };

/** Max difference of dQ, dK and dV from the reference, per head size and form ('64 tiled-scores', '16 kept', ...). */
export async function checkAttentionBackward(r: GpuRuntime): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const lengths = [21, 7], B = lengths.length, Tmax = 24, NH = 4, KVH = 2;
  for (const HS of [64, 128, 16, 8]) {
    const cache = new KvCache(r, { numLayers: 1, B, KVH, HS, Tmax });
    const step = cache.append(lengths);
    const M = step.M, act = M * NH * HS;
    const K = randomArray(cache.layerBytes / 4, 51 + HS), V = randomArray(cache.layerBytes / 4, 52 + HS);
    const Q = randomArray(act, 53 + HS).map((x) => 2 * x), dO = randomArray(act, 54 + HS);
    r.write(cache.k[0], K);
    r.write(cache.v[0], V);
    const rows = r.upload(step.rows, 'rows'), seqs = r.upload(sequenceTable(step.rows, B), 'seqs');
    const qb = r.upload(Q, 'Q'), dOb = r.upload(dO, 'dO'), ob = r.storage(act * 4, 'O'), lse = r.storage(M * NH * 4, 'LSE');
    const S = r.storage(scorePlaneBytes(B, NH, Tmax), 'scores');
    const dQ = r.storage(act * 4, 'dQ'), dK = r.storage(cache.layerBytes, 'dK'), dV = r.storage(cache.layerBytes, 'dV');
    const attn = await Attention.create(r, { NH, KVH, HS, variant: 'thread', lse: true });
    // psMinRows 0: the kept-P/dS form at HS = 16 and the fused one at 8 for these 28 rows (by default from 256).
    const bwd = await AttentionBackward.create(r, { NH, KVH, HS, variant: 'thread', maxRows: M, psMinRows: 0 });
    const ref = reference(lengths, Tmax, NH, KVH, HS, Q, K, V, dO);
    for (const keep of attn.keepsScores ? [KEEP_SCORES[HS] ?? true] : [false]) {
      attn.run(qb, rows, cache, 0, ob, M, lse, seqs, keep ? S : undefined);
      bwd.run({ Q: qb, O: ob, dO: dOb, LSE: lse, rows, seqs, cache, layer: 0, M, dQ, dK, dV, ...(keep ? { S } : {}) });
      const got = [await r.readF32(dQ, act), await r.readF32(dK, cache.layerBytes / 4), await r.readF32(dV, cache.layerBytes / 4)];
      out[`${HS} ${bwd.form}`] = Math.max(...got.map((g, i) => maxAbsDiff(g, ref[i])));
    }
    bwd.destroy();
    r.release(rows, seqs, qb, dOb, ob, lse, S, dQ, dK, dV);
    cache.free();
  }
  return out;
}

/** dQ [M, NH, HS] and dK, dV in the cache layout [B, KVH, Tmax, HS] (0 past each length). */
function reference(lengths: number[], Tmax: number, NH: number, KVH: number, HS: number,
  Q: Float32Array, K: Float32Array, V: Float32Array, dO: Float32Array): Float32Array[] {
  const dQ = new Float32Array(Q.length), dK = new Float32Array(K.length), dV = new Float32Array(V.length);
  let r0 = 0;
  lengths.forEach((T, s) => {
    // The slot's keys and values as [T, KVH, HS] rows.
    const k = new Float32Array(T * KVH * HS), v = new Float32Array(T * KVH * HS);
    const at = (j: number, h: number) => ((s * KVH + h) * Tmax + j) * HS;
    for (let j = 0; j < T; j++) {
      for (let h = 0; h < KVH; h++) {
        k.set(K.subarray(at(j, h), at(j, h) + HS), (j * KVH + h) * HS);
        v.set(V.subarray(at(j, h), at(j, h) + HS), (j * KVH + h) * HS);
      }
    }
    const rowsOf = (x: Float32Array) => x.subarray(r0 * NH * HS, (r0 + T) * NH * HS);
    const g = attention_backward(rowsOf(dO), rowsOf(Q), k, v, T, T, NH, KVH, HS, 0);
    dQ.set(g.dq, r0 * NH * HS);
    for (let j = 0; j < T; j++) {
      for (let h = 0; h < KVH; h++) {
        dK.set(g.dk.subarray((j * KVH + h) * HS, (j * KVH + h + 1) * HS), at(j, h));
        dV.set(g.dv.subarray((j * KVH + h) * HS, (j * KVH + h + 1) * HS), at(j, h));
      }
    }
    r0 += T;
  });
  return [dQ, dK, dV];
}
