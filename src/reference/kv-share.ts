// CPU reference for shaders/kv_share.wgsl: a training pass's shared prefixes in the KV cache
// layout [B, KVH, Tmax, HS]. share[2 b] = root slot of b, share[2 b + 1] = its shared positions
// (0: none; a root is its own root, and may share a shorter prefix of its own root: the
// owner of a position follows the roots). Twins of kv_share_copy / kv_share_sum; exercised by
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

/** The slot that computed position t of slot b: the roots followed while t is shared (b when it is not). */
export function kvShareOwner(share: ArrayLike<number>, b: number, t: number): number {
  let r = b;
  while (share[2 * r] !== r && t < share[2 * r + 1]) r = share[2 * r];
  return r;
}

/** In place: each slot's shared positions take their owner's keys (and values: call per buffer). */
export function kvShareCopy(buf: Float32Array, share: ArrayLike<number>, s: KvShareShape): void {
  for (let b = 0; b < s.B; b++) {
    for (let t = 0; t < s.Tmax; t++) {
      const o = kvShareOwner(share, b, t);
      if (o === b) continue;
      for (let h = 0; h < s.KVH; h++) buf.copyWithin(at(s, b, h, t), at(s, o, h, t), at(s, o, h, t) + s.HS);
    }
  }
}

/**
 * In place: each slot's owned position t gains the gradients of the slots whose position t it
 * owns, added in slot order after its own value (the kernel's order, f32 rounding per add).
 */
export function kvShareSum(buf: Float32Array, share: ArrayLike<number>, s: KvShareShape): void {
  for (let a = 0; a < s.B; a++) {
    for (let t = 0; t < s.Tmax; t++) {
      if (kvShareOwner(share, a, t) !== a) continue;
      for (let b = 0; b < s.B; b++) {
        if (b === a || kvShareOwner(share, b, t) !== a) continue;
        for (let h = 0; h < s.KVH; h++) {
          const d = at(s, a, h, t), o = at(s, b, h, t);
          for (let i = 0; i < s.HS; i++) buf[d + i] = Math.fround(buf[d + i] + buf[o + i]);
        }
      }
    }
  }
}
