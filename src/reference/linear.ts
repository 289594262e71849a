// CPU reference for a linear layer with optional bias, and for the LoRA delta added to it
// (PEFT: y = base(x) + scale * B(A(x)), base includes the bias). Plain loops, twins of the WGSL
// linear/LoRA kernels, with their backwards. Exercised by tests/unit/reference/reference-ops.test.ts,
// reference-model.test.ts and (backwards, finite differences) reference-bwd-ops.test.ts.
import { matmul_backward, matmul_forward } from './matmul';

// M = rows (tokens), K = in features, N = out features, R = LoRA rank
// X [M, K], W [N, K] (row-major [out, in]), bias [N] or null -> Y [M, N]
/** Y = X W^T + bias. */
export function linear_forward(X: Float32Array, W: Float32Array, bias: Float32Array | null, M: number, K: number, N: number): Float32Array {
  if (X.length !== M * K) throw new Error(`linear_forward: X has ${X.length} values, expected [M, K] = [${M}, ${K}]`);
  if (W.length !== N * K) throw new Error(`linear_forward: W has ${W.length} values, expected [N, K] = [${N}, ${K}]`);
  if (bias && bias.length !== N) throw new Error(`linear_forward: bias has ${bias.length} values, expected [N] = [${N}]`);
  const Y = matmul_forward(X, W, M, K, N);
  if (bias) for (let m = 0; m < M; m++) for (let n = 0; n < N; n++) Y[m * N + n] += bias[n];
  return Y;
}

// X [M, K], A [R, K], B [N, R] -> delta [M, N]
/** delta = scale * (X A^T) B^T; the caller adds it to the base layer output. */
export function lora_forward(X: Float32Array, A: Float32Array, B: Float32Array, scale: number, M: number, K: number, N: number, R: number): Float32Array {
  if (A.length !== R * K) throw new Error(`lora_forward: A has ${A.length} values, expected [R, K] = [${R}, ${K}]`);
  if (B.length !== N * R) throw new Error(`lora_forward: B has ${B.length} values, expected [N, R] = [${N}, ${R}]`);
  const XA = matmul_forward(X, A, M, K, R); // [M, R]
  const delta = matmul_forward(XA, B, M, R, N); // [M, N]
  for (let i = 0; i < delta.length; i++) delta[i] *= scale;
  return delta;
}

// dY [M, N], X [M, K], W [N, K], bias [N] or null -> dX [M, K]; dW [N, K], dbias [N] or null
// Write contract: dX is a new array (=); dW and dbias accumulate (+=). Pass null for frozen ones.
/** Backward of linear_forward: dX = dY W, dW += dY^T X, dbias += column sums of dY. */
export function linear_backward(
  dY: Float32Array, X: Float32Array, W: Float32Array, bias: Float32Array | null, M: number, K: number, N: number,
  dW: Float32Array | null, dbias: Float32Array | null,
): Float32Array {
  if (dbias && (!bias || dbias.length !== N)) throw new Error(`linear_backward: dbias needs a bias and [N] = [${N}] values, got ${dbias.length}`);
  const dX = matmul_backward(dY, X, W, M, K, N, dW);
  if (dbias) {
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let m = 0; m < M; m++) s += dY[m * N + n];
      dbias[n] += s;
    }
  }
  return dX;
}

// dDelta [M, N], X [M, K], A [R, K], B [N, R] -> dX [M, K] (the LoRA path's share only);
// dA [R, K], dB [N, R] or null. With XA = X A^T [M, R]:
//   dB += scale dDelta^T XA,   dXA = scale dDelta B,   dA += dXA^T X,   dX = dXA A
// Write contract: dX is a new array (=), the caller adds it to the base layer's dX; dA, dB (+=).
/** Backward of lora_forward. */
export function lora_backward(
  dDelta: Float32Array, X: Float32Array, A: Float32Array, B: Float32Array, scale: number, M: number, K: number, N: number, R: number,
  dA: Float32Array | null, dB: Float32Array | null,
): Float32Array {
  if (A.length !== R * K) throw new Error(`lora_backward: A has ${A.length} values, expected [R, K] = [${R}, ${K}]`);
  if (B.length !== N * R) throw new Error(`lora_backward: B has ${B.length} values, expected [N, R] = [${N}, ${R}]`);
  const XA = matmul_forward(X, A, M, K, R); // [M, R]
  const dScaled = new Float32Array(dDelta.length);
  for (let i = 0; i < dDelta.length; i++) dScaled[i] = dDelta[i] * scale;
  const dXA = matmul_backward(dScaled, XA, B, M, R, N, dB); // [M, R]; dB += scale dDelta^T XA
  return matmul_backward(dXA, X, A, M, K, R, dA); // [M, K]; dA += dXA^T X
}
