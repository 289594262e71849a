// Causal grouped-query attention over the KV cache, for packed rows of many sequences:
//   Q [M, NH, HS], rows [M, 2] u32 (sequence s, position p), Kc/Vc [B, KVH, Tmax, HS]
//   -> O [M, NH * HS];  row (s, p), head h attends over cache keys 0..p of sequence s with kv
//   head h / (NH / KVH), scale 1/sqrt(HS) (a uniform). Causal by construction: prefill rows
//   (many per sequence) and decode rows (one per sequence) go through the same kernel, and the
//   row's own key must already be in the cache (qkv_rope runs first in the same step).
// HS must be a multiple of 4 and at most 128 (HS4_MAX vec4s).
// CPU twin: src/reference/attention.ts (attention_forward). Launcher: src/gpu/kernels/attention.ts.
// Two entry points, chosen per adapter:
//   attn_thread  one invocation per (row, head), online softmax in registers, no workgroup
//                memory or barriers (best on CPU adapters such as SwiftShader);
//   attn_wg      one workgroup per (row, head): keys split across the invocations, chunk max
//                and sum by workgroup-memory reductions, online softmax across chunks, the
//                value sum split over (dimension, key slice) pairs (decode on real GPUs).
// Write contract: O overwritten (=).

struct Params {
  M: u32,       // rows
  NH: u32,      // query heads
  KVH: u32,     // kv heads
  _hs: u32,     // (HS is an override)
  Tmax: u32,    // cache capacity per sequence
  B: u32,       // cache sequence slots
  scale: f32,   // softmax scale, 1/sqrt(HS)
  _pad: u32,
}

@group(0) @binding(0) var<storage, read> Q: array<vec4<f32>>;        // [M, NH, HS/4]
@group(0) @binding(1) var<storage, read> rows: array<u32>;           // [M, 2] (sequence, position)
@group(0) @binding(2) var<storage, read> Kc: array<vec4<f32>>;       // [B, KVH, Tmax, HS/4]
@group(0) @binding(3) var<storage, read> Vc: array<vec4<f32>>;       // [B, KVH, Tmax, HS/4]
@group(0) @binding(4) var<storage, read_write> O: array<vec4<f32>>;  // [M, NH * HS/4]
@group(0) @binding(5) var<uniform> p: Params;

const HS4_MAX: u32 = 32u;      // largest HS / 4 supported
const NEG_BIG: f32 = -3.0e38;  // stands for -inf (exp of it minus anything is 0)

// Invocations per workgroup (attn_thread: any; attn_wg: a power of two >= HS/4).
override WG: u32 = 64;
// Head size, a multiple of 4 and <= 4 * HS4_MAX: a constant so the loops over it unroll.
override HS: u32 = 64;

// First vec4 of the cache line (sequence, kv head, key 0).
fn cache_base(seq: u32, kh: u32) -> u32 {
  return (seq * p.KVH + kh) * p.Tmax * (HS / 4u);
}

// ---- one invocation per (row, head) -------------------------------------------------------
@compute @workgroup_size(WG)
fn attn_thread(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= p.M * p.NH) { return; }
  let m = idx / p.NH;
  let h = idx % p.NH;
  let HS4 = HS / 4u;
  let seq = min(rows[2u * m], p.B - 1u);
  let last = min(rows[2u * m + 1u], p.Tmax - 1u);
  let kh = h / (p.NH / p.KVH);
  let base = cache_base(seq, kh);
  var q: array<vec4<f32>, HS4_MAX>;
  var acc: array<vec4<f32>, HS4_MAX>;
  let qo = (m * p.NH + h) * HS4;
  for (var d = 0u; d < HS4; d++) { q[d] = Q[qo + d] * p.scale; }
  var mx = NEG_BIG;
  var l = 0.0;
  // Keys four at a time: one max update and one rescale per block.
  var j = 0u;
  for (; j + 3u <= last; j += 4u) {
    let k0 = base + j * HS4;
    let k1 = k0 + HS4;
    let k2 = k1 + HS4;
    let k3 = k2 + HS4;
    var s4 = vec4<f32>(0.0);
    for (var d = 0u; d < HS4; d++) {
      let qd = q[d];
      s4 += vec4<f32>(dot(qd, Kc[k0 + d]), dot(qd, Kc[k1 + d]), dot(qd, Kc[k2 + d]), dot(qd, Kc[k3 + d]));
    }
    let mnew = max(mx, max(max(s4.x, s4.y), max(s4.z, s4.w)));
    let a = exp(mx - mnew);
    let e = exp(s4 - vec4<f32>(mnew));
    l = l * a + (e.x + e.y) + (e.z + e.w);
    for (var d = 0u; d < HS4; d++) {
      acc[d] = acc[d] * a + e.x * Vc[k0 + d] + e.y * Vc[k1 + d] + e.z * Vc[k2 + d] + e.w * Vc[k3 + d];
    }
    mx = mnew;
  }
  for (; j <= last; j++) {
    let ko = base + j * HS4;
    var s = 0.0;
    for (var d = 0u; d < HS4; d++) { s += dot(q[d], Kc[ko + d]); }
    let mnew = max(mx, s);
    let a = exp(mx - mnew);
    let e = exp(s - mnew);
    l = l * a + e;
    for (var d = 0u; d < HS4; d++) { acc[d] = acc[d] * a + e * Vc[ko + d]; }
    mx = mnew;
  }
  let inv = 1.0 / l;
  for (var d = 0u; d < HS4; d++) { O[qo + d] = acc[d] * inv; }
}

