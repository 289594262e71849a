// Row-wise log-softmax reductions over one chunk of logits: log p(target) and entropy per row.
//   logits [N, V] (the chunk: rows r0..r0+N-1 of the batch), targets [M] u32
//   -> logp [M], entropy [M], written at rows r0..r0+N-1.
// With z = logits * invT (invT = 1 / temperature; 1 for plain log-probs):
//   logZ = logsumexp(z), logp = z[target] - logZ, entropy = -sum softmax(z) log softmax(z).
// One workgroup per row; every invocation walks V with stride WG keeping an online triple
// (max m, sum e^(z-m), sum e^(z-m) (z-m)), so the chunk is read once; the triples are merged
// by a workgroup-memory tree. Any V (no multiple-of-4 requirement). A target >= V gives logp = +1
// (impossible for a log-prob; WGSL has no portable NaN).
// CPU twin: src/reference/logprobs.ts (logprobs_forward). Launcher: src/gpu/kernels/logprobs.ts.
// Write contract: logp and entropy overwritten (=) at rows r0..r0+N-1, other rows untouched.

struct Params {
  N: u32,      // rows in this chunk
  V: u32,      // vocabulary size
  r0: u32,     // first batch row of the chunk
  invT: f32,   // 1 / temperature
}

@group(0) @binding(0) var<storage, read> logits: array<f32>;          // [N, V]
@group(0) @binding(1) var<storage, read> targets: array<u32>;         // [M]
@group(0) @binding(2) var<storage, read_write> logp: array<f32>;      // [M]
@group(0) @binding(3) var<storage, read_write> entropy: array<f32>;   // [M]
@group(0) @binding(4) var<uniform> p: Params;

// Invocations per workgroup, a power of two.
override WG: u32 = 64;
const NEG_BIG: f32 = -3.0e38;

var<workgroup> rm: array<f32, WG>;   // running max
var<workgroup> rs: array<f32, WG>;   // sum of e^(z - m)
var<workgroup> rt: array<f32, WG>;   // sum of e^(z - m) (z - m)

@compute @workgroup_size(WG)
fn logprobs_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.x;
  if (row >= p.N) { return; }
  let o = row * p.V;
  var m = NEG_BIG;
  var s = 0.0;
  var t = 0.0;
  for (var i = lid; i < p.V; i += WG) {
    let z = logits[o + i] * p.invT;
    if (z > m) {
      // Re-centre on the new max: t' = (t + (m - z) s) e^(m - z), s' = s e^(m - z).
      let a = exp(m - z);
      t = (t + (m - z) * s) * a;
      s = s * a + 1.0;
      m = z;
    } else {
      let e = exp(z - m);
      s += e;
      t += e * (z - m);
    }
  }
  rm[lid] = m;
  rs[lid] = s;
  rt[lid] = t;
  for (var k = WG / 2u; k > 0u; k >>= 1u) {
    workgroupBarrier();
    if (lid < k) {
      let m1 = rm[lid];
      let m2 = rm[lid + k];
      let mm = max(m1, m2);
      let a1 = exp(m1 - mm);
      let a2 = exp(m2 - mm);
      rt[lid] = (rt[lid] + (m1 - mm) * rs[lid]) * a1 + (rt[lid + k] + (m2 - mm) * rs[lid + k]) * a2;
      rs[lid] = rs[lid] * a1 + rs[lid + k] * a2;
      rm[lid] = mm;
    }
  }
  if (lid == 0u) {
    let logS = log(rs[0]);
    let r = p.r0 + row;
    let tg = targets[r];
    var lp = 1.0;   // impossible log-prob: marks an out-of-range target
    if (tg < p.V) { lp = logits[o + tg] * p.invT - rm[0] - logS; }
    logp[r] = lp;
    entropy[r] = logS - rt[0] / rs[0];
  }
}

