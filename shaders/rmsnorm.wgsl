// RMSNorm over rows, as Llama/Qwen2 compute it, the fused residual + RMSNorm, and the backward:
//   rmsnorm:          y[n, :] = x[n, :] / sqrt(mean(x[n, :]^2) + eps) * w
//   residual_rmsnorm: x[n, :] += d[n, :];  y[n, :] = rmsnorm(x[n, :]) * w   (one dispatch)
//   rmsnorm_bwd:      dx[n, :] (=|+=) r dy w - r^3 x sum(dy w x) / C, r = rstd of row n (saved)
//   rmsnorm_dw:       dw[c] += sum_n dy[n, c] x[n, c] r[n]   (one invocation per 4 channels)
// N = rows (tokens), C = channels (a multiple of 4). Two layouts of the same maths: one
// workgroup of WG invocations per row, the sum of squares reduced through workgroup memory
// (GPUs, wide rows); or `*_t` entries, one invocation per whole row and no barriers (CPU
// adapters, where barriers cost far more than the row's arithmetic; narrow rows).
// CPU twin: rmsnorm_forward (src/reference/rmsnorm.ts). Launcher: src/gpu/kernels/rmsnorm.ts.
// Tested by tests/unit/gpu/rmsnorm-forward.test.ts.
// Write contract: y is overwritten (=); in residual_rmsnorm x is the residual stream and is
// updated in place (+=). Backward (launcher src/gpu/kernels/rmsnorm-backward.ts, twin
// rmsnorm_backward, tests/unit/gpu/rmsnorm-backward.test.ts): dx is overwritten (=) or accumulated
// (+=, flags bit 0: the residual stream's gradient); rstd is overwritten; dw accumulates (+=)
// in a fixed row order (deterministic).

struct Params {
  N: u32,
  C: u32,
  eps: f32,
  _pad: u32,
}

override WG: u32 = 64;   // a power of two
var<workgroup> partial: array<f32, WG>;

fn row_rstd(li: u32, ss: f32, C: u32, eps: f32) -> f32 {
  partial[li] = ss;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (li < s) { partial[li] += partial[li + s]; }
    workgroupBarrier();
  }
  return inverseSqrt(partial[0] / f32(C) + eps);
}

// ---- rmsnorm ----------------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;        // [N, C/4]
@group(0) @binding(1) var<storage, read> w: array<vec4<f32>>;        // [C/4]
@group(0) @binding(2) var<storage, read_write> y: array<vec4<f32>>;  // [N, C/4]
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn rmsnorm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let n = wid.x + wid.y * 65535u;   // rows beyond 65535 use a second grid dimension
  let C4 = p.C / 4u;
  var ss = 0.0;
  if (n < p.N) {
    for (var c = li; c < C4; c += WG) { let v = x[n * C4 + c]; ss += dot(v, v); }
  }
  let rstd = row_rstd(li, ss, p.C, p.eps);
  if (n >= p.N) { return; }
  for (var c = li; c < C4; c += WG) { y[n * C4 + c] = x[n * C4 + c] * rstd * w[c]; }
}

// ---- residual + rmsnorm -------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> d: array<vec4<f32>>;           // [N, C/4] delta to add
@group(0) @binding(1) var<storage, read> wr: array<vec4<f32>>;          // [C/4]
@group(0) @binding(2) var<storage, read_write> xr: array<vec4<f32>>;    // [N, C/4] residual (+=)
@group(0) @binding(3) var<storage, read_write> yr: array<vec4<f32>>;    // [N, C/4]
@group(0) @binding(4) var<uniform> pr: Params;

@compute @workgroup_size(WG)
fn residual_rmsnorm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let n = wid.x + wid.y * 65535u;
  let C4 = pr.C / 4u;
  var ss = 0.0;
  if (n < pr.N) {
    for (var c = li; c < C4; c += WG) {
      let v = xr[n * C4 + c] + d[n * C4 + c];
      xr[n * C4 + c] = v;
      ss += dot(v, v);
    }
  }
  let rstd = row_rstd(li, ss, pr.C, pr.eps);
  if (n >= pr.N) { return; }
  for (var c = li; c < C4; c += WG) { yr[n * C4 + c] = xr[n * C4 + c] * rstd * wr[c]; }
}

// ---- one invocation per row (same bindings as rmsnorm / residual_rmsnorm) ----------------------
fn row_of(gid: vec3<u32>, nwg: vec3<u32>) -> u32 { return gid.x + gid.y * nwg.x * WG; }

@compute @workgroup_size(WG)
fn rmsnorm_t(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = row_of(gid, nwg);
  if (n >= p.N) { return; }
  let C4 = p.C / 4u;
  var ss = 0.0;
  for (var c = 0u; c < C4; c++) { let v = x[n * C4 + c]; ss += dot(v, v); }
  let rstd = inverseSqrt(ss / f32(p.C) + p.eps);
  for (var c = 0u; c < C4; c++) { y[n * C4 + c] = x[n * C4 + c] * rstd * w[c]; }
}

