// Fused QKV split + rotary embedding + KV-cache write: ONE dispatch per layer and step.
//   QKV [M, (NH + 2*KVH) * HS]  (q heads, then k heads, then v heads along the feature axis;
//                                biases already added by the linear kernel)
//   rows [M, 2] u32             (sequence s, absolute position p) of each packed row
//   -> Q [M, NH, HS] rotated;  Kc/Vc [B, KVH, Tmax, HS] at (s, :, p, :), K rotated, V copied.
// RoPE: Hugging Face rotate_half (dimension i pairs with i + HS/2); cos/sin come from a table
// [Tmax, HS/2] built on the host (so positions of any size stay exact and rope scalings are a
// table change). CPU twin: src/reference/rope.ts (rope_forward) + a scatter, composed in
// tests/unit/gpu/rope-forward.test.ts. Launcher: src/gpu/kernels/rope.ts.
// qkv_rope4 / qkv_rope_backward4: the same with four pairs (i .. i + 3) per invocation and vec4
// loads and stores, for HS a multiple of 8 (every real model; the launchers pick them): on a CPU
// adapter each storage access is a per-lane gather whatever its width.
// Write contract: Q overwritten (=); Kc/Vc overwritten (=) at the rows' (s, p) slots only,
// rows with s >= B or p >= Tmax are skipped (the launcher's KvCache forbids them).

struct Params {
  M: u32,     // rows
  NH: u32,    // query heads
  KVH: u32,   // kv heads
  HS: u32,    // head size (even)
  Tmax: u32,  // cache capacity per sequence
  B: u32,     // cache sequence slots
  _pad0: u32,
  _pad1: u32,
}

@group(0) @binding(0) var<storage, read> QKV: array<f32>;          // [M, (NH + 2*KVH) * HS]
@group(0) @binding(1) var<storage, read> rows: array<u32>;         // [M, 2] (sequence, position)
@group(0) @binding(2) var<storage, read> rope: array<vec2<f32>>;   // [Tmax, HS/2] (cos, sin)
@group(0) @binding(3) var<storage, read_write> Q: array<f32>;      // [M, NH, HS]
@group(0) @binding(4) var<storage, read_write> Kc: array<f32>;     // [B, KVH, Tmax, HS]
@group(0) @binding(5) var<storage, read_write> Vc: array<f32>;     // [B, KVH, Tmax, HS]
@group(0) @binding(6) var<uniform> p: Params;

// Invocations per workgroup; the grid may wrap into y when x would exceed the device limit.
override WG: u32 = 64;

// What an invocation works on: pair (or group of four pairs) i of head h (among NH + 2*KVH) of
// row m, whose cache slot is (seq, pos); ok is false past the last row. per: i's per head.
struct Slot { i: u32, h: u32, m: u32, seq: u32, pos: u32, ok: bool }
fn slot(gid: vec3<u32>, nwg: vec3<u32>, per: u32) -> Slot {
  let H = p.NH + 2u * p.KVH;
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= p.M * H * per) { return Slot(0u, 0u, 0u, 0u, 0u, false); }
  let m = idx / (per * H);
  return Slot(idx % per, (idx / per) % H, m, rows[2u * m], rows[2u * m + 1u], true);
}

// One invocation per (row, head among NH + 2*KVH, pair i < HS/2): it moves elements i and i + HS/2.
@compute @workgroup_size(WG)
fn qkv_rope(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let half = p.HS / 2u;
  let H = p.NH + 2u * p.KVH;
  let t = slot(gid, nwg, half);
  if (!t.ok) { return; }
  let i = t.i; let h = t.h; let m = t.m; let seq = t.seq; let pos = t.pos;
  let src = (m * H + h) * p.HS;
  let a = QKV[src + i];
  let b = QKV[src + i + half];
  let cs = rope[min(pos, p.Tmax - 1u) * half + i];
  let ra = a * cs.x - b * cs.y;
  let rb = b * cs.x + a * cs.y;
  if (h < p.NH) {
    let dst = (m * p.NH + h) * p.HS;
    Q[dst + i] = ra;
    Q[dst + i + half] = rb;
    return;
  }
  if (seq >= p.B || pos >= p.Tmax) { return; }
  if (h < p.NH + p.KVH) {
    let kh = h - p.NH;
    let dst = ((seq * p.KVH + kh) * p.Tmax + pos) * p.HS;
    Kc[dst + i] = ra;
    Kc[dst + i + half] = rb;
  } else {
    let kh = h - p.NH - p.KVH;
    let dst = ((seq * p.KVH + kh) * p.Tmax + pos) * p.HS;
    Vc[dst + i] = a;
    Vc[dst + i + half] = b;
  }
}