// ---- one workgroup per (row, head) --------------------------------------------------------
var<workgroup> qs: array<vec4<f32>, HS4_MAX>;   // the query, pre-scaled
var<workgroup> pr: array<f32, WG>;              // this chunk's probabilities (unnormalised)
var<workgroup> red: array<f32, WG>;             // reduction scratch
var<workgroup> part: array<vec4<f32>, WG>;      // value partial sums per (dimension, key slice)
var<workgroup> acc_s: array<vec4<f32>, HS4_MAX>; // running output, rescaled per chunk

fn wg_max(lid: u32, v: f32) -> f32 {
  red[lid] = v;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) { red[lid] = max(red[lid], red[lid + s]); }
  }
  return workgroupUniformLoad(&red[0]);
}

fn wg_sum(lid: u32, v: f32) -> f32 {
  workgroupBarrier();   // earlier readers of red[0] are done
  red[lid] = v;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) { red[lid] += red[lid + s]; }
  }
  return workgroupUniformLoad(&red[0]);
}

@compute @workgroup_size(WG)
fn attn_wg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.x;
  let m = wid.y;
  let HS4 = HS / 4u;
  let seq = min(rows[2u * m], p.B - 1u);
  let last = min(rows[2u * m + 1u], p.Tmax - 1u);
  let kh = h / (p.NH / p.KVH);
  let base = cache_base(seq, kh);
  let qo = (m * p.NH + h) * HS4;
  for (var d = lid; d < HS4; d += WG) {
    qs[d] = Q[qo + d] * p.scale;
    acc_s[d] = vec4<f32>(0.0);
  }
  workgroupBarrier();
  // Value phase: invocation lid sums dimension dd over key slice ks (keys ks, ks + slices, ...).
  let slices = WG / HS4;
  let dd = lid % HS4;
  let ks = lid / HS4;
  var mx = NEG_BIG;
  var l = 0.0;
  for (var j0 = 0u; j0 <= last; j0 += WG) {
    let j = j0 + lid;
    var s = NEG_BIG;
    if (j <= last) {
      let ko = base + j * HS4;
      s = 0.0;
      for (var d = 0u; d < HS4; d++) { s += dot(qs[d], Kc[ko + d]); }
    }
    let mnew = max(mx, wg_max(lid, s));
    let alpha = exp(mx - mnew);
    let e = select(0.0, exp(s - mnew), j <= last);
    pr[lid] = e;
    l = l * alpha + wg_sum(lid, e);   // its barriers also publish pr
    mx = mnew;
    let n = min(WG, last + 1u - j0);
    var v = vec4<f32>(0.0);
    if (ks < slices) {
      for (var k = ks; k < n; k += slices) { v += pr[k] * Vc[base + (j0 + k) * HS4 + dd]; }
    }
    part[lid] = v;
    workgroupBarrier();
    if (lid < HS4) {
      var t = acc_s[lid] * alpha;
      for (var k = 0u; k < slices; k++) { t += part[k * HS4 + lid]; }
      acc_s[lid] = t;
    }
    workgroupBarrier();
  }
  let inv = 1.0 / l;
  for (var d = lid; d < HS4; d += WG) { O[qo + d] = acc_s[d] * inv; }
}
