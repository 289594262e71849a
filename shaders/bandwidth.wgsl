// Streaming read for measuring this adapter's memory bandwidth (src/gpu/limits.ts):
//   partial[i] = sum of the vec4s invocation i reads from src [n4 vec4], component-wise.
// Two layouts of the same sum, each the right one on some hardware:
//   stream_grid    invocation i reads i, i + T, i + 2T, ... (T = invocations): neighbouring
//                  invocations read neighbouring vec4s (coalesced on GPUs);
//   stream_chunk   invocation i reads one contiguous chunk [i * per, (i + 1) * per) (CPU
//                  adapters: each core streams its own range, prefetcher friendly).
// CPU twin: stream_read (src/reference/bandwidth.ts). Tested by tests/unit/gpu/kernels-limits.test.ts.
// Write contract: partial overwritten (=), one vec4 per invocation.

struct Params {
  n4: u32,       // vec4s in src
  threads: u32,  // invocations T (partial has T entries)
  _p0: u32,
  _p1: u32,
}

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;             // [n4]
@group(0) @binding(1) var<storage, read_write> partial: array<vec4<f32>>;   // [T]
@group(0) @binding(2) var<uniform> p: Params;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn stream_grid(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= p.threads) { return; }
  var a = vec4<f32>(0.0);
  for (var k = i; k < p.n4; k += p.threads) { a += src[k]; }
  partial[i] = a;
}

@compute @workgroup_size(WG)
fn stream_chunk(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= p.threads) { return; }
  let per = (p.n4 + p.threads - 1u) / p.threads;
  let end = min(p.n4, (i + 1u) * per);
  var a = vec4<f32>(0.0);
  var b = vec4<f32>(0.0);
  var k = i * per;
  for (; k + 1u < end; k += 2u) { a += src[k]; b += src[k + 1u]; }
  if (k < end) { a += src[k]; }
  partial[i] = a + b;
}