// ---- backward, fused into the QKV gradient ---------------------------------------------------
//   dQ [M, NH, HS], dKc/dVc [B, KVH, Tmax, HS] (gradients of the cache contents, e.g. from
//   attn_bwd_dkv), rows [M, 2] -> dQKV [M, (NH + 2*KVH) * HS] in the forward's QKV layout.
// q and k heads are rotated back by -angle (the rotation is orthogonal):
//   dx[i] = d[i] cos + d[i + HS/2] sin,  dx[i + HS/2] = d[i + HS/2] cos - d[i] sin;
// k and v are gathered from the cache layout at the row's (s, p); v is copied. ONE dispatch.
// CPU twin: src/reference/rope.ts (rope_backward) + a gather, composed in
// tests/unit/gpu/rope-backward.test.ts. Launcher: src/gpu/kernels/rope-backward.ts.
// Write contract: dQKV overwritten (=) for all M rows; k and v parts of rows with s >= B or
// p >= Tmax get 0. Bindings alias the forward's (rows, rope and p are shared).

@group(0) @binding(0) var<storage, read> dQ: array<f32>;              // [M, NH, HS]
@group(0) @binding(3) var<storage, read> dKc: array<f32>;             // [B, KVH, Tmax, HS]
@group(0) @binding(4) var<storage, read> dVc: array<f32>;             // [B, KVH, Tmax, HS]
@group(0) @binding(5) var<storage, read_write> dQKV: array<f32>;      // [M, (NH + 2*KVH) * HS]

// One invocation per (row, head among NH + 2*KVH, pair i < HS/2), as qkv_rope.
@compute @workgroup_size(WG)
fn qkv_rope_backward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let half = p.HS / 2u;
  let H = p.NH + 2u * p.KVH;
  let t = slot(gid, nwg, half);
  if (!t.ok) { return; }
  let i = t.i; let h = t.h; let m = t.m; let seq = t.seq; let pos = t.pos;
  let dst = (m * H + h) * p.HS;
  var a = 0.0;
  var b = 0.0;
  if (h < p.NH) {
    let src = (m * p.NH + h) * p.HS;
    a = dQ[src + i];
    b = dQ[src + i + half];
  } else if (seq < p.B && pos < p.Tmax) {
    let kh = (h - p.NH) % p.KVH;
    let src = ((seq * p.KVH + kh) * p.Tmax + pos) * p.HS;
    if (h >= p.NH + p.KVH) {
      dQKV[dst + i] = dVc[src + i];
      dQKV[dst + i + half] = dVc[src + i + half];
      return;
    }
    a = dKc[src + i];
    b = dKc[src + i + half];
  }
  let cs = rope[min(pos, p.Tmax - 1u) * half + i];
  dQKV[dst + i] = a * cs.x + b * cs.y;
  dQKV[dst + i + half] = b * cs.x - a * cs.y;
}

// ---- four pairs per invocation (HS % 8 == 0) -------------------------------------------------
@group(0) @binding(0) var<storage, read> QKV4: array<vec4<f32>>;          // [M, (NH + 2*KVH) * HS / 4]
@group(0) @binding(2) var<storage, read> rope4: array<vec4<f32>>;         // [Tmax, HS/4]: (cos, sin) of two pairs
@group(0) @binding(3) var<storage, read_write> Q4: array<vec4<f32>>;      // [M, NH, HS / 4]
@group(0) @binding(4) var<storage, read_write> Kc4: array<vec4<f32>>;     // [B, KVH, Tmax, HS / 4]
@group(0) @binding(5) var<storage, read_write> Vc4: array<vec4<f32>>;     // [B, KVH, Tmax, HS / 4]

