// A fused group's LoRA folded into its f32 weight for inference: out[n, k] = W[n, k] + scale *
// sum_r B[n, r] A[s(n) R + r, k], s(n) the segment of W row n (q|k|v: 3, gate|up: 2, else 1; the
// same segments as the Linear's LoRA epilogue). The sum runs over r in order, then is scaled and
// added once. Rollouts run the merged weight (one product per linear instead of X W^T plus the
// rank-R path); training keeps the separate path (its gradients need X A^T).
// CPU twin: mergeLoraPair (src/export/merge.ts), per segment, in f64. Launcher:
// src/gpu/kernels/lora-merge.ts. Tested by tests/unit/gpu/lora-merge.test.ts.
// Write contract: out is overwritten (=). One invocation per 4 consecutive elements of a row
// (K % 4 == 0, as every Linear has).

struct Params {
  NW: u32,
  K: u32,
  R: u32,
  // The first row of segments 1 and 2 (NW when absent).
  seg1: u32,
  seg2: u32,
  // Invocations per row of the dispatch grid (x groups * WG).
  stride: u32,
  scale: f32,
  _pad: u32,
}

override WG: u32 = 64;

@group(0) @binding(0) var<storage, read> W4: array<vec4<f32>>;     // [NW, K / 4]
@group(0) @binding(1) var<storage, read> A4: array<vec4<f32>>;     // [S * R, K / 4]
@group(0) @binding(2) var<storage, read> B: array<f32>;            // [NW, R]
@group(0) @binding(3) var<storage, read_write> out4: array<vec4<f32>>; // [NW, K / 4]
@group(0) @binding(4) var<uniform> p: Params;

fn segment(n: u32) -> u32 {
  return select(0u, 1u, n >= p.seg1) + select(0u, 1u, n >= p.seg2);
}

@compute @workgroup_size(WG)
fn lora_merge4(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * p.stride + gid.x;
  let K4 = p.K / 4u;
  if (i >= p.NW * K4) { return; }
  let n = i / K4;
  let k4 = i % K4;
  let s = segment(n);
  var d = vec4<f32>();
  for (var r = 0u; r < p.R; r++) {
    d += B[n * p.R + r] * A4[(s * p.R + r) * K4 + k4];
  }
  out4[i] = W4[i] + p.scale * d;
}
