// CPU reference for rotary position embeddings, Hugging Face rotate_half convention: dimension i
// pairs with i + HS/2. Plain loops, the twin of the WGSL rope kernel.
// Exercised by tests/unit/reference/reference-ops.test.ts and, through model_forward, reference-model.test.ts;
// rope_backward by finite differences in reference-bwd-ops.test.ts.

// N = tokens, H = heads (NH or KVH), HS = head size (even)
// x [N, H, HS], pos [N] -> out [N, H, HS]
// inv_freq[i] = theta^(-2i/HS), angle = pos * inv_freq[i], for i < HS/2:
//   out[i]        = x[i] cos - x[i + HS/2] sin
//   out[i + HS/2] = x[i + HS/2] cos + x[i] sin
/** Rotates each head vector by its token's absolute position. */
export function rope_forward(x: Float32Array, pos: ArrayLike<number>, N: number, H: number, HS: number, theta: number): Float32Array {
  if (x.length !== N * H * HS) throw new Error(`rope_forward: x has ${x.length} values, expected [N, H, HS] = [${N}, ${H}, ${HS}]`);
  if (pos.length !== N) throw new Error(`rope_forward: pos has ${pos.length} values, expected [N] = [${N}]`);
  if (HS % 2 !== 0) throw new Error(`rope_forward: HS = ${HS} must be even`);
  const half = HS / 2;
  const out = new Float32Array(x.length);
  for (let n = 0; n < N; n++) {
    for (let i = 0; i < half; i++) {
      // HF computes inv_freq in f32, then the angle in f32: round the same way.
      const invFreq = Math.fround(1 / Math.pow(theta, (2 * i) / HS));
      const angle = Math.fround(pos[n] * invFreq);
      const cos = Math.cos(angle), sin = Math.sin(angle);
      for (let h = 0; h < H; h++) {
        const base = (n * H + h) * HS;
        const a = x[base + i], b = x[base + i + half];
        out[base + i] = a * cos - b * sin;
        out[base + i + half] = b * cos + a * sin;
      }
    }
  }
  return out;
}

// dout [N, H, HS], pos [N] -> dx [N, H, HS]
// The rotation is orthogonal, so the backward rotates by -angle:
//   dx[i] = dout[i] cos + dout[i + HS/2] sin,   dx[i + HS/2] = dout[i + HS/2] cos - dout[i] sin
// Write contract: dx is a new array (=).
/** Backward of rope_forward (same angles, f32-rounded as in the forward). */
export function rope_backward(dout: Float32Array, pos: ArrayLike<number>, N: number, H: number, HS: number, theta: number): Float32Array {
  if (dout.length !== N * H * HS) throw new Error(`rope_backward: dout has ${dout.length} values, expected [N, H, HS] = [${N}, ${H}, ${HS}]`);
  if (pos.length !== N) throw new Error(`rope_backward: pos has ${pos.length} values, expected [N] = [${N}]`);
  if (HS % 2 !== 0) throw new Error(`rope_backward: HS = ${HS} must be even`);
  const half = HS / 2;
  const dx = new Float32Array(dout.length);
  for (let n = 0; n < N; n++) {
    for (let i = 0; i < half; i++) {
      const invFreq = Math.fround(1 / Math.pow(theta, (2 * i) / HS));
      const angle = Math.fround(pos[n] * invFreq);
      const cos = Math.cos(angle), sin = Math.sin(angle);
      for (let h = 0; h < H; h++) {
        const base = (n * H + h) * HS;
        const da = dout[base + i], db = dout[base + i + half];
        dx[base + i] = da * cos + db * sin;
        dx[base + i + half] = db * cos - da * sin;
      }
    }
  }
  return dx;
}