// ---- backward: dlogits in place, one chunk at a time -----------------------------------------
//   logits [N, V] (rows r0..r0+N-1, recomputed by the launcher), targets [M] u32, dlogp [M],
//   dentropy [M] (ignored when hasDent = 0) -> logits overwritten by dlogits [N, V].
// With z = logits * invT, p = softmax(z), lp = log p, H = -sum p lp, t = target:
//   dz[v] = dlogp ([v = t] - p[v]) - dentropy p[v] (lp[v] + H),  dlogits = dz * invT.
// Same online (max, sum, sum e (z - m)) pass and tree as logprobs_rows, then a second pass in
// which every invocation rewrites the elements it read (no cross-invocation hazard). A target
// >= V contributes no dlogp term.
// CPU twin: src/reference/logprobs.ts (logprobs_backward, times invT).
// Launcher: src/gpu/kernels/logprobs-backward.ts. Test: tests/unit/gpu/logprobs-backward.test.ts.
// Write contract: logits rows 0..N-1 overwritten (=) by their gradient; nothing else written.
// Bindings alias the forward's across entry points (inputs, the in-place output, uniforms).

struct BwdParams {
  N: u32,        // rows in this chunk
  V: u32,        // vocabulary size
  r0: u32,       // first batch row of the chunk
  invT: f32,     // 1 / temperature
  hasDent: u32,  // 1: read dentropy; 0: dentropy is 0
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

@group(0) @binding(0) var<storage, read> btargets: array<u32>;        // [M]
@group(0) @binding(1) var<storage, read> dlogp: array<f32>;           // [M]
@group(0) @binding(2) var<storage, read> dentropy: array<f32>;        // [M] (any buffer when hasDent = 0)
@group(0) @binding(3) var<storage, read_write> dlogits: array<f32>;   // [N, V] logits in, dlogits out
@group(0) @binding(4) var<uniform> pb: BwdParams;

@compute @workgroup_size(WG)
fn logprobs_backward_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.x;
  if (row >= pb.N) { return; }
  let o = row * pb.V;
  var m = NEG_BIG;
  var s = 0.0;
  var t = 0.0;
  for (var i = lid; i < pb.V; i += WG) {
    let z = dlogits[o + i] * pb.invT;
    if (z > m) {
      let a = exp(m - z);
      t = (t + (m - z) * s) * a;
      s = s * a + 1.0;
      m = z;
    } else {
      let e = exp(z - m);
      s += e;
      t += e * (z - m);
    }
  }
  rm[lid] = m;
  rs[lid] = s;
  rt[lid] = t;
  for (var k = WG / 2u; k > 0u; k >>= 1u) {
    workgroupBarrier();
    if (lid < k) {
      let m1 = rm[lid];
      let m2 = rm[lid + k];
      let mm = max(m1, m2);
      let a1 = exp(m1 - mm);
      let a2 = exp(m2 - mm);
      rt[lid] = (rt[lid] + (m1 - mm) * rs[lid]) * a1 + (rt[lid + k] + (m2 - mm) * rs[lid + k]) * a2;
      rs[lid] = rs[lid] * a1 + rs[lid + k] * a2;
      rm[lid] = mm;
    }
  }
  workgroupBarrier();
  let logZ = rm[0] + log(rs[0]);
  let ent = log(rs[0]) - rt[0] / rs[0];
  let r = pb.r0 + row;
  let tg = btargets[r];
  let g = dlogp[r];
  var ge = 0.0;
  if (pb.hasDent != 0u) { ge = dentropy[r]; }
  for (var i = lid; i < pb.V; i += WG) {
    let lp = dlogits[o + i] * pb.invT - logZ;
    let pv = exp(lp);
    let onehot = select(0.0, 1.0, i == tg);
    dlogits[o + i] = (g * (onehot - pv) - ge * pv * (lp + ent)) * pb.invT;
  }
}

// ---- vec4 forms (V % 4 == 0; the launchers pick them): two reads of the row instead of one ------
// The row's max first, then (sum e^(z - max), sum e^(z - max) (z - max)) with that max: no online
// re-centring, whose branch costs an exp on both of its sides once lanes diverge, and vec4 loads (on
// a CPU adapter each storage access is a per-lane gather whatever its width). Same results as the
// one-pass forms up to the order of the sums.
@group(0) @binding(0) var<storage, read> logits4: array<vec4<f32>>;           // [N, V / 4]
@group(0) @binding(3) var<storage, read_write> dlogits4: array<vec4<f32>>;    // [N, V / 4]

