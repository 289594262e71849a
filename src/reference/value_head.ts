// CPU reference of PPO's value head: one linear unit on the policy's last hidden state (after the
// final norm), v[n] = h[n, :] . w + b, with its backward. Plain loops, the twin of
// shaders/value_head.wgsl (launcher src/gpu/kernels/value-head.ts). Exercised by
// tests/unit/reference/value-head.test.ts (PyTorch goldens and the GPU kernel).

// N = rows (tokens), C = channels
// h [N, C], w [C], b [1] -> v [N]
/** v = h w + b. v is a new array. */
export function value_head_forward(h: ArrayLike<number>, w: ArrayLike<number>, b: number, N: number, C: number): Float32Array {
  check('value_head_forward', h, w, N, C);
  const v = new Float32Array(N);
  for (let n = 0; n < N; n++) {
    let acc = b;
    for (let c = 0; c < C; c++) acc += h[n * C + c] * w[c];
    v[n] = acc;
  }
  return v;
}

export interface ValueHeadGrads {
  /** [N, C] d loss / d h = dv[n] w (the caller adds it to the trunk's gradient). */
  dh: Float32Array;
  /** [C] d loss / d w = sum_n dv[n] h[n, :]. */
  dw: Float32Array;
  /** d loss / d b = sum_n dv[n]. */
  db: number;
}

// dv [N], h [N, C], w [C] -> dh [N, C], dw [C], db
/** Gradients of the value head; fresh arrays (the kernel's contract: dh = or +=, dw and db +=). */
export function value_head_backward(dv: ArrayLike<number>, h: ArrayLike<number>, w: ArrayLike<number>, N: number, C: number): ValueHeadGrads {
  check('value_head_backward', h, w, N, C);
  if (dv.length !== N) throw new Error(`value_head_backward: dv has ${dv.length} values, expected N = ${N}`);
  const dh = new Float32Array(N * C), dw = new Float32Array(C);
  let db = 0;
  for (let n = 0; n < N; n++) {
    db += dv[n];
    for (let c = 0; c < C; c++) {
      dh[n * C + c] = dv[n] * w[c];
      dw[c] += dv[n] * h[n * C + c];
    }
  }
  return { dh, dw, db };
}

function check(op: string, h: ArrayLike<number>, w: ArrayLike<number>, N: number, C: number): void {
  if (h.length !== N * C) throw new Error(`${op}: h has ${h.length} values, expected N*C = ${N * C}`);
  if (w.length !== C) throw new Error(`${op}: w has ${w.length} values, expected C = ${C}`);
}
