// Shared setup of the attention-side backward tests: one packed training batch of the attention block on the GPU
// (qkv_rope -> attention with LSE -> attention backward -> qkv_rope_backward) and the same
// chain on the CPU twins per sequence (rope_forward, attention_forward/backward, rope_backward).
// Used by tests/unit/gpu/attention-backward.test.ts and rope-backward.test.ts.
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { KvCache } from '../../../src/gpu/kv-cache';
import { QkvRope } from '../../../src/gpu/kernels/rope';
import { Attention, scorePlaneBytes, type AttentionOptions, type AttentionVariant } from '../../../src/gpu/kernels/attention';
import { AttentionBackward, sequenceTable, type AttentionBackwardForm, type AttentionBackwardOptions } from '../../../src/gpu/kernels/attention-backward';
import { QkvRopeBackward } from '../../../src/gpu/kernels/rope-backward';
import { rope_backward, rope_forward } from '../../../src/reference/rope';
import { attention_backward, attention_forward } from '../../../src/reference/attention';
import { randomArray } from '../../../src/gpu/selftest';

export interface AttnCase {
  NH: number;
  KVH: number;
  HS: number;
  /** Tokens per sequence slot (0 = an unused slot). */
  lengths: number[];
  Tmax: number;
  theta: number;
}

/** One tensor set, GPU or CPU, in the engine's layouts. */
export interface AttnGrads {
  O: Float32Array;
  LSE: Float32Array;
  dQ: Float32Array;
  /** [B, KVH, Tmax, HS] */
  dK: Float32Array;
  dV: Float32Array;
  /** [M, (NH + 2 KVH) HS] */
  dQKV: Float32Array;
}

/** Columns [c0, c0 + w) of each row of a row-major [M, F] matrix. */
export function columns(x: Float32Array, M: number, F: number, c0: number, w: number): Float32Array {
  const out = new Float32Array(M * w);
  for (let m = 0; m < M; m++) out.set(x.subarray(m * F + c0, m * F + c0 + w), m * w);
  return out;
}

/** log sum_j exp(scale q_i . k_j) over keys j <= i, per (row, head): [T, NH]. */
function lseRef(q: Float32Array, k: Float32Array, T: number, NH: number, KVH: number, HS: number): Float32Array {
  const out = new Float32Array(T * NH);
  const scale = 1 / Math.sqrt(HS);
  for (let i = 0; i < T; i++) {
    for (let h = 0; h < NH; h++) {
      const kh = Math.floor(h / (NH / KVH));
      const s: number[] = [];
      for (let j = 0; j <= i; j++) {
        let d = 0;
        for (let e = 0; e < HS; e++) d += q[(i * NH + h) * HS + e] * k[(j * KVH + kh) * HS + e];
        s.push(d * scale);
      }
      const mx = Math.max(...s);
      out[i * NH + h] = mx + Math.log(s.reduce((a, x) => a + Math.exp(x - mx), 0));
    }
  }
  return out;
}

/** The CPU chain per sequence, laid out as the GPU writes it. */
export function referenceGrads(c: AttnCase, QKV: Float32Array, dO: Float32Array): AttnGrads {
  const { NH, KVH, HS, lengths, Tmax, theta } = c;
  const B = lengths.length, F = (NH + 2 * KVH) * HS, M = lengths.reduce((a, b) => a + b, 0);
  const g: AttnGrads = {
    O: new Float32Array(M * NH * HS), LSE: new Float32Array(M * NH), dQ: new Float32Array(M * NH * HS),
    dK: new Float32Array(B * KVH * Tmax * HS), dV: new Float32Array(B * KVH * Tmax * HS), dQKV: new Float32Array(M * F),
  };
  let r0 = 0;
  for (let s = 0; s < B; s++) {
    const T = lengths[s];
    if (T === 0) continue;
    const pos = Array.from({ length: T }, (_, i) => i);
    const rowsOf = QKV.subarray(r0 * F, (r0 + T) * F);
    const q = rope_forward(columns(rowsOf, T, F, 0, NH * HS), pos, T, NH, HS, theta);
    const k = rope_forward(columns(rowsOf, T, F, NH * HS, KVH * HS), pos, T, KVH, HS, theta);
    const v = columns(rowsOf, T, F, (NH + KVH) * HS, KVH * HS);
    const dOs = dO.subarray(r0 * NH * HS, (r0 + T) * NH * HS);
    g.O.set(attention_forward(q, k, v, T, T, NH, KVH, HS, 0), r0 * NH * HS);
    g.LSE.set(lseRef(q, k, T, NH, KVH, HS), r0 * NH);
    const { dq, dk, dv } = attention_backward(dOs, q, k, v, T, T, NH, KVH, HS, 0);
    g.dQ.set(dq, r0 * NH * HS);
    for (let j = 0; j < T; j++) {
      for (let kh = 0; kh < KVH; kh++) {
        const dst = ((s * KVH + kh) * Tmax + j) * HS, src = (j * KVH + kh) * HS;
        g.dK.set(dk.subarray(src, src + HS), dst);
        g.dV.set(dv.subarray(src, src + HS), dst);
      }
    }
    const dqx = rope_backward(dq, pos, T, NH, HS, theta), dkx = rope_backward(dk, pos, T, KVH, HS, theta);
    for (let i = 0; i < T; i++) {
      const o = (r0 + i) * F;
      g.dQKV.set(dqx.subarray(i * NH * HS, (i + 1) * NH * HS), o);
      g.dQKV.set(dkx.subarray(i * KVH * HS, (i + 1) * KVH * HS), o + NH * HS);
      g.dQKV.set(dv.subarray(i * KVH * HS, (i + 1) * KVH * HS), o + (NH + KVH) * HS);
    }
    r0 += T;
  }
  return g;
}

