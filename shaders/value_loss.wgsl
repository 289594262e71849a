// PPO's clipped value loss on the GPU, per pass rows (no readback):
//   value_loss_token:  dv[n] = vf_coef * m[n] * d[n] / D, where v_clip = old + clamp(v - old, +-clip),
//                      d = v - R when (v - R)^2 >= (v_clip - R)^2, else (v_clip - R) inside the clip
//                      range and 0 outside it (v_clip does not move with v there)
//   value_loss_reduce: sums [loss = sum m 0.5 max(...) / D, clipped rows, masked rows, 0] (= or +=)
// N = rows, D = the whole batch's trained tokens. CPU twin: value_loss_forward / value_loss_backward
// in src/reference/ppo.ts. Launcher: src/gpu/kernels/value-loss.ts. Tested by tests/unit/gpu/value-loss-gpu.test.ts.

struct Params {
  N: u32,
  flags: u32,     // bit 0: metrics = (else +=)
  _pad0: u32,
  _pad1: u32,
  vf_coef: f32,
  clip: f32,
  inv_d: f32,     // 1 / D (0 when D = 0: no gradient)
  _pad2: f32,
}

override WG: u32 = 64;
override RWG: u32 = 64;    // a power of two

@group(0) @binding(0) var<storage, read> values: array<f32>;    // [N] value head outputs of this pass
@group(0) @binding(1) var<storage, read> old_values: array<f32>; // [N] values at rollout time
@group(0) @binding(2) var<storage, read> returns: array<f32>;   // [N] GAE returns
@group(0) @binding(3) var<storage, read> mask: array<f32>;      // [N] 1 = trained row

struct Terms {
  loss: f32,      // m 0.5 max(a, b) (before / D)
  grad: f32,      // m d (before vf_coef / D)
  clipped: f32,
  m: f32,
}

fn terms(n: u32, clip: f32) -> Terms {
  let m = mask[n];
  if (m == 0.0) { return Terms(0.0, 0.0, 0.0, 0.0); }
  let v = values[n];
  let old = old_values[n];
  let r = returns[n];
  // Inside the range v_clip IS v (f32 old + (v - old) can round away from v and flip the max).
  let vc = select(old + clamp(v - old, -clip, clip), v, abs(v - old) <= clip);
  let a = (v - r) * (v - r);
  let b = (vc - r) * (vc - r);
  var d = v - r;
  if (a < b) {
    d = select(0.0, vc - r, abs(v - old) < clip);
  }
  return Terms(m * 0.5 * max(a, b), m * d, select(0.0, m, b > a), m);
}

// ---- value_loss_token ----------------------------------------------------------------------------
@group(0) @binding(4) var<storage, read_write> dv: array<f32>;   // [N] (=)
@group(0) @binding(5) var<uniform> pt: Params;

@compute @workgroup_size(WG)
fn value_loss_token(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) li: u32) {
  let n = (wid.y * nwg.x + wid.x) * WG + li;
  if (n >= pt.N) { return; }
  dv[n] = pt.vf_coef * terms(n, pt.clip).grad * pt.inv_d;
}

// ---- value_loss_reduce: the sums in a fixed order (deterministic) ---------------------------------
@group(0) @binding(4) var<storage, read_write> metrics: array<f32>;   // [4] (= or +=, flags bit 0)
@group(0) @binding(5) var<uniform> pr: Params;

var<workgroup> part: array<vec3<f32>, RWG>;

@compute @workgroup_size(RWG)
fn value_loss_reduce(@builtin(local_invocation_index) li: u32) {
  var acc = vec3<f32>(0.0);
  for (var n = li; n < pr.N; n += RWG) {
    let t = terms(n, pr.clip);
    acc += vec3<f32>(t.loss * pr.inv_d, t.clipped, t.m);
  }
  part[li] = acc;
  workgroupBarrier();
  for (var s = RWG / 2u; s > 0u; s = s / 2u) {
    if (li < s) { part[li] += part[li + s]; }
    workgroupBarrier();
  }
  if (li < 3u) {
    if ((pr.flags & 1u) != 0u) { metrics[li] = part[0][li]; } else { metrics[li] += part[0][li]; }
  }
  if (li == 3u && (pr.flags & 1u) != 0u) { metrics[3] = 0.0; }
}
