// RMSNorm over rows, as Llama/Qwen2 compute it, and the fused residual + RMSNorm:
//   rmsnorm:          y[n, :] = x[n, :] / sqrt(mean(x[n, :]^2) + eps) * w
//   residual_rmsnorm: x[n, :] += d[n, :];  y[n, :] = rmsnorm(x[n, :]) * w   (one dispatch)
// N = rows (tokens), C = channels (a multiple of 4). One workgroup of WG invocations per row;
// the sum of squares is reduced through workgroup memory.
// CPU twin: rmsnorm_forward (src/reference/rmsnorm.ts). Launcher: src/gpu/kernels/rmsnorm.ts.
// Tested by tests/unit/kernels-a-rmsnorm.test.ts.
// Write contract: y is overwritten (=); in residual_rmsnorm x is the residual stream and is
// updated in place (+=).

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
