// CPU reference for shaders/kv_share.wgsl: a training pass's shared prefixes in the KV cache
// layout [B, KVH, Tmax, HS]. share[2 b] = root slot of b, share[2 b + 1] = its shared positions
// (0: none; a root is its own root). Twins of kv_share_copy / kv_share_sum; exercised by
// tests/unit/gpu/kv-share.test.ts.

export interface KvShareShape {
  B: number;
  KVH: number;
  Tmax: number;
  HS: number;
}

/** Offset of (slot b, head h, position t) in a [B, KVH, Tmax, HS] buffer. */
function at(s: KvShareShape, b: number, h: number, t: number): number {
  return ((b * s.KVH + h) * s.Tmax + t) * s.HS;
}

/** In place: each sharer slot's first n positions take its root's keys (and values: call per buffer). */
export function kvShareCopy(buf: Float32Array, share: ArrayLike<number>, s: KvShareShape): void {
  for (let b = 0; b < s.B; b++) {
    const root = share[2 * b], n = share[2 * b + 1];
    if (root === b) continue;
    for (let h = 0; h < s.KVH; h++) for (let t = 0; t < n; t++) buf.copyWithin(at(s, b, h, t), at(s, root, h, t), at(s, root, h, t) + s.HS);
  }
}

/**
 * In place: each root slot's position t gains the gradients of its sharers that share t, added
 * in slot order after its own value (the kernel's order, f32 rounding per add).
 */
export function kvShareSum(buf: Float32Array, share: ArrayLike<number>, s: KvShareShape): void {
  for (let a = 0; a < s.B; a++) {
    if (share[2 * a] !== a) continue;
    for (let b = 0; b < s.B; b++) {
      if (b === a || share[2 * b] !== a) continue;
      const n = share[2 * b + 1];
      for (let h = 0; h < s.KVH; h++) {
        for (let t = 0; t < n; t++) {
          const d = at(s, a, h, t), o = at(s, b, h, t);
          for (let i = 0; i < s.HS; i++) buf[d + i] = Math.fround(buf[d + i] + buf[o + i]);
        }
      }
    }
  }
}
