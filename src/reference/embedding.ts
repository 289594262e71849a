// CPU reference for the token embedding lookup: plain loops, the twin of the WGSL gather kernel.
// Exercised by tests/unit/reference/reference-ops.test.ts and, through model_forward, reference-model.test.ts;
// embedding_backward (scatter-add) by reference-bwd-ops.test.ts.

// V = vocab size, C = channels, N = number of tokens
// wte [V, C], ids [N] -> out [N, C]
/** out[n] = wte[ids[n]]. Throws on an id outside [0, V). */
export function embedding_forward(wte: Float32Array, ids: ArrayLike<number>, C: number): Float32Array {
  const V = wte.length / C;
  const N = ids.length;
  const out = new Float32Array(N * C);
  for (let n = 0; n < N; n++) {
    const id = ids[n];
    if (!Number.isInteger(id) || id < 0 || id >= V) throw new Error(`embedding_forward: token id ${id} outside [0, ${V})`);
    for (let c = 0; c < C; c++) out[n * C + c] = wte[id * C + c];
  }
  return out;
}

// dout [N, C], wte [V, C], ids [N] -> dwte [V, C] (+=)
// Write contract: dwte accumulates (+=); a token id seen twice adds both rows. No activation grad.
/** Backward of embedding_forward: scatter-add dout rows into dwte. */
export function embedding_backward(dout: Float32Array, wte: Float32Array, ids: ArrayLike<number>, C: number, dwte: Float32Array): void {
  const V = wte.length / C;
  const N = ids.length;
  if (dout.length !== N * C) throw new Error(`embedding_backward: dout has ${dout.length} values, expected [N, C] = [${N}, ${C}]`);
  if (dwte.length !== V * C) throw new Error(`embedding_backward: dwte has ${dwte.length} values, expected [V, C] = [${V}, ${C}]`);
  for (let n = 0; n < N; n++) {
    const id = ids[n];
    if (!Number.isInteger(id) || id < 0 || id >= V) throw new Error(`embedding_backward: token id ${id} outside [0, ${V})`);
    for (let c = 0; c < C; c++) dwte[id * C + c] += dout[n * C + c];
  }
}