/** cos (x) and sin (y) of pairs i4 * 4 .. + 3 at position pos, from the [Tmax, HS/2] vec2 table. */
fn cos_sin4(pos: u32, i4: u32) -> mat2x4<f32> {
  let b = (min(pos, p.Tmax - 1u) * (p.HS / 2u)) / 2u + 2u * i4;
  let r0 = rope4[b];
  let r1 = rope4[b + 1u];
  return mat2x4<f32>(vec4<f32>(r0.x, r0.z, r1.x, r1.z), vec4<f32>(r0.y, r0.w, r1.y, r1.w));
}

// One invocation per (row, head among NH + 2*KVH, group of four pairs), as qkv_rope.
@compute @workgroup_size(WG)
fn qkv_rope4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let q4 = p.HS / 8u;   // vec4 per half head
  let H = p.NH + 2u * p.KVH;
  let t = slot(gid, nwg, q4);
  if (!t.ok) { return; }
  let i4 = t.i; let h = t.h; let m = t.m; let seq = t.seq; let pos = t.pos;
  let src = (m * H + h) * 2u * q4 + i4;
  let a = QKV4[src];
  let b = QKV4[src + q4];
  let cs = cos_sin4(pos, i4);
  let ra = a * cs[0] - b * cs[1];
  let rb = b * cs[0] + a * cs[1];
  if (h < p.NH) {
    let dst = (m * p.NH + h) * 2u * q4 + i4;
    Q4[dst] = ra;
    Q4[dst + q4] = rb;
    return;
  }
  if (seq >= p.B || pos >= p.Tmax) { return; }
  let kh = (h - p.NH) % p.KVH;
  let dst = ((seq * p.KVH + kh) * p.Tmax + pos) * 2u * q4 + i4;
  if (h < p.NH + p.KVH) {
    Kc4[dst] = ra;
    Kc4[dst + q4] = rb;
  } else {
    Vc4[dst] = a;
    Vc4[dst + q4] = b;
  }
}

@group(0) @binding(0) var<storage, read> dQ4: array<vec4<f32>>;          // [M, NH, HS / 4]
@group(0) @binding(3) var<storage, read> dKc4: array<vec4<f32>>;         // [B, KVH, Tmax, HS / 4]
@group(0) @binding(4) var<storage, read> dVc4: array<vec4<f32>>;         // [B, KVH, Tmax, HS / 4]
@group(0) @binding(5) var<storage, read_write> dQKV4: array<vec4<f32>>;  // [M, (NH + 2*KVH) * HS / 4]

// One invocation per (row, head among NH + 2*KVH, group of four pairs), as qkv_rope_backward.
@compute @workgroup_size(WG)
fn qkv_rope_backward4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let q4 = p.HS / 8u;   // vec4 per half head
  let H = p.NH + 2u * p.KVH;
  let t = slot(gid, nwg, q4);
  if (!t.ok) { return; }
  let i4 = t.i; let h = t.h; let m = t.m; let seq = t.seq; let pos = t.pos;
  let dst = (m * H + h) * 2u * q4 + i4;
  var a = vec4<f32>();
  var b = vec4<f32>();
  if (h < p.NH) {
    let src = (m * p.NH + h) * 2u * q4 + i4;
    a = dQ4[src];
    b = dQ4[src + q4];
  } else if (seq < p.B && pos < p.Tmax) {
    let kh = (h - p.NH) % p.KVH;
    let src = ((seq * p.KVH + kh) * p.Tmax + pos) * 2u * q4 + i4;
    if (h >= p.NH + p.KVH) {
      dQKV4[dst] = dVc4[src];
      dQKV4[dst + q4] = dVc4[src + q4];
      return;
    }
    a = dKc4[src];
    b = dKc4[src + q4];
  }
  let cs = cos_sin4(pos, i4);
  dQKV4[dst] = a * cs[0] + b * cs[1];
  dQKV4[dst + q4] = b * cs[0] - a * cs[1];
}
