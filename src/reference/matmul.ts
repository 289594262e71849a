// CPU reference for the linear layer, the twin of shaders/matmul_f32.wgsl.
//   Y[M, N] = X[M, K] . W[N, K]^T   (W row-major [out, in])
// Plain loops on purpose: slow and obvious. Tested against the GPU in tests/unit/gpu/matmul.test.ts;
// matmul_backward by finite differences in tests/unit/reference/reference-bwd-ops.test.ts.

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

// dY [M, N], X [M, K], W [N, K] -> dX [M, K]; dW [N, K] or null (frozen weight)
// Write contract: dX is a new array (=); dW accumulates (+=) dY^T X.
/** Backward of matmul_forward: dX = dY W, dW += dY^T X. */
export function matmul_backward(dY: Float32Array, X: Float32Array, W: Float32Array, M: number, K: number, N: number, dW: Float32Array | null): Float32Array {
  if (dY.length !== M * N) throw new Error(`matmul_backward: dY has ${dY.length} values, expected [M, N] = [${M}, ${N}]`);
  if (X.length !== M * K) throw new Error(`matmul_backward: X has ${X.length} values, expected [M, K] = [${M}, ${K}]`);
  if (W.length !== N * K) throw new Error(`matmul_backward: W has ${W.length} values, expected [N, K] = [${N}, ${K}]`);
  if (dW && dW.length !== N * K) throw new Error(`matmul_backward: dW has ${dW.length} values, expected [N, K] = [${N}, ${K}]`);
  const dX = new Float32Array(M * K);
  for (let m = 0; m < M; m++) {
    for (let k = 0; k < K; k++) {
      let s = 0;
      for (let n = 0; n < N; n++) s += dY[m * N + n] * W[n * K + k];
      dX[m * K + k] = s;
    }
  }
  if (dW) {
    for (let n = 0; n < N; n++) {
      for (let k = 0; k < K; k++) {
        let s = 0;
        for (let m = 0; m < M; m++) s += dY[m * N + n] * X[m * K + k];
        dW[n * K + k] += s;
      }
    }
  }
  return dX;
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
