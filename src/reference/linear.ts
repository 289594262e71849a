// CPU reference for a linear layer with optional bias, and for the LoRA delta added to it
// (PEFT: y = base(x) + scale * B(A(x)), base includes the bias). Plain loops, twins of the WGSL
// linear/LoRA kernels. Exercised by tests/unit/reference-ops.test.ts and reference-model.test.ts.
import { matmul_forward } from './matmul';

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
