// SwiGLU of the Llama/Qwen2 MLP, standalone (the fused form is the SWIGLU epilogue of
// shaders/linear.wgsl and shaders/matmul_nf4.wgsl, which skips this dispatch), and its backward:
//   swiglu:     out[m, i] = silu(gu[m, i]) * gu[m, I + i]     silu(g) = g / (1 + exp(-g))
//   swiglu_bwd: dgu[m, i] = dout up s (1 + g (1 - s)),  dgu[m, I + i] = dout g s,  s = sigmoid(g)
// Input layout: the fused gate|up matmul output [M, 2I], each row = I gate values then I up
// values (gate and up weights concatenated along out). M = rows, I = intermediate size.
// swiglu4 / swiglu_bwd4: the same on four consecutive elements per invocation, for I a multiple of
// 4 (every real model): vec4 loads and stores, a quarter of the index arithmetic. On a CPU adapter
// every storage access is a per-lane gather, so one vec4 access costs about what one f32 does.
// CPU twin: swiglu_forward (src/reference/swiglu.ts). Launcher: src/gpu/kernels/swiglu.ts.
// Tested by tests/unit/gpu/swiglu-forward.test.ts.
// Write contract: out is overwritten (=); dgu is overwritten (=) (backward launcher
// src/gpu/kernels/swiglu-backward.ts, twin swiglu_backward, tests/unit/gpu/swiglu-backward.test.ts).

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

@group(0) @binding(0) var<storage, read> gu4: array<vec4<f32>>;         // [M, 2I / 4]
@group(0) @binding(1) var<storage, read_write> out4: array<vec4<f32>>;  // [M, I / 4]

// The vec4 of gate values of out's vec4 e (its up values are i4 further), I = 4 i4.
fn gate4(e: u32, i4: u32) -> u32 { return (e / i4) * 2u * i4 + e % i4; }

@compute @workgroup_size(WG)
fn swiglu4(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.y * p.rowStride + gid.x;   // index of a vec4 of out
  let i4 = p.I / 4u;
  if (e >= p.M * i4) { return; }
  let gi = gate4(e, i4);
  let g = gu4[gi];
  out4[e] = g / (vec4<f32>(1.0) + exp(-g)) * gu4[gi + i4];
}

// ---- backward: dgu [M, 2I] (gate half, then up half: the layout of the gate|up weight rows) ------
@group(0) @binding(0) var<storage, read> bdout: array<f32>;       // [M, I]
@group(0) @binding(1) var<storage, read> bgu: array<f32>;         // [M, 2I] saved pre-activations
@group(0) @binding(2) var<storage, read_write> bdgu: array<f32>;  // [M, 2I]
@group(0) @binding(3) var<uniform> pb: Params;

@compute @workgroup_size(WG)
fn swiglu_bwd(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.y * pb.rowStride + gid.x;
  if (e >= pb.M * pb.I) { return; }
  let m = e / pb.I;
  let i = e % pb.I;
  let gi = m * 2u * pb.I + i;
  let g = bgu[gi];
  let u = bgu[gi + pb.I];
  let s = 1.0 / (1.0 + exp(-g));
  let d = bdout[e];
  bdgu[gi] = d * u * s * (1.0 + g * (1.0 - s));
  bdgu[gi + pb.I] = d * g * s;
}

@group(0) @binding(0) var<storage, read> bdout4: array<vec4<f32>>;       // [M, I / 4]
@group(0) @binding(1) var<storage, read> bgu4: array<vec4<f32>>;         // [M, 2I / 4]
@group(0) @binding(2) var<storage, read_write> bdgu4: array<vec4<f32>>;  // [M, 2I / 4]

@compute @workgroup_size(WG)
fn swiglu_bwd4(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.y * pb.rowStride + gid.x;   // index of a vec4 of dout
  let i4 = pb.I / 4u;
  if (e >= pb.M * i4) { return; }
  let gi = gate4(e, i4);
  let g = bgu4[gi];
  let u = bgu4[gi + i4];
  let s = vec4<f32>(1.0) / (vec4<f32>(1.0) + exp(-g));
  let d = bdout4[e];
  bdgu4[gi] = d * u * s * (vec4<f32>(1.0) + g * (vec4<f32>(1.0) - s));
  bdgu4[gi + i4] = d * g * s;
}
