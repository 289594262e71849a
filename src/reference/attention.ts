// CPU reference for causal grouped-query attention (softmax(q k^T / sqrt(HS)) v), the twin of
// the WGSL attention kernel, and its backward. Plain loops. Exercised by
// tests/unit/reference/reference-ops.test.ts and (backward, finite differences) reference-bwd-ops.test.ts.

// Tq = query tokens, Tk = key tokens, NH = query heads, KVH = kv heads, HS = head size
// q [Tq, NH, HS], k [Tk, KVH, HS], v [Tk, KVH, HS] -> out [Tq, NH * HS]
// Causal: query i sits at absolute position qPos0 + i and sees keys j <= qPos0 + i (keys start at 0).
// GQA: query head h reads kv head floor(h / (NH / KVH)).
/** Scaled dot-product attention with a causal mask and shared kv heads. */
export function attention_forward(
  q: Float32Array, k: Float32Array, v: Float32Array,
  Tq: number, Tk: number, NH: number, KVH: number, HS: number, qPos0: number,
): Float32Array {
  if (q.length !== Tq * NH * HS) throw new Error(`attention_forward: q has ${q.length} values, expected [Tq, NH, HS] = [${Tq}, ${NH}, ${HS}]`);
  if (k.length !== Tk * KVH * HS) throw new Error(`attention_forward: k has ${k.length} values, expected [Tk, KVH, HS] = [${Tk}, ${KVH}, ${HS}]`);
  if (v.length !== Tk * KVH * HS) throw new Error(`attention_forward: v has ${v.length} values, expected [Tk, KVH, HS] = [${Tk}, ${KVH}, ${HS}]`);
  if (NH % KVH !== 0) throw new Error(`attention_forward: NH = ${NH} must be a multiple of KVH = ${KVH}`);
  const group = NH / KVH;
  const scale = 1 / Math.sqrt(HS);
  const out = new Float32Array(Tq * NH * HS);
  const scores = new Float64Array(Tk);
  for (let i = 0; i < Tq; i++) {
    const last = Math.min(qPos0 + i, Tk - 1); // last visible key
    for (let h = 0; h < NH; h++) {
      const kvh = Math.floor(h / group);
      const qo = (i * NH + h) * HS;
      let max = -Infinity;
      for (let j = 0; j <= last; j++) {
        const ko = (j * KVH + kvh) * HS;
        let s = 0;
        for (let d = 0; d < HS; d++) s += q[qo + d] * k[ko + d];
        scores[j] = s * scale;
        if (scores[j] > max) max = scores[j];
      }
      let sum = 0;
      for (let j = 0; j <= last; j++) {
        scores[j] = Math.exp(scores[j] - max);
        sum += scores[j];
      }
      const oo = (i * NH + h) * HS;
      for (let d = 0; d < HS; d++) {
        let acc = 0;
        for (let j = 0; j <= last; j++) acc += scores[j] * v[(j * KVH + kvh) * HS + d];
        out[oo + d] = acc / sum;
      }
    }
  }
  return out;
}

// dout [Tq, NH * HS], q [Tq, NH, HS], k [Tk, KVH, HS], v [Tk, KVH, HS] -> dq, dk, dv (same shapes)
// Recomputes the probabilities P of the forward. Per query row and head, over visible keys j:
//   dP[j] = dout . v[j],   dS[j] = P[j] (dP[j] - sum_i P[i] dP[i]),
//   dq = scale sum_j dS[j] k[j],   dk[j] += scale dS[j] q,   dv[j] += P[j] dout
// Keys and values shared by a GQA group sum the gradients of all its query heads. Keys never
// seen by any query (j > qPos0 + Tq - 1) get zero.
// Write contract: dq, dk, dv are new arrays (=); the sums above are internal.
/** Backward of attention_forward. */
export function attention_backward(
  dout: Float32Array, q: Float32Array, k: Float32Array, v: Float32Array,
  Tq: number, Tk: number, NH: number, KVH: number, HS: number, qPos0: number,
): { dq: Float32Array; dk: Float32Array; dv: Float32Array } {
  if (dout.length !== Tq * NH * HS) throw new Error(`attention_backward: dout has ${dout.length} values, expected [Tq, NH * HS] = [${Tq}, ${NH * HS}]`);
  if (q.length !== Tq * NH * HS) throw new Error(`attention_backward: q has ${q.length} values, expected [Tq, NH, HS] = [${Tq}, ${NH}, ${HS}]`);
  if (k.length !== Tk * KVH * HS) throw new Error(`attention_backward: k has ${k.length} values, expected [Tk, KVH, HS] = [${Tk}, ${KVH}, ${HS}]`);
  if (v.length !== Tk * KVH * HS) throw new Error(`attention_backward: v has ${v.length} values, expected [Tk, KVH, HS] = [${Tk}, ${KVH}, ${HS}]`);
  if (NH % KVH !== 0) throw new Error(`attention_backward: NH = ${NH} must be a multiple of KVH = ${KVH}`);
  const group = NH / KVH;
  const scale = 1 / Math.sqrt(HS);
  // f64 accumulators for dk and dv, which sum over query rows and heads
  const dq = new Float32Array(q.length);
  const dk64 = new Float64Array(k.length);
  const dv64 = new Float64Array(v.length);
  const P = new Float64Array(Tk);
  const dP = new Float64Array(Tk);
  for (let i = 0; i < Tq; i++) {
    const last = Math.min(qPos0 + i, Tk - 1);
    for (let h = 0; h < NH; h++) {
      const kvh = Math.floor(h / group);
      const qo = (i * NH + h) * HS;
      let max = -Infinity;
      for (let j = 0; j <= last; j++) {
        const ko = (j * KVH + kvh) * HS;
        let s = 0;
        for (let d = 0; d < HS; d++) s += q[qo + d] * k[ko + d];
        P[j] = s * scale;
        if (P[j] > max) max = P[j];
      }
      let sum = 0;
      for (let j = 0; j <= last; j++) {
        P[j] = Math.exp(P[j] - max);
        sum += P[j];
      }
      let pdp = 0;
      for (let j = 0; j <= last; j++) {
        P[j] /= sum;
        const vo = (j * KVH + kvh) * HS;
        let s = 0;
        for (let d = 0; d < HS; d++) s += dout[qo + d] * v[vo + d];
        dP[j] = s;
        pdp += P[j] * s;
      }
      for (let d = 0; d < HS; d++) {
        let acc = 0;
        for (let j = 0; j <= last; j++) acc += P[j] * (dP[j] - pdp) * k[(j * KVH + kvh) * HS + d];
        dq[qo + d] = acc * scale;
      }
      for (let j = 0; j <= last; j++) {
        const o = (j * KVH + kvh) * HS;
        const dS = P[j] * (dP[j] - pdp) * scale;
        for (let d = 0; d < HS; d++) {
          dk64[o + d] += dS * q[qo + d];
          dv64[o + d] += P[j] * dout[qo + d];
        }
      }
    }
  }
  return { dq, dk: Float32Array.from(dk64), dv: Float32Array.from(dv64) };
}
