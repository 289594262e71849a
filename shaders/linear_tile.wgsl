// Storing one register tile of the 8 x 8 linear kernels: lin_rb8 (linear.wgsl) and nf4_dec
// (matmul_nf4.wgsl) both `// #include linear_tile` (src/gpu/shaders.ts splices this file in).
// Uses the includer's p (Params), bias, XA, LB, Y and its MR / SWIGLU overrides. The 16 x 16
// kernels (lin_rb16, nf4_dec16; MR left at 8) store each of their four 8 x 8 quarters as a tile.

// An invocation's sums: row i, columns 0-3 in a{i}l and 4-7 in a{i}h (rows past MR unused).
struct Tile8 {
  a0l: vec4<f32>, a0h: vec4<f32>, a1l: vec4<f32>, a1h: vec4<f32>, a2l: vec4<f32>, a2h: vec4<f32>, a3l: vec4<f32>, a3h: vec4<f32>,
  a4l: vec4<f32>, a4h: vec4<f32>, a5l: vec4<f32>, a5h: vec4<f32>, a6l: vec4<f32>, a6h: vec4<f32>, a7l: vec4<f32>, a7h: vec4<f32>,
}

// A whole tile (MR rows from row0 and its 8 columns in range; with SwiGLU its 4 outputs) whose 8
// columns lie in one LoRA segment (SwiGLU: gate and up each in one): bias and LoRA (scale (XA B^T)) added in
// registers, then stored directly (SwiGLU: silu(gate) * up first), not through the includer's
// per-element epilogue (at K = 64 that cost as much as the main loop; with SwiGLU the per-row path
// also reads the tile back from an array, which SwiftShader spills to memory). Returns false,
// storing nothing, for any other tile.
fn store_tile8(row0: u32, g: u32, tile: Tile8) -> bool {
  // W rows (bias and LoRA B rows) of the low and high columns: 8g and 8g + 4; SwiGLU: gate 4g, up N + 4g.
  let nl = select(g * 8u, g * 4u, swiglu());
  let nh = select(g * 8u + 4u, p.N + g * 4u, swiglu());
  let sl = segment(nl);
  let sh = segment(nh);
  let inRange = row0 + MR <= p.M && select(nl + 8u <= p.N, nl + 4u <= p.N, swiglu());
  let oneSeg = sl == segment(nl + 3u) && sh == segment(nh + 3u) && (swiglu() || sl == sh);
  if (!inRange || ((p.flags & 2u) != 0u && !oneSeg)) { return false; }
  var t = tile;
  if ((p.flags & 1u) != 0u) {
    let bl = vec4<f32>(bias[nl], bias[nl + 1u], bias[nl + 2u], bias[nl + 3u]);
    let bh = vec4<f32>(bias[nh], bias[nh + 1u], bias[nh + 2u], bias[nh + 3u]);
    t.a0l += bl; t.a0h += bh;
    if (MR > 1u) { t.a1l += bl; t.a1h += bh; }
    if (MR > 2u) { t.a2l += bl; t.a2h += bh; t.a3l += bl; t.a3h += bh; }
    if (MR > 4u) { t.a4l += bl; t.a4h += bh; t.a5l += bl; t.a5h += bh; t.a6l += bl; t.a6h += bh; t.a7l += bl; t.a7h += bh; }
  }
  if ((p.flags & 2u) != 0u) { t = add_lora8(t, row0, nl, nh, sl, sh); }
  // The rows stored in a loop over an array of the sums, not MR inlined calls: SwiftShader compiled
  // lin_rb8 1.25-1.5x slower with those; `bench matmul --model agent --m 1,8,1280` measured no
  // difference in speed.
  let acc = array<vec4<f32>, 16>(t.a0l, t.a0h, t.a1l, t.a1h, t.a2l, t.a2h, t.a3l, t.a3h,
    t.a4l, t.a4h, t.a5l, t.a5h, t.a6l, t.a6h, t.a7l, t.a7h);
  if (swiglu()) {
    let i0 = row0 * p.N + g * 4u;
    for (var i = 0u; i < MR; i++) { put4(i0 + i * p.N, swiglu4(acc[2u * i], acc[2u * i + 1u])); }
    return true;
  }
  let i0 = row0 * p.N + nl;
  for (var i = 0u; i < MR; i++) { put8(i0 + i * p.N, acc[2u * i], acc[2u * i + 1u]); }
  return true;
}

// The LoRA segment of W row n (as epi() counts it).
fn segment(n: u32) -> u32 {
  return select(0u, 1u, n >= p.seg1) + select(0u, 1u, n >= p.seg2);
}

