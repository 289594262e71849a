// Rows of a [*, W] f32 matrix picked by an index list: the training step runs its LM head,
// log-probs and their backward on the loss rows only (TrainStep with TrainBatch.lossRows),
// gathering those rows of the final hidden states and spreading the results back.
//   dst[i, :] = src[idx[i0 + i], :]   for i < n;   idx[i0 + i] == NONE (0xffffffff): zeros
// Spreading compact rows back to every row is the same gather with the inverse index (NONE on
// the rows that were not picked). CPU twin: gatherRows (src/reference/rows.ts). Launcher:
// src/gpu/kernels/rows.ts. Tested by tests/unit/gpu/rows.test.ts.
// Write contract: dst rows 0..n-1 are overwritten (=). One invocation per element, or per vec4
// with W % 4 == 0 (gather_rows4: SwiftShader spends about a load's time per invocation).

struct Params {
  n: u32,       // rows written
  W: u32,       // floats per row
  i0: u32,      // first index of idx read
  stride: u32,  // invocations per row of the dispatch grid (x groups * WG)
}

override WG: u32 = 64;
const NONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<storage, read> src: array<f32>;        // [*, W]
@group(0) @binding(1) var<storage, read> idx: array<u32>;        // [i0 + n] row of src, or NONE
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;  // [n, W] (=)
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn gather_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.y * p.stride + gid.x;
  if (e >= p.n * p.W) { return; }
  let i = e / p.W;
  let r = idx[p.i0 + i];
  dst[e] = select(0.0, src[min(r, arrayLength(&src) / p.W - 1u) * p.W + e % p.W], r != NONE);
}

// The same on vec4s: W4 = W / 4 vec4s per row (W % 4 == 0).
@group(0) @binding(0) var<storage, read> src4: array<vec4<f32>>;        // [*, W4]
@group(0) @binding(2) var<storage, read_write> dst4: array<vec4<f32>>;  // [n, W4] (=)

@compute @workgroup_size(WG)
fn gather_rows4(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.y * p.stride + gid.x;
  if (e >= p.n * p.W) { return; }
  let i = e / p.W;
  let r = idx[p.i0 + i];
  dst4[e] = select(vec4<f32>(0.0), src4[min(r, arrayLength(&src4) / p.W - 1u) * p.W + e % p.W], r != NONE);
}