fn hmax(v: vec4<f32>) -> f32 { return max(max(v.x, v.y), max(v.z, v.w)); }

/** The workgroup's max of v (call from uniform control flow). */
fn wg_max(lid: u32, v: f32) -> f32 {
  rm[lid] = v;
  for (var k = WG / 2u; k > 0u; k >>= 1u) {
    workgroupBarrier();
    if (lid < k) { rm[lid] = max(rm[lid], rm[lid + k]); }
  }
  workgroupBarrier();
  return rm[0];
}

/** The workgroup's sums of a and b (call from uniform control flow). */
fn wg_sum2(lid: u32, a: f32, b: f32) -> vec2<f32> {
  rs[lid] = a;
  rt[lid] = b;
  for (var k = WG / 2u; k > 0u; k >>= 1u) {
    workgroupBarrier();
    if (lid < k) {
      rs[lid] += rs[lid + k];
      rt[lid] += rt[lid + k];
    }
  }
  workgroupBarrier();
  return vec2<f32>(rs[0], rt[0]);
}

@compute @workgroup_size(WG)
fn logprobs_rows4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.x;
  if (row >= p.N) { return; }
  let V4 = p.V / 4u;
  let o4 = row * V4;
  var m = NEG_BIG;
  for (var i = lid; i < V4; i += WG) { m = max(m, hmax(logits4[o4 + i] * p.invT)); }
  let mx = wg_max(lid, m);
  var s = 0.0;
  var t = 0.0;
  for (var i = lid; i < V4; i += WG) {
    let z = logits4[o4 + i] * p.invT - vec4<f32>(mx);
    let e = exp(z);
    s += dot(e, vec4<f32>(1.0));
    t += dot(e, z);
  }
  let st = wg_sum2(lid, s, t);
  if (lid == 0u) {
    let logS = log(st.x);
    let r = p.r0 + row;
    let tg = targets[r];
    var lp = 1.0;   // impossible log-prob: marks an out-of-range target
    if (tg < p.V) { lp = logits4[o4 + tg / 4u][tg % 4u] * p.invT - mx - logS; }
    logp[r] = lp;
    entropy[r] = logS - st.y / st.x;
  }
}

@compute @workgroup_size(WG)
fn logprobs_backward_rows4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.x;
  if (row >= pb.N) { return; }
  let V4 = pb.V / 4u;
  let o4 = row * V4;
  var m = NEG_BIG;
  for (var i = lid; i < V4; i += WG) { m = max(m, hmax(dlogits4[o4 + i] * pb.invT)); }
  let mx = wg_max(lid, m);
  var s = 0.0;
  var t = 0.0;
  for (var i = lid; i < V4; i += WG) {
    let z = dlogits4[o4 + i] * pb.invT - vec4<f32>(mx);
    let e = exp(z);
    s += dot(e, vec4<f32>(1.0));
    t += dot(e, z);
  }
  let st = wg_sum2(lid, s, t);
  let logZ = mx + log(st.x);
  let ent = log(st.x) - st.y / st.x;
  let r = pb.r0 + row;
  let tg = btargets[r];
  let g = dlogp[r];
  var ge = 0.0;
  if (pb.hasDent != 0u) { ge = dentropy[r]; }
  for (var i = lid; i < V4; i += WG) {
    let lp = dlogits4[o4 + i] * pb.invT - vec4<f32>(logZ);
    let pv = exp(lp);
    let onehot = select(vec4<f32>(0.0), vec4<f32>(1.0), vec4<u32>(4u * i) + vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>(tg));
    dlogits4[o4 + i] = (g * (onehot - pv) - ge * pv * (lp + vec4<f32>(ent))) * pb.invT;
  }
}
