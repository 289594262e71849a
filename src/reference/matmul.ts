// CPU reference for the linear layer, the twin of shaders/matmul_f32.wgsl.
//   Y[M, N] = X[M, K] . W[N, K]^T   (W row-major [out, in])
// Plain loops on purpose: slow and obvious. Tested against the GPU in tests/unit/matmul.test.ts.

/** Y = X W^T. Y is overwritten. */
export function matmul_forward(X: Float32Array, W: Float32Array, M: number, K: number, N: number): Float32Array {
  const Y = new Float32Array(M * N);
  for (let m = 0; m < M; m++) {
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += X[m * K + k] * W[n * K + k];
      Y[m * N + n] = s;
    }
  }
  return Y;
}

/** Largest absolute elementwise difference; the figure every numerics test prints. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`maxAbsDiff: lengths differ (${a.length} vs ${b.length})`);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}
