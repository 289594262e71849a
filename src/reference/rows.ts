// CPU reference for shaders/rows.wgsl: rows of a [*, W] matrix picked by an index list (the
// training step's loss rows), NONE giving a row of zeros. Twin of gather_rows; exercised by
// tests/unit/gpu/rows.test.ts.

/** The index that stands for "no row": its output row is zeros. */
export const NO_ROW = 0xffffffff;

// src [*, W], idx [i0 + n] -> out [n, W]
/** out[i, :] = src[idx[i0 + i], :] (zeros where the index is NO_ROW). */
export function gatherRows(src: Float32Array, idx: ArrayLike<number>, W: number, i0 = 0, n = idx.length - i0): Float32Array {
  const out = new Float32Array(n * W);
  for (let i = 0; i < n; i++) {
    const r = idx[i0 + i];
    if (r === NO_ROW) continue;
    if (!Number.isInteger(r) || r < 0 || (r + 1) * W > src.length) throw new Error(`gatherRows: idx[${i0 + i}] = ${r} is outside src's ${src.length / W} rows of ${W}`);
    out.set(src.subarray(r * W, (r + 1) * W), i * W);
  }
  return out;
}

/** The inverse of a list of distinct picked rows of an M-row matrix: [M] position in the list, or NO_ROW. */
export function inverseRows(picked: ArrayLike<number>, M: number): Uint32Array {
  const inv = new Uint32Array(M).fill(NO_ROW);
  for (let i = 0; i < picked.length; i++) {
    const r = picked[i];
    if (!Number.isInteger(r) || r < 0 || r >= M) throw new Error(`inverseRows: picked[${i}] = ${r} is outside [0, ${M})`);
    if (inv[r] !== NO_ROW) throw new Error(`inverseRows: row ${r} is picked twice (at ${inv[r]} and ${i})`);
    inv[r] = i;
  }
  return inv;
}
