// NF4 quantization on the GPU at load time (QLoRA / bitsandbytes NF4, block size BLOCK = 64):
//   W[n] f32 (row-major [out, in] flattened)  ->  Q[n/8] u32 packed codes, absmax[n/BLOCK] f32,
//   E[n/BLOCK] vec2 (sum |w - deq|, max |w - deq|) per block.
// Packing: 8 codes per u32, low nibble first, in row-major element order (element i is in word
// i / 8 at bits 4 * (i % 8)). n must be a multiple of BLOCK (the launcher checks).
// Code rule (bit-identical to the CPU twin src/reference/nf4.ts, nf4_code): code = number of
// bitsandbytes thresholds t with w > f32(t * absmax); ties go to the lower code; an all-zero
// block gets code 7 (level 0). Dequantized value = NF4[code] * absmax.
// Launcher: src/gpu/kernels/nf4.ts. Tested by tests/unit/gpu/nf4-gpu.test.ts.
// Write contract: Q, absmax, E, and the error total are overwritten (=).

struct Params {
  n: u32,        // elements
  blocks: u32,   // n / BLOCK
  rowStride: u32, // blocks per row of the 2D dispatch grid (workgroups.x * WG)
  _pad: u32,
}

override BLOCK: u32 = 64;   // elements per absmax block; a multiple of 8
override WG: u32 = 64;      // invocations per workgroup

const NF4 = array<f32, 16>(
  -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
  -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
  0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
  0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0);

// bitsandbytes dQuantizeNF4 decision thresholds, low to high.
const THRESH = array<f32, 15>(
  -0.8480964004993439, -0.6106329262256622, -0.4599952697753906, -0.33967943489551544,
  -0.23460740596055984, -0.13791173323988914, -0.045525018125772476, 0.03979014977812767,
  0.1202552504837513, 0.2035212516784668, 0.2920137718319893, 0.3893125355243683,
  0.5016634166240692, 0.6427869200706482, 0.8614784181118011);

// ---- quantize: one invocation per block ---------------------------------------------------
@group(0) @binding(0) var<storage, read> W: array<f32>;              // [n] input weights
@group(0) @binding(1) var<storage, read_write> Q: array<u32>;        // [n/8] packed codes
@group(0) @binding(2) var<storage, read_write> absmax: array<f32>;   // [n/BLOCK] scales
@group(0) @binding(3) var<storage, read_write> E: array<vec2<f32>>;  // [n/BLOCK] (sum, max) |error|
@group(0) @binding(4) var<uniform> p: Params;

fn code_of(x: f32, amax: f32) -> u32 {
  if (amax == 0.0) { return 7u; }
  var c = 0u;
  for (var t = 0u; t < 15u; t++) {
    let thr = THRESH[t] * amax;
    c += select(0u, 1u, x > thr);
  }
  return c;
}

@compute @workgroup_size(WG)
fn nf4_quantize(@builtin(global_invocation_id) gid: vec3<u32>) {
  let b = gid.y * p.rowStride + gid.x;
  if (b >= p.blocks) { return; }
  let base = b * BLOCK;
  var amax = 0.0;
  for (var i = 0u; i < BLOCK; i++) { amax = max(amax, abs(W[base + i])); }
  absmax[b] = amax;
  var esum = 0.0;
  var emax = 0.0;
  for (var w = 0u; w < BLOCK / 8u; w++) {
    var word = 0u;
    for (var j = 0u; j < 8u; j++) {
      let x = W[base + w * 8u + j];
      let c = code_of(x, amax);
      word |= c << (4u * j);
      let d = abs(x - NF4[c] * amax);
      esum += d;
      emax = max(emax, d);
    }
    Q[base / 8u + w] = word;
  }
  E[b] = vec2<f32>(esum, emax);
}

// ---- error total: one workgroup folds E into (sum, max) ----------------------------------
@group(0) @binding(0) var<storage, read> Ein: array<vec2<f32>>;       // [blocks] per-block errors
@group(0) @binding(1) var<storage, read_write> total: array<f32>;    // [2] (sum |err|, max |err|)
@group(0) @binding(2) var<uniform> pr: Params;

const RWG: u32 = 256u;
var<workgroup> part: array<vec2<f32>, RWG>;

@compute @workgroup_size(RWG)
fn nf4_error_reduce(@builtin(local_invocation_index) li: u32) {
  var acc = vec2<f32>(0.0, 0.0);
  for (var b = li; b < pr.blocks; b += RWG) {
    let e = Ein[b];
    acc = vec2<f32>(acc.x + e.x, max(acc.y, e.y));
  }
  part[li] = acc;
  workgroupBarrier();
  for (var s = RWG / 2u; s > 0u; s >>= 1u) {
    if (li < s) {
      let o = part[li + s];
      part[li] = vec2<f32>(part[li].x + o.x, max(part[li].y, o.y));
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    total[0] = part[0].x;
    total[1] = part[0].y;
  }
}
