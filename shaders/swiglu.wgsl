// SwiGLU of the Llama/Qwen2 MLP, standalone (the fused form is the SWIGLU epilogue of
// shaders/linear.wgsl and shaders/matmul_nf4.wgsl, which skips this dispatch):
//   out[m, i] = silu(gu[m, i]) * gu[m, I + i]     silu(g) = g / (1 + exp(-g))
// Input layout: the fused gate|up matmul output [M, 2I], each row = I gate values then I up
// values (gate and up weights concatenated along out). M = rows, I = intermediate size.
// CPU twin: swiglu_forward (src/reference/swiglu.ts). Launcher: src/gpu/kernels/swiglu.ts.
// Tested by tests/unit/kernels-a-swiglu.test.ts.
// Write contract: out is overwritten (=).

struct Params {
  M: u32,
  I: u32,
  rowStride: u32,  // elements per row of the 2D dispatch grid (workgroups.x * WG)
  _pad: u32,
}

override WG: u32 = 64;

@group(0) @binding(0) var<storage, read> gu: array<f32>;          // [M, 2I]
@group(0) @binding(1) var<storage, read_write> out: array<f32>;   // [M, I]
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn swiglu(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.y * p.rowStride + gid.x;
  if (e >= p.M * p.I) { return; }
  let m = e / p.I;
  let i = e % p.I;
  let g = gu[m * 2u * p.I + i];
  out[e] = g / (1.0 + exp(-g)) * gu[m * 2u * p.I + p.I + i];
}
