// The NF4 code book (QLoRA / bitsandbytes, the values shaders/nf4.wgsl quantizes to) and its
// lookups, shared by every kernel that reads packed codes: matmul_nf4.wgsl, linear_bwd.wgsl and
// embedding.wgsl `// #include nf4_codes` (src/gpu/shaders.ts splices this file in). A u32 word
// holds 8 codes, low nibble first; dequantized value = NF4[code] * absmax of its 64-block.
const NF4 = array<f32, 16>(
  -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
  -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
  0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
  0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0);
var<private> lut: array<f32, 16> = NF4;

// Codes 0-3 / 4-7 of a word, one table read per code.
fn unpack_lo(q: u32) -> vec4<f32> {
  return vec4<f32>(lut[q & 15u], lut[(q >> 4u) & 15u], lut[(q >> 8u) & 15u], lut[(q >> 12u) & 15u]);
}
fn unpack_hi(q: u32) -> vec4<f32> {
  return vec4<f32>(lut[(q >> 16u) & 15u], lut[(q >> 20u) & 15u], lut[(q >> 24u) & 15u], lut[q >> 28u]);
}

// The same through a table of every code byte's two values in workgroup memory: one read per two
// codes. On SwiftShader each dynamically indexed read is a gather, one load per lane, and the
// reads cost more than the multiply-adds at M = 1, so halving them speeds a decode GEMV by ~15 %.
// A kernel calls fill_pairs once from uniform control flow (it ends with a barrier), then
// pairs_lo / pairs_hi.
var<workgroup> pair_lut: array<vec2<f32>, 256>;
fn fill_pairs(local_index: u32, invocations: u32) {
  for (var i = local_index; i < 256u; i += invocations) { pair_lut[i] = vec2<f32>(lut[i & 15u], lut[i >> 4u]); }
  workgroupBarrier();
}
fn pairs_lo(q: u32) -> vec4<f32> { return vec4<f32>(pair_lut[q & 255u], pair_lut[(q >> 8u) & 255u]); }
fn pairs_hi(q: u32) -> vec4<f32> { return vec4<f32>(pair_lut[(q >> 16u) & 255u], pair_lut[q >> 24u]); }