@compute @workgroup_size(WG)
fn residual_rmsnorm_t(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = row_of(gid, nwg);
  if (n >= pr.N) { return; }
  let C4 = pr.C / 4u;
  var ss = 0.0;
  for (var c = 0u; c < C4; c++) {
    let v = xr[n * C4 + c] + d[n * C4 + c];
    xr[n * C4 + c] = v;
    ss += dot(v, v);
  }
  let rstd = inverseSqrt(ss / f32(pr.C) + pr.eps);
  for (var c = 0u; c < C4; c++) { yr[n * C4 + c] = xr[n * C4 + c] * rstd * wr[c]; }
}

// ---- backward: dx, and each row's rstd for rmsnorm_dw ---------------------------------------------
struct BwdParams {
  N: u32,
  C: u32,
  eps: f32,
  flags: u32,   // bit 0: dx += (residual stream); else dx =
}

@group(0) @binding(0) var<storage, read> bdy: array<vec4<f32>>;          // [N, C/4]
@group(0) @binding(1) var<storage, read> bx: array<vec4<f32>>;           // [N, C/4] forward input
@group(0) @binding(2) var<storage, read> bw: array<vec4<f32>>;           // [C/4]
@group(0) @binding(3) var<storage, read_write> bdx: array<vec4<f32>>;    // [N, C/4]
@group(0) @binding(4) var<storage, read_write> brstd: array<f32>;        // [N]
@group(0) @binding(5) var<uniform> pb: BwdParams;

fn row_sum(li: u32, v: f32) -> f32 {
  workgroupBarrier();   // the previous reduction's result has been read by everyone
  partial[li] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (li < s) { partial[li] += partial[li + s]; }
    workgroupBarrier();
  }
  return partial[0];
}

@compute @workgroup_size(WG)
fn rmsnorm_bwd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let n = wid.x + wid.y * 65535u;
  let C4 = pb.C / 4u;
  var ss = 0.0;
  var gx = 0.0;
  if (n < pb.N) {
    for (var c = li; c < C4; c += WG) {
      let v = bx[n * C4 + c];
      ss += dot(v, v);
      gx += dot(bdy[n * C4 + c] * bw[c], v);
    }
  }
  let rstd = inverseSqrt(row_sum(li, ss) / f32(pb.C) + pb.eps);
  let k = rstd * rstd * rstd * row_sum(li, gx) / f32(pb.C);
  if (n >= pb.N) { return; }
  if (li == 0u) { brstd[n] = rstd; }
  for (var c = li; c < C4; c += WG) {
    let i = n * C4 + c;
    let v = rstd * bdy[i] * bw[c] - k * bx[i];
    if ((pb.flags & 1u) != 0u) { bdx[i] += v; } else { bdx[i] = v; }
  }
}

@compute @workgroup_size(WG)
fn rmsnorm_bwd_t(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = row_of(gid, nwg);
  if (n >= pb.N) { return; }
  let C4 = pb.C / 4u;
  var ss = 0.0;
  var gx = 0.0;
  for (var c = 0u; c < C4; c++) {
    let v = bx[n * C4 + c];
    ss += dot(v, v);
    gx += dot(bdy[n * C4 + c] * bw[c], v);
  }
  let rstd = inverseSqrt(ss / f32(pb.C) + pb.eps);
  let k = rstd * rstd * rstd * gx / f32(pb.C);
  brstd[n] = rstd;
  for (var c = 0u; c < C4; c++) {
    let i = n * C4 + c;
    let v = rstd * bdy[i] * bw[c] - k * bx[i];
    if ((pb.flags & 1u) != 0u) { bdx[i] += v; } else { bdx[i] = v; }
  }
}

// ---- backward: dw ------------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> wdy: array<vec4<f32>>;          // [N, C/4]
@group(0) @binding(1) var<storage, read> wx: array<vec4<f32>>;           // [N, C/4]
@group(0) @binding(2) var<storage, read> wrstd: array<f32>;              // [N] from rmsnorm_bwd
@group(0) @binding(3) var<storage, read_write> wdw: array<vec4<f32>>;    // [C/4]
@group(0) @binding(4) var<uniform> pw: BwdParams;

@compute @workgroup_size(WG)
fn rmsnorm_dw(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = gid.x;
  let C4 = pw.C / 4u;
  if (c >= C4) { return; }
  var acc = vec4<f32>();
  for (var n = 0u; n < pw.N; n++) { acc += wdy[n * C4 + c] * wx[n * C4 + c] * wrstd[n]; }
  wdw[c] += acc;
}
