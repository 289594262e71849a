// CPU reference for RMSNorm as Llama/Qwen2 compute it: y = x / sqrt(mean(x^2) + eps) * w.
// Plain loops, the twin of the WGSL rmsnorm kernel. Exercised by tests/unit/reference-ops.test.ts.

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