/** Random inputs of a case: QKV [M, F] (scaled so softmaxes are not flat) and dO [M, NH HS]. */
export function caseInputs(c: AttnCase, seed: number): { QKV: Float32Array; dO: Float32Array } {
  const M = c.lengths.reduce((a, b) => a + b, 0), F = (c.NH + 2 * c.KVH) * c.HS;
  return { QKV: randomArray(M * F, seed).map((x) => 2 * x), dO: randomArray(M * c.NH * c.HS, seed + 1) };
}

/**
 * The GPU chain; dK/dV start as garbage to check they are fully overwritten. `packed`: the
 * forward also gets the slot table (the training form, attn_train_hs8_lse at HS = 8).
 */
/**
 * `form` goes to AttentionBackward (psBudgetBytes 0: the recomputing dK/dV kernels); `keptScores`
 * in the result says which ran. The size thresholds (psMinRows, sixteenMinRows) default to 0 here,
 * so that these small cases run the wide forms; pass them to test the defaults. `reuse`: run this (caller-owned) instance instead of a new one,
 * so its P/dS scratch holds what an earlier call left there. `starts`: per slot, the query
 * positions the kernels skip (sequenceTable); `poisonO`: O starts as NaN (rows the forward skips
 * stay NaN). `keepScores`: the forward keeps its
 * scores in a plane (filled with NaN first: cells it does not write must never reach a result)
 * that the backward reads; `S` in the result is that plane.
 */
export async function gpuGrads(rt: GpuRuntime, c: AttnCase, variant: AttentionVariant, QKV: Float32Array, dO: Float32Array, packed = false,
  form: Pick<AttentionBackwardOptions, 'psBudgetBytes' | 'dkvKeys' | 'dqQueries' | 'foldStats' | 'fused' | 'tiled' | 'psMinRows'> & Pick<AttentionOptions, 'trainPositions' | 'sixteenMinRows'> & { keepScores?: boolean; starts?: number[]; poisonO?: boolean } = {},
  reuse?: AttentionBackward): Promise<AttnGrads & { keptScores: boolean; form: AttentionBackwardForm; dkvKeys: number; dqQueries: number; statsFolded: boolean;
    dispatches: number; trainPositions: number; S: Float32Array | null }> {
  const { NH, KVH, HS, lengths, Tmax, theta } = c;
  const B = lengths.length, F = (NH + 2 * KVH) * HS;
  const cache = new KvCache(rt, { numLayers: 1, B, KVH, HS, Tmax });
  const step = cache.append(lengths);
  const M = step.M;
  const rope = await QkvRope.create(rt, { NH, KVH, HS, theta, Tmax });
  const ropeB = await QkvRopeBackward.create(rt, { NH, KVH, HS, theta, Tmax });
  const { trainPositions, sixteenMinRows = 0, keepScores = false, starts, poisonO = false, ...bwdForm } = form;
  const attn = await Attention.create(rt, { NH, KVH, HS, variant, lse: true, sixteenMinRows, ...(trainPositions ? { trainPositions } : {}) });
  const bwd = reuse ?? await AttentionBackward.create(rt, { NH, KVH, HS, variant, maxRows: M, psMinRows: 0, ...bwdForm });
  const act = M * NH * HS * 4;
  const qkvb = rt.upload(QKV, 'QKV'), rows = rt.upload(step.rows, 'rows'), seqs = rt.upload(sequenceTable(step.rows, B, starts), 'seqs');
  const Q = rt.storage(act, 'Q'), O = poisonO ? rt.upload(new Float32Array(act / 4).fill(NaN), 'O') : rt.storage(act, 'O'), LSE = rt.storage(M * NH * 4, 'LSE');
  const dOb = rt.upload(dO, 'dO'), dQ = rt.storage(act, 'dQ'), dQKV = rt.storage(M * F * 4, 'dQKV');
  const dK = rt.upload(randomArray(cache.layerBytes / 4, 77), 'dK'), dV = rt.upload(randomArray(cache.layerBytes / 4, 78), 'dV');
  rope.run(qkvb, rows, Q, cache, 0, M);
  const sBytes = scorePlaneBytes(B, NH, Tmax);
  const S = keepScores ? rt.upload(new Float32Array(sBytes / 4).fill(NaN), 'scores') : null;
  attn.run(Q, rows, cache, 0, O, M, LSE, packed ? seqs : undefined, S ?? undefined);
  const before = rt.dispatchCount;
  bwd.run({ Q, O, dO: dOb, LSE, rows, seqs, cache, layer: 0, M, dQ, dK, dV, ...(S ? { S } : {}) });
  const dispatches = rt.dispatchCount - before;
  ropeB.run(dQ, rows, dK, dV, cache.cfg, dQKV, M);
  const n = cache.layerBytes / 4;
  const out = {
    keptScores: bwd.keptScores,
    form: bwd.form,
    dkvKeys: bwd.dkvKeysPerInvocation,
    dqQueries: bwd.dqQueriesPerInvocation,
    statsFolded: bwd.statsFolded,
    dispatches,
    trainPositions: attn.lastTrainPositions,
    O: await rt.readF32(O, M * NH * HS), LSE: await rt.readF32(LSE, M * NH), dQ: await rt.readF32(dQ, M * NH * HS),
    dK: await rt.readF32(dK, n), dV: await rt.readF32(dV, n), dQKV: await rt.readF32(dQKV, M * F),
    S: S ? await rt.readF32(S, sBytes / 4) : null,
  };
  rt.release(qkvb, rows, seqs, Q, O, LSE, dOb, dQ, dQKV, dK, dV);
  if (S) rt.release(S);
  rope.destroy();
  ropeB.destroy();
  if (!reuse) bwd.destroy();
  cache.free();
  return out;
}
