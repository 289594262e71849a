// CPU reference for RMSNorm as Llama/Qwen2 compute it: y = x / sqrt(mean(x^2) + eps) * w.
// Plain loops, the twin of the WGSL rmsnorm kernel, with its backward. Exercised by
// tests/unit/reference/reference-ops.test.ts and (backward, finite differences) reference-bwd-ops.test.ts.

// N = rows (tokens), C = channels
// x [N, C], w [C] -> y [N, C]
/** Row-wise RMSNorm with a learned per-channel weight. y is a new array. */
export function rmsnorm_forward(x: Float32Array, w: Float32Array, N: number, C: number, eps: number): Float32Array {
  if (x.length !== N * C) throw new Error(`rmsnorm_forward: x has ${x.length} values, expected N*C = ${N * C}`);
  if (w.length !== C) throw new Error(`rmsnorm_forward: w has ${w.length} values, expected C = ${C}`);
  const y = new Float32Array(N * C);
  for (let n = 0; n < N; n++) {
    let ss = 0;
    for (let c = 0; c < C; c++) ss += x[n * C + c] * x[n * C + c];
    const rstd = 1 / Math.sqrt(ss / C + eps);
    for (let c = 0; c < C; c++) y[n * C + c] = x[n * C + c] * rstd * w[c];
  }
  return y;
}

// dy [N, C], x [N, C], w [C] -> dx [N, C]; dw [C] or null (frozen weight)
// With r = 1 / sqrt(mean(x^2) + eps) and g = dy * w:
//   dx[c] = r g[c] - r^3 x[c] sum_j(g[j] x[j]) / C,   dw[c] += sum_n dy[c] x[c] r
// Write contract: dx is a new array (=); dw accumulates (+=). The caller adds dx into the
// residual-stream gradient itself.
/** Backward of rmsnorm_forward. */
export function rmsnorm_backward(dy: Float32Array, x: Float32Array, w: Float32Array, N: number, C: number, eps: number, dw: Float32Array | null): Float32Array {
  if (dy.length !== N * C) throw new Error(`rmsnorm_backward: dy has ${dy.length} values, expected N*C = ${N * C}`);
  if (x.length !== N * C) throw new Error(`rmsnorm_backward: x has ${x.length} values, expected N*C = ${N * C}`);
  if (w.length !== C) throw new Error(`rmsnorm_backward: w has ${w.length} values, expected C = ${C}`);
  if (dw && dw.length !== C) throw new Error(`rmsnorm_backward: dw has ${dw.length} values, expected C = ${C}`);
  const dx = new Float32Array(N * C);
  for (let n = 0; n < N; n++) {
    const o = n * C;
    let ss = 0;
    for (let c = 0; c < C; c++) ss += x[o + c] * x[o + c];
    const rstd = 1 / Math.sqrt(ss / C + eps);
    let dot = 0; // sum_j dy[j] w[j] x[j]
    for (let c = 0; c < C; c++) dot += dy[o + c] * w[c] * x[o + c];
    const k = (rstd * rstd * rstd * dot) / C;
    for (let c = 0; c < C; c++) dx[o + c] = rstd * dy[o + c] * w[c] - k * x[o + c];
    if (dw) for (let c = 0; c < C; c++) dw[c] += dy[o + c] * x[o + c] * rstd;
  }
  return dx;
}