// t + scale (XA B^T) for the tile's rows; low columns from B rows nl.. (XA segment sl), high from
// nh.. (sh). d = XA B^T is summed over q in order, then scale d added: the rounding of epi()
// exactly, so a row's output does not depend on whether its tile took this path. Without SwiGLU
// the two halves share their segment (store_tile8 asks it), so XA is read once for both (SWIGLU is
// a compile-time constant: each pipeline holds one of the two loops).
fn add_lora8(tile: Tile8, row0: u32, nl: u32, nh: u32, sl: u32, sh: u32) -> Tile8 {
  var t = tile;
  let R = p.R;
  let S = p.xaStride;
  let xl = row0 * S + sl * R;
  let xh = row0 * S + sh * R;
  var d0l = vec4<f32>(); var d0h = vec4<f32>(); var d1l = vec4<f32>(); var d1h = vec4<f32>();
  var d2l = vec4<f32>(); var d2h = vec4<f32>(); var d3l = vec4<f32>(); var d3h = vec4<f32>();
  var d4l = vec4<f32>(); var d4h = vec4<f32>(); var d5l = vec4<f32>(); var d5h = vec4<f32>();
  var d6l = vec4<f32>(); var d6h = vec4<f32>(); var d7l = vec4<f32>(); var d7h = vec4<f32>();
  if (!swiglu()) {
    for (var q = 0u; q < R; q++) {
      let ll = vec4<f32>(LB[nl * R + q], LB[(nl + 1u) * R + q], LB[(nl + 2u) * R + q], LB[(nl + 3u) * R + q]);
      let lh = vec4<f32>(LB[nh * R + q], LB[(nh + 1u) * R + q], LB[(nh + 2u) * R + q], LB[(nh + 3u) * R + q]);
      { let x = XA[xl + q]; d0l += x * ll; d0h += x * lh; }
      if (MR > 1u) { let x = XA[xl + S + q]; d1l += x * ll; d1h += x * lh; }
      if (MR > 2u) {
        { let x = XA[xl + 2u * S + q]; d2l += x * ll; d2h += x * lh; }
        { let x = XA[xl + 3u * S + q]; d3l += x * ll; d3h += x * lh; }
      }
      if (MR > 4u) {
        { let x = XA[xl + 4u * S + q]; d4l += x * ll; d4h += x * lh; }
        { let x = XA[xl + 5u * S + q]; d5l += x * ll; d5h += x * lh; }
        { let x = XA[xl + 6u * S + q]; d6l += x * ll; d6h += x * lh; }
        { let x = XA[xl + 7u * S + q]; d7l += x * ll; d7h += x * lh; }
      }
    }
  } else {
    for (var q = 0u; q < R; q++) {
      let ll = vec4<f32>(LB[nl * R + q], LB[(nl + 1u) * R + q], LB[(nl + 2u) * R + q], LB[(nl + 3u) * R + q]);
      let lh = vec4<f32>(LB[nh * R + q], LB[(nh + 1u) * R + q], LB[(nh + 2u) * R + q], LB[(nh + 3u) * R + q]);
      d0l += XA[xl + q] * ll; d0h += XA[xh + q] * lh;
      if (MR > 1u) { d1l += XA[xl + S + q] * ll; d1h += XA[xh + S + q] * lh; }
      if (MR > 2u) {
        d2l += XA[xl + 2u * S + q] * ll; d2h += XA[xh + 2u * S + q] * lh;
        d3l += XA[xl + 3u * S + q] * ll; d3h += XA[xh + 3u * S + q] * lh;
      }
      if (MR > 4u) {
        d4l += XA[xl + 4u * S + q] * ll; d4h += XA[xh + 4u * S + q] * lh;
        d5l += XA[xl + 5u * S + q] * ll; d5h += XA[xh + 5u * S + q] * lh;
        d6l += XA[xl + 6u * S + q] * ll; d6h += XA[xh + 6u * S + q] * lh;
        d7l += XA[xl + 7u * S + q] * ll; d7h += XA[xh + 7u * S + q] * lh;
      }
    }
  }
  t.a0l += p.scale * d0l; t.a0h += p.scale * d0h;
  if (MR > 1u) { t.a1l += p.scale * d1l; t.a1h += p.scale * d1h; }
  if (MR > 2u) { t.a2l += p.scale * d2l; t.a2h += p.scale * d2h; t.a3l += p.scale * d3l; t.a3h += p.scale * d3h; }
  if (MR > 4u) {
    t.a4l += p.scale * d4l; t.a4h += p.scale * d4h; t.a5l += p.scale * d5l; t.a5h += p.scale * d5h;
    t.a6l += p.scale * d6l; t.a6h += p.scale * d6h; t.a7l += p.scale * d7l; t.a7h += p.scale * d7h;
  }
  return t;
}

// silu(gate) * up on four outputs (the same operations as silu() per element).
fn swiglu4(gate: vec4<f32>, up: vec4<f32>) -> vec4<f32> {
  return gate / (vec4<f32>(1.0) + exp(-gate)) * up;
}

// Four consecutive outputs from Y[i] (=, or += with flags bit 2).
fn put4(i: u32, v: vec4<f32>) {
  if ((p.flags & 4u) != 0u) {
    Y[i] += v.x; Y[i + 1u] += v.y; Y[i + 2u] += v.z; Y[i + 3u] += v.w;
  } else {
    Y[i] = v.x; Y[i + 1u] = v.y; Y[i + 2u] = v.z; Y[i + 3u] = v.w;
  }
}

// Eight consecutive outputs from Y[i] (=, or += with flags bit 2), no epilogue.
fn put8(i: u32, lo: vec4<f32>, hi: vec4<f32>) {
  if ((p.flags & 4u) != 0u) { add8(i, lo, hi); } else { set8(i, lo, hi); }
}

// Y[i .. i + 7] += (lo, hi).
fn add8(i: u32, lo: vec4<f32>, hi: vec4<f32>) {
  Y[i] += lo.x; Y[i + 1u] += lo.y; Y[i + 2u] += lo.z; Y[i + 3u] += lo.w;
  Y[i + 4u] += hi.x; Y[i + 5u] += hi.y; Y[i + 6u] += hi.z; Y[i + 7u] += hi.w;
}

// Y[i .. i + 7] = (lo, hi).
fn set8(i: u32, lo: vec4<f32>, hi: vec4<f32>) {
  Y[i] = lo.x; Y[i + 1u] = lo.y; Y[i + 2u] = lo.z; Y[i + 3u] = lo.w;
  Y[i + 4u] = hi.x; Y[i + 5u] = hi.y; Y[i + 6u] = hi.z; Y[i + 7u] = hi.w;
}
