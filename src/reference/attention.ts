// CPU reference for causal grouped-query attention (softmax(q k^T / sqrt(HS)) v), the twin of
// the WGSL attention kernel. Plain loops. Exercised by tests/unit/reference-ops.test.ts.

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
