// Backward of the linear layer (shaders/linear.wgsl, shaders/matmul_nf4.wgsl), LoRA included:
//   dX[M, K]  (=|+=) alpha D[M, N] . W[N, K]            dx_*      (W f32, or NF4 read in place)
//   G[N, K]   +=     alpha D[M, N]^T . X[M, K]           dw_*      (dW with D = dY; dA with D = dYB)
//   dYB[M, SR] =     scale dY[M, seg] . B[seg, R]        per LoRA segment: dx_* on views when R % 4
//                                                      == 0, else lora_dyb; at few rows dx_rb or
//                                                      dx_rb16 split along N (split4) into
//                                                      partials, summed by sum_split (with
//                                                      flags bit 1 all segments in one split
//                                                      dispatch, each split inside one segment)
//   dB[N, R]  +=     scale dY[M, N]^T . XA[M, seg R]     per segment: dw_* on views when R % 4 == 0
//                                                      (flags bit 1: all segments in one dispatch),
//                                                      else lora_db (XA = X A^T, forward kernel)
//   dbias[N]  +=     sum over rows of dY[M, N]           bias_grad
// dx_rb/dx_tiled/dw_* read D, W/X and write dX/G through strided views (Params ldD, dOff, rowOff,
// ld2, off2) so one LoRA segment is a slice of dY, B, XA and dYB without copies.
// M = rows (tokens), K = in features (a multiple of 4; of 64 for NF4), N = out features of W
// (NW: 2I for gate|up), R = LoRA rank, S = segments (q|k|v: 3), SR = S*R.
// Its own file, not entry points of linear.wgsl / matmul_nf4.wgsl: the backward reads W along
// K for a fixed out row (the transpose of the forward's access) and its bindings (D, W, dX; D, X,
// G) share nothing with the forward's fused epilogue (bias, XA, LB, Y).
// CPU twins: matmul_backward, linear_backward, lora_backward (src/reference). Launcher:
// src/gpu/kernels/linear-backward.ts. Tested by tests/unit/gpu/linear-backward.test.ts.
// Write contract: dX is overwritten (=), or accumulated (+=) with flags bit 0 (residual stream);
// dYB is overwritten; G (dW, dA), dB and dbias accumulate (+=). All sums over M run in a fixed
// order inside one invocation: results are deterministic (no atomics).
// Variants: *_rb register-blocked, 8 x 8 outputs per invocation in named vec4 registers, no
// workgroup memory (CPU adapters: SwiftShader spills dynamically indexed private arrays), D read
// as vec4 in dx_* (dw_* take four rows' values of one column as a vec4); the launcher falls back to
// *_tiled when N, ldD or dOff is not a multiple of 4;
// *_tiled 64 x 64 output tiles staged through workgroup memory, 4 x 4 per invocation (GPUs);
// dx_rb16 / dw_rb16 / dx_nf4_rb16 16 x 16 outputs per invocation (the rb16 variant).

struct Params {
  M: u32,
  N: u32,        // columns of D used (dx_*, dw_*), out rows of W (lora_*, bias_grad)
  K: u32,        // columns of W / X / G (dx_*, dw_*)
  flags: u32,    // bit 0: dX += (dx_*); bit 1: every LoRA segment in one dispatch (seg_cols_x,
                 // seg_cols_w, sum_split)
  ldD: u32,      // row stride of D (dx_*, dw_*; N unless D is a column slice)
  dOff: u32,     // first column of D (dx_*, dw_*)
  rowOff: u32,   // first row of W (dx_rb, dx_tiled) or of G (dw_*)
  ld2: u32,      // row stride in vec4 of dX (dx_rb, dx_tiled) or of X (dw_*)
  off2: u32,     // first vec4 column of dX (dx_rb, dx_tiled) or of X (dw_*)
  alpha: f32,    // factor on the result (dx_rb, dx_tiled, dw_*); the LoRA scale (lora_*)
  SR: u32,       // columns of dYB and XA (segments * R)
  R: u32,        // LoRA rank
  seg1: u32,     // first W row of LoRA segment 1 (N when one segment)
  seg2: u32,     // first W row of LoRA segment 2 (N when at most two)
  split4: u32,   // dx_rb, dx_rb16: vec4 columns of D per gid.z (0: all N in one pass), each z writing
                 // its partial sums (=, no flags) zStride vec4 after the previous z's
  zStride: u32,  // dx_rb* with split4: vec4 between partials; sum_split: vec4 between its parts
}

override WG_X: u32 = 4;
override WG_Y: u32 = 4;
// dw_rb, dw_rb16: whether the pipeline has the steps for M % 4 != 0 (false: M a multiple of 4 only).
override TAIL: bool = true;

// NF4 (code book), unpack_lo / unpack_hi, fill_pairs / pairs_lo / pairs_hi.
// #include nf4_codes


// Tiles of the *_tiled entry points: 64 rows x 16 (dx: 16 n per step; dw: 16 m per step).
const TT: u32 = 16u;          // contraction step
var<workgroup> td: array<f32, 64u * TT>;           // D tile
var<workgroup> tv: array<vec4<f32>, TT * 16u>;     // W (dx) or X (dw) tile, vec4 along K

// ---- dX = D W, f32 W ----------------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> xD: array<f32>;               // [M, ldD] (dx_tiled)
@group(0) @binding(0) var<storage, read> xD4: array<vec4<f32>>;        // [M, ldD/4] (dx_rb)
@group(0) @binding(1) var<storage, read> xW: array<vec4<f32>>;         // [N, K/4]
@group(0) @binding(2) var<storage, read_write> xdX: array<vec4<f32>>;  // [M, K/4]
@group(0) @binding(3) var<uniform> px: Params;

// The dx_* steps add four rows a, b, c, d of W (or X), weighted by four values y of D, as
// mat4x4(a, b, c, d) * y: ((a y.x + b y.y) + c y.z) + d y.w, the order of y.x a + y.y b + y.z c +
// y.w d, so the sums are the same bit for bit. SwiftShader stores every SPIR-V result to the stack
// and back: one matrix-vector product per sum instead of seven operations ran dx_rb16 1.14x faster.

fn put_dx(r: u32, c4: u32, v: vec4<f32>) { put_dx_at(r, c4, v, 0u); }

// flags bit 1 (LoRA's dY B of every segment in one split dispatch): the first vec4 column of dYB
// that the segment holding D column 4 n4 writes (s R / 4, segments starting at seg1, seg2); 0
// without the bit. Each split then lies inside one segment (the launcher aligns split4 to them).
fn seg_cols_x(n4: u32) -> u32 {
  if ((px.flags & 2u) == 0u) { return 0u; }
  let n = n4 * 4u;
  return select(select(0u, 1u, n >= px.seg1), 2u, n >= px.seg2) * (px.R / 4u);
}

// The same for dw_* (dB of every segment in one dispatch): the first vec4 column of XA that out
// row n's segment reads; each invocation's rows lie inside one segment.
fn seg_cols_w(n: u32) -> u32 {
  if ((pw.flags & 2u) == 0u) { return 0u; }
  return select(select(0u, 1u, n >= pw.seg1), 2u, n >= pw.seg2) * (pw.R / 4u);
}

// zo: the vec4 offset of a split's partial (dx_rb with split4; 0 otherwise).
fn put_dx_at(r: u32, c4: u32, v: vec4<f32>, zo: u32) {
  if (r >= px.M || c4 >= px.K / 4u) { return; }
  let i = zo + r * px.ld2 + px.off2 + c4;
  if ((px.flags & 1u) != 0u) { xdX[i] += px.alpha * v; } else { xdX[i] = px.alpha * v; }
}

// D read as vec4 along N: needs N, ldD and dOff multiples of 4 (else the launcher uses dx_tiled).
// With split4, invocation z sums D's vec4 columns [z split4, (z + 1) split4) only, into partial z
// (the launcher sets flags 0): LoRA's dY B at few rows is a handful of outputs over a long N, one
// workgroup of work without the split, i.e. one CPU thread.
@compute @workgroup_size(WG_X, WG_Y)
fn dx_rb(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row0 = gid.y * 8u;
  let c4 = gid.x * 2u;
  let K4 = px.K / 4u;
  if (row0 >= px.M || c4 >= K4) { return; }
  let N4 = px.N / 4u;
  let ld = px.ldD / 4u;
  let o = px.dOff / 4u;
  let c4h = min(c4 + 1u, K4 - 1u);
  let lastM = px.M - 1u;
  let d0 = min(row0, lastM) * ld + o;      let d1 = min(row0 + 1u, lastM) * ld + o;
  let d2 = min(row0 + 2u, lastM) * ld + o; let d3 = min(row0 + 3u, lastM) * ld + o;
  let d4 = min(row0 + 4u, lastM) * ld + o; let d5 = min(row0 + 5u, lastM) * ld + o;
  let d6 = min(row0 + 6u, lastM) * ld + o; let d7 = min(row0 + 7u, lastM) * ld + o;
  let w0 = px.rowOff * K4;
  let split = px.split4 != 0u;
  let n4a = select(0u, min(gid.z * px.split4, N4), split);
  let n4b = select(N4, min(n4a + px.split4, N4), split);
  let zo = select(0u, gid.z * px.zStride + seg_cols_x(n4a), split);
  var a0l = vec4<f32>(); var a0h = vec4<f32>(); var a1l = vec4<f32>(); var a1h = vec4<f32>();
  var a2l = vec4<f32>(); var a2h = vec4<f32>(); var a3l = vec4<f32>(); var a3h = vec4<f32>();
  var a4l = vec4<f32>(); var a4h = vec4<f32>(); var a5l = vec4<f32>(); var a5h = vec4<f32>();
  var a6l = vec4<f32>(); var a6h = vec4<f32>(); var a7l = vec4<f32>(); var a7h = vec4<f32>();
  for (var n4 = n4a; n4 < n4b; n4++) {
    let wb = w0 + 4u * n4 * K4;
    let l0 = xW[wb + c4];           let h0 = xW[wb + c4h];
    let l1 = xW[wb + K4 + c4];      let h1 = xW[wb + K4 + c4h];
    let l2 = xW[wb + 2u * K4 + c4]; let h2 = xW[wb + 2u * K4 + c4h];
    let l3 = xW[wb + 3u * K4 + c4]; let h3 = xW[wb + 3u * K4 + c4h];
    let ml = mat4x4<f32>(l0, l1, l2, l3); let mh = mat4x4<f32>(h0, h1, h2, h3);
    let y0 = xD4[d0 + n4]; a0l += ml * y0; a0h += mh * y0;
    let y1 = xD4[d1 + n4]; a1l += ml * y1; a1h += mh * y1;
    let y2 = xD4[d2 + n4]; a2l += ml * y2; a2h += mh * y2;
    let y3 = xD4[d3 + n4]; a3l += ml * y3; a3h += mh * y3;
    let y4 = xD4[d4 + n4]; a4l += ml * y4; a4h += mh * y4;
    let y5 = xD4[d5 + n4]; a5l += ml * y5; a5h += mh * y5;
    let y6 = xD4[d6 + n4]; a6l += ml * y6; a6h += mh * y6;
    let y7 = xD4[d7 + n4]; a7l += ml * y7; a7h += mh * y7;
  }
  let hi = c4 + 1u;
  // Stored in a loop over an array of the sums, not 16 inlined calls: SwiftShader compiled the
  // inlined form 3-5x slower (seconds at the first step) and runs both alike.
  let acc = array<vec4<f32>, 16>(a0l, a0h, a1l, a1h, a2l, a2h, a3l, a3h, a4l, a4h, a5l, a5h, a6l, a6h, a7l, a7h);
  for (var r = 0u; r < 8u; r++) {
    put_dx_at(row0 + r, c4, acc[2u * r], zo); put_dx_at(row0 + r, hi, acc[2u * r + 1u], zo);
  }
}

// 16 rows x 16 columns (four vec4) per invocation: dx_rb's loop with twice the rows and columns,
// so each W and D load feeds twice the multiply-adds (a CPU adapter gathers every per-lane load).
// Same requirements as dx_rb, and the same split4 (LoRA's dY B at ranks 16-64 on the rb16 variant);
// 64 vec4 sums a<row><q> (columns 4 (c4 + q) .. + 3).
@compute @workgroup_size(WG_X, WG_Y)
fn dx_rb16(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row0 = gid.y * 16u;
  let c4 = gid.x * 4u;
  let K4 = px.K / 4u;
  if (row0 >= px.M || c4 >= K4) { return; }
  let N4 = px.N / 4u;
  let ld = px.ldD / 4u;
  let o = px.dOff / 4u;
  let cb = min(c4 + 1u, K4 - 1u); let cc = min(c4 + 2u, K4 - 1u); let cd = min(c4 + 3u, K4 - 1u);
  let lastM = px.M - 1u;
  let d0 = min(row0 + 0u, lastM) * ld + o; let d1 = min(row0 + 1u, lastM) * ld + o;
  let d2 = min(row0 + 2u, lastM) * ld + o; let d3 = min(row0 + 3u, lastM) * ld + o;
  let d4 = min(row0 + 4u, lastM) * ld + o; let d5 = min(row0 + 5u, lastM) * ld + o;
  let d6 = min(row0 + 6u, lastM) * ld + o; let d7 = min(row0 + 7u, lastM) * ld + o;
  let d8 = min(row0 + 8u, lastM) * ld + o; let d9 = min(row0 + 9u, lastM) * ld + o;
  let d10 = min(row0 + 10u, lastM) * ld + o; let d11 = min(row0 + 11u, lastM) * ld + o;
  let d12 = min(row0 + 12u, lastM) * ld + o; let d13 = min(row0 + 13u, lastM) * ld + o;
  let d14 = min(row0 + 14u, lastM) * ld + o; let d15 = min(row0 + 15u, lastM) * ld + o;
  let w0 = px.rowOff * K4;
  let split = px.split4 != 0u;
  let n4a = select(0u, min(gid.z * px.split4, N4), split);
  let n4b = select(N4, min(n4a + px.split4, N4), split);
  let zo = select(0u, gid.z * px.zStride + seg_cols_x(n4a), split);
  var a0a = vec4<f32>(); var a0b = vec4<f32>(); var a0c = vec4<f32>(); var a0d = vec4<f32>();
  var a1a = vec4<f32>(); var a1b = vec4<f32>(); var a1c = vec4<f32>(); var a1d = vec4<f32>();
  var a2a = vec4<f32>(); var a2b = vec4<f32>(); var a2c = vec4<f32>(); var a2d = vec4<f32>();
  var a3a = vec4<f32>(); var a3b = vec4<f32>(); var a3c = vec4<f32>(); var a3d = vec4<f32>();
  var a4a = vec4<f32>(); var a4b = vec4<f32>(); var a4c = vec4<f32>(); var a4d = vec4<f32>();
  var a5a = vec4<f32>(); var a5b = vec4<f32>(); var a5c = vec4<f32>(); var a5d = vec4<f32>();
  var a6a = vec4<f32>(); var a6b = vec4<f32>(); var a6c = vec4<f32>(); var a6d = vec4<f32>();
  var a7a = vec4<f32>(); var a7b = vec4<f32>(); var a7c = vec4<f32>(); var a7d = vec4<f32>();
  var a8a = vec4<f32>(); var a8b = vec4<f32>(); var a8c = vec4<f32>(); var a8d = vec4<f32>();
  var a9a = vec4<f32>(); var a9b = vec4<f32>(); var a9c = vec4<f32>(); var a9d = vec4<f32>();
  var a10a = vec4<f32>(); var a10b = vec4<f32>(); var a10c = vec4<f32>(); var a10d = vec4<f32>();
  var a11a = vec4<f32>(); var a11b = vec4<f32>(); var a11c = vec4<f32>(); var a11d = vec4<f32>();
  var a12a = vec4<f32>(); var a12b = vec4<f32>(); var a12c = vec4<f32>(); var a12d = vec4<f32>();
  var a13a = vec4<f32>(); var a13b = vec4<f32>(); var a13c = vec4<f32>(); var a13d = vec4<f32>();
  var a14a = vec4<f32>(); var a14b = vec4<f32>(); var a14c = vec4<f32>(); var a14d = vec4<f32>();
  var a15a = vec4<f32>(); var a15b = vec4<f32>(); var a15c = vec4<f32>(); var a15d = vec4<f32>();
  for (var n4 = n4a; n4 < n4b; n4++) {
    let w1 = w0 + 4u * n4 * K4; let w2 = w1 + K4; let w3 = w2 + K4; let w4 = w3 + K4;
    let la = xW[w1 + c4]; let lb = xW[w2 + c4]; let lc = xW[w3 + c4]; let ld_ = xW[w4 + c4];
    let ma = xW[w1 + cb]; let mb = xW[w2 + cb]; let mc = xW[w3 + cb]; let md = xW[w4 + cb];
    let na = xW[w1 + cc]; let nb = xW[w2 + cc]; let nc = xW[w3 + cc]; let nd = xW[w4 + cc];
    let qa = xW[w1 + cd]; let qb = xW[w2 + cd]; let qc = xW[w3 + cd]; let qd = xW[w4 + cd];
    let ml = mat4x4<f32>(la, lb, lc, ld_); let mm = mat4x4<f32>(ma, mb, mc, md); let mn = mat4x4<f32>(na, nb, nc, nd); let mq = mat4x4<f32>(qa, qb, qc, qd);
    { let y = xD4[d0 + n4]; a0a += ml * y; a0b += mm * y; a0c += mn * y; a0d += mq * y; }
    { let y = xD4[d1 + n4]; a1a += ml * y; a1b += mm * y; a1c += mn * y; a1d += mq * y; }
    { let y = xD4[d2 + n4]; a2a += ml * y; a2b += mm * y; a2c += mn * y; a2d += mq * y; }
    { let y = xD4[d3 + n4]; a3a += ml * y; a3b += mm * y; a3c += mn * y; a3d += mq * y; }
    { let y = xD4[d4 + n4]; a4a += ml * y; a4b += mm * y; a4c += mn * y; a4d += mq * y; }
    { let y = xD4[d5 + n4]; a5a += ml * y; a5b += mm * y; a5c += mn * y; a5d += mq * y; }
    { let y = xD4[d6 + n4]; a6a += ml * y; a6b += mm * y; a6c += mn * y; a6d += mq * y; }
    { let y = xD4[d7 + n4]; a7a += ml * y; a7b += mm * y; a7c += mn * y; a7d += mq * y; }
    { let y = xD4[d8 + n4]; a8a += ml * y; a8b += mm * y; a8c += mn * y; a8d += mq * y; }
    { let y = xD4[d9 + n4]; a9a += ml * y; a9b += mm * y; a9c += mn * y; a9d += mq * y; }
    { let y = xD4[d10 + n4]; a10a += ml * y; a10b += mm * y; a10c += mn * y; a10d += mq * y; }
    { let y = xD4[d11 + n4]; a11a += ml * y; a11b += mm * y; a11c += mn * y; a11d += mq * y; }
    { let y = xD4[d12 + n4]; a12a += ml * y; a12b += mm * y; a12c += mn * y; a12d += mq * y; }
    { let y = xD4[d13 + n4]; a13a += ml * y; a13b += mm * y; a13c += mn * y; a13d += mq * y; }
    { let y = xD4[d14 + n4]; a14a += ml * y; a14b += mm * y; a14c += mn * y; a14d += mq * y; }
    { let y = xD4[d15 + n4]; a15a += ml * y; a15b += mm * y; a15c += mn * y; a15d += mq * y; }
  }
  // Stored in a loop over an array of the sums, not 64 inlined calls: SwiftShader compiled the
  // inlined form 3-5x slower (seconds at the first step) and runs both alike.
  let acc = array<vec4<f32>, 64>(a0a, a0b, a0c, a0d, a1a, a1b, a1c, a1d, a2a, a2b, a2c, a2d, a3a, a3b, a3c, a3d,
    a4a, a4b, a4c, a4d, a5a, a5b, a5c, a5d, a6a, a6b, a6c, a6d, a7a, a7b, a7c, a7d,
    a8a, a8b, a8c, a8d, a9a, a9b, a9c, a9d, a10a, a10b, a10c, a10d, a11a, a11b, a11c, a11d,
    a12a, a12b, a12c, a12d, a13a, a13b, a13c, a13d, a14a, a14b, a14c, a14d, a15a, a15b, a15c, a15d);
  for (var r = 0u; r < 16u; r++) {
    for (var q = 0u; q < 4u; q++) { put_dx_at(row0 + r, c4 + q, acc[4u * r + q], zo); }
  }
}

// Workgroup (16, 16): a tile of 64 rows x 64 columns (16 vec4); each invocation 4 rows x 1 vec4.
@compute @workgroup_size(16, 16)
fn dx_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(local_invocation_index) li: u32) {
  let K4 = px.K / 4u;
  let N = px.N;
  let rowBase = wid.y * 64u;
  let c4Base = wid.x * 16u;
  var a0 = vec4<f32>(); var a1 = vec4<f32>(); var a2 = vec4<f32>(); var a3 = vec4<f32>();
  for (var n0 = 0u; n0 < N; n0 += TT) {
    for (var e = li; e < 64u * TT; e += 256u) {
      let r = rowBase + e / TT;
      let n = n0 + e % TT;
      td[e] = select(0.0, xD[min(r, px.M - 1u) * px.ldD + px.dOff + min(n, N - 1u)], r < px.M && n < N);
    }
    {
      let n = n0 + li / 16u;
      let c = c4Base + li % 16u;
      tv[li] = select(vec4<f32>(), xW[(px.rowOff + min(n, N - 1u)) * K4 + min(c, K4 - 1u)], n < N && c < K4);
    }
    workgroupBarrier();
    let rb = lid.y * 4u * TT;
    for (var nn = 0u; nn < TT; nn++) {
      let w = tv[nn * 16u + lid.x];
      a0 += td[rb + nn] * w;
      a1 += td[rb + TT + nn] * w;
      a2 += td[rb + 2u * TT + nn] * w;
      a3 += td[rb + 3u * TT + nn] * w;
    }
    workgroupBarrier();
  }
  let r = rowBase + lid.y * 4u;
  let c4 = c4Base + lid.x;
  put_dx(r, c4, a0); put_dx(r + 1u, c4, a1); put_dx(r + 2u, c4, a2); put_dx(r + 3u, c4, a3);
}

// ---- dX = D deq(Wq), NF4 W (8 codes of one u32 = the 8 columns of an invocation) -------------
// Whole tensors only: no views, alpha 1 (D = dY [M, N], dX [M, K]).
@group(0) @binding(0) var<storage, read> qD: array<f32>;               // [M, N] (dx_nf4_tiled)
@group(0) @binding(0) var<storage, read> qD4: array<vec4<f32>>;        // [M, N/4] (dx_nf4_rb)
@group(0) @binding(1) var<storage, read> qW: array<u32>;               // [N, K/8] packed codes
@group(0) @binding(2) var<storage, read> qAbsmax: array<f32>;          // [N, K/64]
@group(0) @binding(3) var<storage, read_write> qdX: array<vec4<f32>>;  // [M, K/4]
@group(0) @binding(4) var<uniform> pq: Params;

fn put_dxq(r: u32, c4: u32, v: vec4<f32>) {
  if (r >= pq.M) { return; }
  let i = r * (pq.K / 4u) + c4;
  if ((pq.flags & 1u) != 0u) { qdX[i] += v; } else { qdX[i] = v; }
}

// D read as vec4 along N (N a multiple of 4, else the launcher uses dx_nf4_tiled).
@compute @workgroup_size(WG_X, WG_Y)
fn dx_nf4_rb(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  fill_pairs(li, WG_X * WG_Y);
  let row0 = gid.y * 8u;
  let kw = gid.x;          // u32 word of the row = columns 8 kw .. 8 kw + 7
  let K8 = pq.K / 8u;
  let KB = pq.K / 64u;
  if (row0 >= pq.M || kw >= K8) { return; }
  let N4 = pq.N / 4u;
  let lastM = pq.M - 1u;
  let d0 = min(row0, lastM) * N4;      let d1 = min(row0 + 1u, lastM) * N4;
  let d2 = min(row0 + 2u, lastM) * N4; let d3 = min(row0 + 3u, lastM) * N4;
  let d4 = min(row0 + 4u, lastM) * N4; let d5 = min(row0 + 5u, lastM) * N4;
  let d6 = min(row0 + 6u, lastM) * N4; let d7 = min(row0 + 7u, lastM) * N4;
  var a0l = vec4<f32>(); var a0h = vec4<f32>(); var a1l = vec4<f32>(); var a1h = vec4<f32>();
  var a2l = vec4<f32>(); var a2h = vec4<f32>(); var a3l = vec4<f32>(); var a3h = vec4<f32>();
  var a4l = vec4<f32>(); var a4h = vec4<f32>(); var a5l = vec4<f32>(); var a5h = vec4<f32>();
  var a6l = vec4<f32>(); var a6h = vec4<f32>(); var a7l = vec4<f32>(); var a7h = vec4<f32>();
  let blk = kw / 8u;
  for (var n4 = 0u; n4 < N4; n4++) {
    let n = 4u * n4;
    let q0 = qW[n * K8 + kw];        let s0 = qAbsmax[n * KB + blk];
    let q1 = qW[(n + 1u) * K8 + kw]; let s1 = qAbsmax[(n + 1u) * KB + blk];
    let q2 = qW[(n + 2u) * K8 + kw]; let s2 = qAbsmax[(n + 2u) * KB + blk];
    let q3 = qW[(n + 3u) * K8 + kw]; let s3 = qAbsmax[(n + 3u) * KB + blk];
    let l0 = pairs_lo(q0) * s0; let h0 = pairs_hi(q0) * s0;
    let l1 = pairs_lo(q1) * s1; let h1 = pairs_hi(q1) * s1;
    let l2 = pairs_lo(q2) * s2; let h2 = pairs_hi(q2) * s2;
    let l3 = pairs_lo(q3) * s3; let h3 = pairs_hi(q3) * s3;
    let ml = mat4x4<f32>(l0, l1, l2, l3); let mh = mat4x4<f32>(h0, h1, h2, h3);
    let y0 = qD4[d0 + n4]; a0l += ml * y0; a0h += mh * y0;
    let y1 = qD4[d1 + n4]; a1l += ml * y1; a1h += mh * y1;
    let y2 = qD4[d2 + n4]; a2l += ml * y2; a2h += mh * y2;
    let y3 = qD4[d3 + n4]; a3l += ml * y3; a3h += mh * y3;
    let y4 = qD4[d4 + n4]; a4l += ml * y4; a4h += mh * y4;
    let y5 = qD4[d5 + n4]; a5l += ml * y5; a5h += mh * y5;
    let y6 = qD4[d6 + n4]; a6l += ml * y6; a6h += mh * y6;
    let y7 = qD4[d7 + n4]; a7l += ml * y7; a7h += mh * y7;
  }
  let c4 = 2u * kw;
  let hi = c4 + 1u;
  // Stored in a loop over an array of the sums, not 16 inlined calls: SwiftShader compiled the
  // inlined form 3-5x slower (seconds at the first step) and runs both alike.
  let acc = array<vec4<f32>, 16>(a0l, a0h, a1l, a1h, a2l, a2h, a3l, a3h, a4l, a4h, a5l, a5h, a6l, a6h, a7l, a7h);
  for (var r = 0u; r < 8u; r++) {
    put_dxq(row0 + r, c4, acc[2u * r]); put_dxq(row0 + r, hi, acc[2u * r + 1u]);
  }
}

// ---- generated by scripts/gen-nf4-tiles.ts: begin (do not edit by hand) ----
// R = 16 or 32 rows x 2 words (16 columns, four vec4) per invocation: dx_nf4_rb's loop with
// more rows and columns, so each unpacked word and each D load feeds more multiply-adds (the rb16
// variant). K is a multiple of 64, so both words lie in one 64-block (one absmax per W row).
// Per-element sums in dx_nf4_rb's order (bit-identical to it at either R); 4R vec4 sums
// a<row><q>. src/gpu/kernels/linear-backward.ts (tileRows) takes 32 rows as the forward does.
@compute @workgroup_size(WG_X, WG_Y)
fn dx_nf4_rb16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  fill_pairs(li, WG_X * WG_Y);
  let row0 = gid.y * 16u;
  let kw = 2u * gid.x;     // words kw, kw + 1 = columns 8 kw .. 8 kw + 15
  let K8 = pq.K / 8u;
  let KB = pq.K / 64u;
  if (row0 >= pq.M || kw >= K8) { return; }
  let N4 = pq.N / 4u;
  let lastM = pq.M - 1u;
  let d0 = min(row0 + 0u, lastM) * N4; let d1 = min(row0 + 1u, lastM) * N4;
  let d2 = min(row0 + 2u, lastM) * N4; let d3 = min(row0 + 3u, lastM) * N4;
  let d4 = min(row0 + 4u, lastM) * N4; let d5 = min(row0 + 5u, lastM) * N4;
  let d6 = min(row0 + 6u, lastM) * N4; let d7 = min(row0 + 7u, lastM) * N4;
  let d8 = min(row0 + 8u, lastM) * N4; let d9 = min(row0 + 9u, lastM) * N4;
  let d10 = min(row0 + 10u, lastM) * N4; let d11 = min(row0 + 11u, lastM) * N4;
  let d12 = min(row0 + 12u, lastM) * N4; let d13 = min(row0 + 13u, lastM) * N4;
  let d14 = min(row0 + 14u, lastM) * N4; let d15 = min(row0 + 15u, lastM) * N4;
  var a0a = vec4<f32>(); var a0b = vec4<f32>(); var a0c = vec4<f32>(); var a0d = vec4<f32>();
  var a1a = vec4<f32>(); var a1b = vec4<f32>(); var a1c = vec4<f32>(); var a1d = vec4<f32>();
  var a2a = vec4<f32>(); var a2b = vec4<f32>(); var a2c = vec4<f32>(); var a2d = vec4<f32>();
  var a3a = vec4<f32>(); var a3b = vec4<f32>(); var a3c = vec4<f32>(); var a3d = vec4<f32>();
  var a4a = vec4<f32>(); var a4b = vec4<f32>(); var a4c = vec4<f32>(); var a4d = vec4<f32>();
  var a5a = vec4<f32>(); var a5b = vec4<f32>(); var a5c = vec4<f32>(); var a5d = vec4<f32>();
  var a6a = vec4<f32>(); var a6b = vec4<f32>(); var a6c = vec4<f32>(); var a6d = vec4<f32>();
  var a7a = vec4<f32>(); var a7b = vec4<f32>(); var a7c = vec4<f32>(); var a7d = vec4<f32>();
  var a8a = vec4<f32>(); var a8b = vec4<f32>(); var a8c = vec4<f32>(); var a8d = vec4<f32>();
  var a9a = vec4<f32>(); var a9b = vec4<f32>(); var a9c = vec4<f32>(); var a9d = vec4<f32>();
  var a10a = vec4<f32>(); var a10b = vec4<f32>(); var a10c = vec4<f32>(); var a10d = vec4<f32>();
  var a11a = vec4<f32>(); var a11b = vec4<f32>(); var a11c = vec4<f32>(); var a11d = vec4<f32>();
  var a12a = vec4<f32>(); var a12b = vec4<f32>(); var a12c = vec4<f32>(); var a12d = vec4<f32>();
  var a13a = vec4<f32>(); var a13b = vec4<f32>(); var a13c = vec4<f32>(); var a13d = vec4<f32>();
  var a14a = vec4<f32>(); var a14b = vec4<f32>(); var a14c = vec4<f32>(); var a14d = vec4<f32>();
  var a15a = vec4<f32>(); var a15b = vec4<f32>(); var a15c = vec4<f32>(); var a15d = vec4<f32>();
  let blk = kw / 8u;
  for (var n4 = 0u; n4 < N4; n4++) {
    let n = 4u * n4;
    let r0 = n * K8 + kw; let r1 = r0 + K8; let r2 = r1 + K8; let r3 = r2 + K8;
    let s0 = qAbsmax[n * KB + blk]; let s1 = qAbsmax[(n + 1u) * KB + blk];
    let s2 = qAbsmax[(n + 2u) * KB + blk]; let s3 = qAbsmax[(n + 3u) * KB + blk];
    let p0 = qW[r0]; let p1 = qW[r1]; let p2 = qW[r2]; let p3 = qW[r3];
    let u0 = qW[r0 + 1u]; let u1 = qW[r1 + 1u]; let u2 = qW[r2 + 1u]; let u3 = qW[r3 + 1u];
    let la = pairs_lo(p0) * s0; let lb = pairs_lo(p1) * s1; let lc = pairs_lo(p2) * s2; let ld_ = pairs_lo(p3) * s3;
    let ma = pairs_hi(p0) * s0; let mb = pairs_hi(p1) * s1; let mc = pairs_hi(p2) * s2; let md = pairs_hi(p3) * s3;
    let na = pairs_lo(u0) * s0; let nb = pairs_lo(u1) * s1; let nc = pairs_lo(u2) * s2; let nd = pairs_lo(u3) * s3;
    let qa = pairs_hi(u0) * s0; let qb = pairs_hi(u1) * s1; let qc = pairs_hi(u2) * s2; let qd = pairs_hi(u3) * s3;
    let ml = mat4x4<f32>(la, lb, lc, ld_); let mm = mat4x4<f32>(ma, mb, mc, md); let mn = mat4x4<f32>(na, nb, nc, nd); let mq = mat4x4<f32>(qa, qb, qc, qd);
    { let y = qD4[d0 + n4]; a0a += ml * y; a0b += mm * y; a0c += mn * y; a0d += mq * y; }
    { let y = qD4[d1 + n4]; a1a += ml * y; a1b += mm * y; a1c += mn * y; a1d += mq * y; }
    { let y = qD4[d2 + n4]; a2a += ml * y; a2b += mm * y; a2c += mn * y; a2d += mq * y; }
    { let y = qD4[d3 + n4]; a3a += ml * y; a3b += mm * y; a3c += mn * y; a3d += mq * y; }
    { let y = qD4[d4 + n4]; a4a += ml * y; a4b += mm * y; a4c += mn * y; a4d += mq * y; }
    { let y = qD4[d5 + n4]; a5a += ml * y; a5b += mm * y; a5c += mn * y; a5d += mq * y; }
    { let y = qD4[d6 + n4]; a6a += ml * y; a6b += mm * y; a6c += mn * y; a6d += mq * y; }
    { let y = qD4[d7 + n4]; a7a += ml * y; a7b += mm * y; a7c += mn * y; a7d += mq * y; }
    { let y = qD4[d8 + n4]; a8a += ml * y; a8b += mm * y; a8c += mn * y; a8d += mq * y; }
    { let y = qD4[d9 + n4]; a9a += ml * y; a9b += mm * y; a9c += mn * y; a9d += mq * y; }
    { let y = qD4[d10 + n4]; a10a += ml * y; a10b += mm * y; a10c += mn * y; a10d += mq * y; }
    { let y = qD4[d11 + n4]; a11a += ml * y; a11b += mm * y; a11c += mn * y; a11d += mq * y; }
    { let y = qD4[d12 + n4]; a12a += ml * y; a12b += mm * y; a12c += mn * y; a12d += mq * y; }
    { let y = qD4[d13 + n4]; a13a += ml * y; a13b += mm * y; a13c += mn * y; a13d += mq * y; }
    { let y = qD4[d14 + n4]; a14a += ml * y; a14b += mm * y; a14c += mn * y; a14d += mq * y; }
    { let y = qD4[d15 + n4]; a15a += ml * y; a15b += mm * y; a15c += mn * y; a15d += mq * y; }
  }
  let c4 = 4u * gid.x;
  // Stored in a loop over an array of the sums, not 64 inlined calls: SwiftShader compiled the
  // inlined form 3-5x slower (seconds at the first step) and runs both alike.
  let acc = array<vec4<f32>, 64>(a0a, a0b, a0c, a0d, a1a, a1b, a1c, a1d, a2a, a2b, a2c, a2d, a3a, a3b, a3c, a3d, a4a, a4b, a4c, a4d, a5a, a5b, a5c, a5d, a6a, a6b, a6c, a6d, a7a, a7b, a7c, a7d, a8a, a8b, a8c, a8d, a9a, a9b, a9c, a9d, a10a, a10b, a10c, a10d, a11a, a11b, a11c, a11d, a12a, a12b, a12c, a12d, a13a, a13b, a13c, a13d, a14a, a14b, a14c, a14d, a15a, a15b, a15c, a15d);
  for (var r = 0u; r < 16u; r++) {
    for (var q = 0u; q < 4u; q++) { put_dxq(row0 + r, c4 + q, acc[4u * r + q]); }
  }
}

@compute @workgroup_size(WG_X, WG_Y)
fn dx_nf4_rb32(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  fill_pairs(li, WG_X * WG_Y);
  let row0 = gid.y * 32u;
  let kw = 2u * gid.x;     // words kw, kw + 1 = columns 8 kw .. 8 kw + 15
  let K8 = pq.K / 8u;
  let KB = pq.K / 64u;
  if (row0 >= pq.M || kw >= K8) { return; }
  let N4 = pq.N / 4u;
  let lastM = pq.M - 1u;
  let d0 = min(row0 + 0u, lastM) * N4; let d1 = min(row0 + 1u, lastM) * N4;
  let d2 = min(row0 + 2u, lastM) * N4; let d3 = min(row0 + 3u, lastM) * N4;
  let d4 = min(row0 + 4u, lastM) * N4; let d5 = min(row0 + 5u, lastM) * N4;
  let d6 = min(row0 + 6u, lastM) * N4; let d7 = min(row0 + 7u, lastM) * N4;
  let d8 = min(row0 + 8u, lastM) * N4; let d9 = min(row0 + 9u, lastM) * N4;
  let d10 = min(row0 + 10u, lastM) * N4; let d11 = min(row0 + 11u, lastM) * N4;
  let d12 = min(row0 + 12u, lastM) * N4; let d13 = min(row0 + 13u, lastM) * N4;
  let d14 = min(row0 + 14u, lastM) * N4; let d15 = min(row0 + 15u, lastM) * N4;
  let d16 = min(row0 + 16u, lastM) * N4; let d17 = min(row0 + 17u, lastM) * N4;
  let d18 = min(row0 + 18u, lastM) * N4; let d19 = min(row0 + 19u, lastM) * N4;
  let d20 = min(row0 + 20u, lastM) * N4; let d21 = min(row0 + 21u, lastM) * N4;
  let d22 = min(row0 + 22u, lastM) * N4; let d23 = min(row0 + 23u, lastM) * N4;
  let d24 = min(row0 + 24u, lastM) * N4; let d25 = min(row0 + 25u, lastM) * N4;
  let d26 = min(row0 + 26u, lastM) * N4; let d27 = min(row0 + 27u, lastM) * N4;
  let d28 = min(row0 + 28u, lastM) * N4; let d29 = min(row0 + 29u, lastM) * N4;
  let d30 = min(row0 + 30u, lastM) * N4; let d31 = min(row0 + 31u, lastM) * N4;
  var a0a = vec4<f32>(); var a0b = vec4<f32>(); var a0c = vec4<f32>(); var a0d = vec4<f32>();
  var a1a = vec4<f32>(); var a1b = vec4<f32>(); var a1c = vec4<f32>(); var a1d = vec4<f32>();
  var a2a = vec4<f32>(); var a2b = vec4<f32>(); var a2c = vec4<f32>(); var a2d = vec4<f32>();
  var a3a = vec4<f32>(); var a3b = vec4<f32>(); var a3c = vec4<f32>(); var a3d = vec4<f32>();
  var a4a = vec4<f32>(); var a4b = vec4<f32>(); var a4c = vec4<f32>(); var a4d = vec4<f32>();
  var a5a = vec4<f32>(); var a5b = vec4<f32>(); var a5c = vec4<f32>(); var a5d = vec4<f32>();
  var a6a = vec4<f32>(); var a6b = vec4<f32>(); var a6c = vec4<f32>(); var a6d = vec4<f32>();
  var a7a = vec4<f32>(); var a7b = vec4<f32>(); var a7c = vec4<f32>(); var a7d = vec4<f32>();
  var a8a = vec4<f32>(); var a8b = vec4<f32>(); var a8c = vec4<f32>(); var a8d = vec4<f32>();
  var a9a = vec4<f32>(); var a9b = vec4<f32>(); var a9c = vec4<f32>(); var a9d = vec4<f32>();
  var a10a = vec4<f32>(); var a10b = vec4<f32>(); var a10c = vec4<f32>(); var a10d = vec4<f32>();
  var a11a = vec4<f32>(); var a11b = vec4<f32>(); var a11c = vec4<f32>(); var a11d = vec4<f32>();
  var a12a = vec4<f32>(); var a12b = vec4<f32>(); var a12c = vec4<f32>(); var a12d = vec4<f32>();
  var a13a = vec4<f32>(); var a13b = vec4<f32>(); var a13c = vec4<f32>(); var a13d = vec4<f32>();
  var a14a = vec4<f32>(); var a14b = vec4<f32>(); var a14c = vec4<f32>(); var a14d = vec4<f32>();
  var a15a = vec4<f32>(); var a15b = vec4<f32>(); var a15c = vec4<f32>(); var a15d = vec4<f32>();
  var a16a = vec4<f32>(); var a16b = vec4<f32>(); var a16c = vec4<f32>(); var a16d = vec4<f32>();
  var a17a = vec4<f32>(); var a17b = vec4<f32>(); var a17c = vec4<f32>(); var a17d = vec4<f32>();
  var a18a = vec4<f32>(); var a18b = vec4<f32>(); var a18c = vec4<f32>(); var a18d = vec4<f32>();
  var a19a = vec4<f32>(); var a19b = vec4<f32>(); var a19c = vec4<f32>(); var a19d = vec4<f32>();
  var a20a = vec4<f32>(); var a20b = vec4<f32>(); var a20c = vec4<f32>(); var a20d = vec4<f32>();
  var a21a = vec4<f32>(); var a21b = vec4<f32>(); var a21c = vec4<f32>(); var a21d = vec4<f32>();
  var a22a = vec4<f32>(); var a22b = vec4<f32>(); var a22c = vec4<f32>(); var a22d = vec4<f32>();
  var a23a = vec4<f32>(); var a23b = vec4<f32>(); var a23c = vec4<f32>(); var a23d = vec4<f32>();
  var a24a = vec4<f32>(); var a24b = vec4<f32>(); var a24c = vec4<f32>(); var a24d = vec4<f32>();
  var a25a = vec4<f32>(); var a25b = vec4<f32>(); var a25c = vec4<f32>(); var a25d = vec4<f32>();
  var a26a = vec4<f32>(); var a26b = vec4<f32>(); var a26c = vec4<f32>(); var a26d = vec4<f32>();
  var a27a = vec4<f32>(); var a27b = vec4<f32>(); var a27c = vec4<f32>(); var a27d = vec4<f32>();
  var a28a = vec4<f32>(); var a28b = vec4<f32>(); var a28c = vec4<f32>(); var a28d = vec4<f32>();
  var a29a = vec4<f32>(); var a29b = vec4<f32>(); var a29c = vec4<f32>(); var a29d = vec4<f32>();
  var a30a = vec4<f32>(); var a30b = vec4<f32>(); var a30c = vec4<f32>(); var a30d = vec4<f32>();
  var a31a = vec4<f32>(); var a31b = vec4<f32>(); var a31c = vec4<f32>(); var a31d = vec4<f32>();
  let blk = kw / 8u;
  for (var n4 = 0u; n4 < N4; n4++) {
    let n = 4u * n4;
    let r0 = n * K8 + kw; let r1 = r0 + K8; let r2 = r1 + K8; let r3 = r2 + K8;
    let s0 = qAbsmax[n * KB + blk]; let s1 = qAbsmax[(n + 1u) * KB + blk];
    let s2 = qAbsmax[(n + 2u) * KB + blk]; let s3 = qAbsmax[(n + 3u) * KB + blk];
    let p0 = qW[r0]; let p1 = qW[r1]; let p2 = qW[r2]; let p3 = qW[r3];
    let u0 = qW[r0 + 1u]; let u1 = qW[r1 + 1u]; let u2 = qW[r2 + 1u]; let u3 = qW[r3 + 1u];
    let la = pairs_lo(p0) * s0; let lb = pairs_lo(p1) * s1; let lc = pairs_lo(p2) * s2; let ld_ = pairs_lo(p3) * s3;
    let ma = pairs_hi(p0) * s0; let mb = pairs_hi(p1) * s1; let mc = pairs_hi(p2) * s2; let md = pairs_hi(p3) * s3;
    let na = pairs_lo(u0) * s0; let nb = pairs_lo(u1) * s1; let nc = pairs_lo(u2) * s2; let nd = pairs_lo(u3) * s3;
    let qa = pairs_hi(u0) * s0; let qb = pairs_hi(u1) * s1; let qc = pairs_hi(u2) * s2; let qd = pairs_hi(u3) * s3;
    let ml = mat4x4<f32>(la, lb, lc, ld_); let mm = mat4x4<f32>(ma, mb, mc, md); let mn = mat4x4<f32>(na, nb, nc, nd); let mq = mat4x4<f32>(qa, qb, qc, qd);
    { let y = qD4[d0 + n4]; a0a += ml * y; a0b += mm * y; a0c += mn * y; a0d += mq * y; }
    { let y = qD4[d1 + n4]; a1a += ml * y; a1b += mm * y; a1c += mn * y; a1d += mq * y; }
    { let y = qD4[d2 + n4]; a2a += ml * y; a2b += mm * y; a2c += mn * y; a2d += mq * y; }
    { let y = qD4[d3 + n4]; a3a += ml * y; a3b += mm * y; a3c += mn * y; a3d += mq * y; }
    { let y = qD4[d4 + n4]; a4a += ml * y; a4b += mm * y; a4c += mn * y; a4d += mq * y; }
    { let y = qD4[d5 + n4]; a5a += ml * y; a5b += mm * y; a5c += mn * y; a5d += mq * y; }
    { let y = qD4[d6 + n4]; a6a += ml * y; a6b += mm * y; a6c += mn * y; a6d += mq * y; }
    { let y = qD4[d7 + n4]; a7a += ml * y; a7b += mm * y; a7c += mn * y; a7d += mq * y; }
    { let y = qD4[d8 + n4]; a8a += ml * y; a8b += mm * y; a8c += mn * y; a8d += mq * y; }
    { let y = qD4[d9 + n4]; a9a += ml * y; a9b += mm * y; a9c += mn * y; a9d += mq * y; }
    { let y = qD4[d10 + n4]; a10a += ml * y; a10b += mm * y; a10c += mn * y; a10d += mq * y; }
    { let y = qD4[d11 + n4]; a11a += ml * y; a11b += mm * y; a11c += mn * y; a11d += mq * y; }
    { let y = qD4[d12 + n4]; a12a += ml * y; a12b += mm * y; a12c += mn * y; a12d += mq * y; }
    { let y = qD4[d13 + n4]; a13a += ml * y; a13b += mm * y; a13c += mn * y; a13d += mq * y; }
    { let y = qD4[d14 + n4]; a14a += ml * y; a14b += mm * y; a14c += mn * y; a14d += mq * y; }
    { let y = qD4[d15 + n4]; a15a += ml * y; a15b += mm * y; a15c += mn * y; a15d += mq * y; }
    { let y = qD4[d16 + n4]; a16a += ml * y; a16b += mm * y; a16c += mn * y; a16d += mq * y; }
    { let y = qD4[d17 + n4]; a17a += ml * y; a17b += mm * y; a17c += mn * y; a17d += mq * y; }
    { let y = qD4[d18 + n4]; a18a += ml * y; a18b += mm * y; a18c += mn * y; a18d += mq * y; }
    { let y = qD4[d19 + n4]; a19a += ml * y; a19b += mm * y; a19c += mn * y; a19d += mq * y; }
    { let y = qD4[d20 + n4]; a20a += ml * y; a20b += mm * y; a20c += mn * y; a20d += mq * y; }
    { let y = qD4[d21 + n4]; a21a += ml * y; a21b += mm * y; a21c += mn * y; a21d += mq * y; }
    { let y = qD4[d22 + n4]; a22a += ml * y; a22b += mm * y; a22c += mn * y; a22d += mq * y; }
    { let y = qD4[d23 + n4]; a23a += ml * y; a23b += mm * y; a23c += mn * y; a23d += mq * y; }
    { let y = qD4[d24 + n4]; a24a += ml * y; a24b += mm * y; a24c += mn * y; a24d += mq * y; }
    { let y = qD4[d25 + n4]; a25a += ml * y; a25b += mm * y; a25c += mn * y; a25d += mq * y; }
    { let y = qD4[d26 + n4]; a26a += ml * y; a26b += mm * y; a26c += mn * y; a26d += mq * y; }
    { let y = qD4[d27 + n4]; a27a += ml * y; a27b += mm * y; a27c += mn * y; a27d += mq * y; }
    { let y = qD4[d28 + n4]; a28a += ml * y; a28b += mm * y; a28c += mn * y; a28d += mq * y; }
    { let y = qD4[d29 + n4]; a29a += ml * y; a29b += mm * y; a29c += mn * y; a29d += mq * y; }
    { let y = qD4[d30 + n4]; a30a += ml * y; a30b += mm * y; a30c += mn * y; a30d += mq * y; }
    { let y = qD4[d31 + n4]; a31a += ml * y; a31b += mm * y; a31c += mn * y; a31d += mq * y; }
  }
  let c4 = 4u * gid.x;
  // Stored in a loop over an array of the sums, not 128 inlined calls: SwiftShader compiled the
  // inlined form 3-5x slower (seconds at the first step) and runs both alike.
  let acc = array<vec4<f32>, 128>(a0a, a0b, a0c, a0d, a1a, a1b, a1c, a1d, a2a, a2b, a2c, a2d, a3a, a3b, a3c, a3d, a4a, a4b, a4c, a4d, a5a, a5b, a5c, a5d, a6a, a6b, a6c, a6d, a7a, a7b, a7c, a7d, a8a, a8b, a8c, a8d, a9a, a9b, a9c, a9d, a10a, a10b, a10c, a10d, a11a, a11b, a11c, a11d, a12a, a12b, a12c, a12d, a13a, a13b, a13c, a13d, a14a, a14b, a14c, a14d, a15a, a15b, a15c, a15d, a16a, a16b, a16c, a16d, a17a, a17b, a17c, a17d, a18a, a18b, a18c, a18d, a19a, a19b, a19c, a19d, a20a, a20b, a20c, a20d, a21a, a21b, a21c, a21d, a22a, a22b, a22c, a22d, a23a, a23b, a23c, a23d, a24a, a24b, a24c, a24d, a25a, a25b, a25c, a25d, a26a, a26b, a26c, a26d, a27a, a27b, a27c, a27d, a28a, a28b, a28c, a28d, a29a, a29b, a29c, a29d, a30a, a30b, a30c, a30d, a31a, a31b, a31c, a31d);
  for (var r = 0u; r < 32u; r++) {
    for (var q = 0u; q < 4u; q++) { put_dxq(row0 + r, c4 + q, acc[4u * r + q]); }
  }
}
// ---- generated by scripts/gen-nf4-tiles.ts: end ----

// As dx_tiled; the W tile (16 rows x 8 words) is dequantized on its way into workgroup memory.
@compute @workgroup_size(16, 16)
fn dx_nf4_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                @builtin(local_invocation_index) li: u32) {
  let K8 = pq.K / 8u;
  let KB = pq.K / 64u;
  let N = pq.N;
  let rowBase = wid.y * 64u;
  let c4Base = wid.x * 16u;
  var a0 = vec4<f32>(); var a1 = vec4<f32>(); var a2 = vec4<f32>(); var a3 = vec4<f32>();
  for (var n0 = 0u; n0 < N; n0 += TT) {
    for (var e = li; e < 64u * TT; e += 256u) {
      let r = rowBase + e / TT;
      let n = n0 + e % TT;
      td[e] = select(0.0, qD[min(r, pq.M - 1u) * N + min(n, N - 1u)], r < pq.M && n < N);
    }
    if (li < TT * 8u) {
      let n = n0 + li / 8u;
      let w = li % 8u;
      let kw = min(c4Base / 2u + w, K8 - 1u);
      let nr = min(n, N - 1u);
      let q = qW[nr * K8 + kw];
      let s = select(0.0, qAbsmax[nr * KB + kw / 8u], n < N);
      tv[(li / 8u) * 16u + 2u * w] = unpack_lo(q) * s;
      tv[(li / 8u) * 16u + 2u * w + 1u] = unpack_hi(q) * s;
    }
    workgroupBarrier();
    let rb = lid.y * 4u * TT;
    for (var nn = 0u; nn < TT; nn++) {
      let w = tv[nn * 16u + lid.x];
      a0 += td[rb + nn] * w;
      a1 += td[rb + TT + nn] * w;
      a2 += td[rb + 2u * TT + nn] * w;
      a3 += td[rb + 3u * TT + nn] * w;
    }
    workgroupBarrier();
  }
  let c4 = c4Base + lid.x;
  if (c4 >= pq.K / 4u) { return; }
  let r = rowBase + lid.y * 4u;
  put_dxq(r, c4, a0); put_dxq(r + 1u, c4, a1); put_dxq(r + 2u, c4, a2); put_dxq(r + 3u, c4, a3);
}

// ---- G += alpha D^T X (dW, dA) ------------------------------------------------------------------
@group(0) @binding(0) var<storage, read> wD: array<f32>;              // [M, ldD]
@group(0) @binding(1) var<storage, read> wX: array<vec4<f32>>;        // [M, K/4]
@group(0) @binding(2) var<storage, read_write> wG: array<vec4<f32>>;  // [N, K/4]
@group(0) @binding(3) var<uniform> pw: Params;

fn put_g(n: u32, c4: u32, v: vec4<f32>) {
  if (n >= pw.N || c4 >= pw.K / 4u) { return; }
  let i = (pw.rowOff + n) * (pw.K / 4u) + c4;
  wG[i] += pw.alpha * v;
}

// Invocation: out rows n0 .. n0 + 7 (named a<row>), columns 8 gid.x .. + 7 (l, h); loops over M.
// Per step of four rows of M the invocation keeps X's 8 vec4 and takes each out row's four D values
// as one vec4 (dw_rb16's layout, which see).
@compute @workgroup_size(WG_X, WG_Y)
fn dw_rb(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n0 = gid.y * 8u;
  let c4 = gid.x * 2u;
  let K4 = pw.K / 4u;
  let N = pw.N;
  if (n0 >= N || c4 >= K4) { return; }
  let c4h = min(c4 + 1u, K4 - 1u);
  let lastN = N - 1u;
  let e0 = pw.dOff + min(n0 + 0u, lastN); let e1 = pw.dOff + min(n0 + 1u, lastN);
  let e2 = pw.dOff + min(n0 + 2u, lastN); let e3 = pw.dOff + min(n0 + 3u, lastN);
  let e4 = pw.dOff + min(n0 + 4u, lastN); let e5 = pw.dOff + min(n0 + 5u, lastN);
  let e6 = pw.dOff + min(n0 + 6u, lastN); let e7 = pw.dOff + min(n0 + 7u, lastN);
  let ld = pw.ldD;
  var a0l = vec4<f32>(); var a0h = vec4<f32>(); var a1l = vec4<f32>(); var a1h = vec4<f32>();
  var a2l = vec4<f32>(); var a2h = vec4<f32>(); var a3l = vec4<f32>(); var a3h = vec4<f32>();
  var a4l = vec4<f32>(); var a4h = vec4<f32>(); var a5l = vec4<f32>(); var a5h = vec4<f32>();
  var a6l = vec4<f32>(); var a6h = vec4<f32>(); var a7l = vec4<f32>(); var a7h = vec4<f32>();
  // Indices advance by one row stride per m (no multiplies in the loop).
  var xi = pw.off2 + seg_cols_w(n0) + c4;
  let xd = c4h - c4;
  var di = 0u;
  // Four rows per step, their terms summed as one matrix-vector product (((row 0 + row 1) + row 2)
  // + row 3, one SPIR-V result: see the dx_* steps) and added once: a sum is read and written once
  // per four terms. Then a two-row step and a last row (dw_rb16 the same).
  let M4 = pw.M & ~3u;
  for (var m = 0u; m < M4; m += 4u) {
    let j0 = xi; let l0 = wX[j0]; let h0 = wX[j0 + xd];
    let j1 = xi + 1u * pw.ld2; let l1 = wX[j1]; let h1 = wX[j1 + xd];
    let j2 = xi + 2u * pw.ld2; let l2 = wX[j2]; let h2 = wX[j2 + xd];
    let j3 = xi + 3u * pw.ld2; let l3 = wX[j3]; let h3 = wX[j3 + xd];
    let ml = mat4x4<f32>(l0, l1, l2, l3); let mh = mat4x4<f32>(h0, h1, h2, h3);
    let r1 = di + ld; let r2 = r1 + ld; let r3 = r2 + ld;
    { let y = vec4<f32>(wD[di + e0], wD[r1 + e0], wD[r2 + e0], wD[r3 + e0]); a0l += ml * y; a0h += mh * y; }
    { let y = vec4<f32>(wD[di + e1], wD[r1 + e1], wD[r2 + e1], wD[r3 + e1]); a1l += ml * y; a1h += mh * y; }
    { let y = vec4<f32>(wD[di + e2], wD[r1 + e2], wD[r2 + e2], wD[r3 + e2]); a2l += ml * y; a2h += mh * y; }
    { let y = vec4<f32>(wD[di + e3], wD[r1 + e3], wD[r2 + e3], wD[r3 + e3]); a3l += ml * y; a3h += mh * y; }
    { let y = vec4<f32>(wD[di + e4], wD[r1 + e4], wD[r2 + e4], wD[r3 + e4]); a4l += ml * y; a4h += mh * y; }
    { let y = vec4<f32>(wD[di + e5], wD[r1 + e5], wD[r2 + e5], wD[r3 + e5]); a5l += ml * y; a5h += mh * y; }
    { let y = vec4<f32>(wD[di + e6], wD[r1 + e6], wD[r2 + e6], wD[r3 + e6]); a6l += ml * y; a6h += mh * y; }
    { let y = vec4<f32>(wD[di + e7], wD[r1 + e7], wD[r2 + e7], wD[r3 + e7]); a7l += ml * y; a7h += mh * y; }
    xi += 4u * pw.ld2;
    di += 4u * ld;
  }
  // The two-row and one-row steps (M not a multiple of 4): SwiftShader runs every block of an
  // `if` whether a lane takes it or not, so pipelines for M % 4 == 0 leave them out (TAIL).
  if (TAIL) {
    let M2 = pw.M & ~1u;
    if (M4 < M2) {
      let xl = wX[xi]; let xh = wX[xi + xd];
      let xl2 = wX[xi + pw.ld2]; let xh2 = wX[xi + pw.ld2 + xd];
      let r1 = di + ld;
      { let y = vec2<f32>(wD[di + e0], wD[r1 + e0]); a0l += y.x * xl + y.y * xl2; a0h += y.x * xh + y.y * xh2; }
      { let y = vec2<f32>(wD[di + e1], wD[r1 + e1]); a1l += y.x * xl + y.y * xl2; a1h += y.x * xh + y.y * xh2; }
      { let y = vec2<f32>(wD[di + e2], wD[r1 + e2]); a2l += y.x * xl + y.y * xl2; a2h += y.x * xh + y.y * xh2; }
      { let y = vec2<f32>(wD[di + e3], wD[r1 + e3]); a3l += y.x * xl + y.y * xl2; a3h += y.x * xh + y.y * xh2; }
      { let y = vec2<f32>(wD[di + e4], wD[r1 + e4]); a4l += y.x * xl + y.y * xl2; a4h += y.x * xh + y.y * xh2; }
      { let y = vec2<f32>(wD[di + e5], wD[r1 + e5]); a5l += y.x * xl + y.y * xl2; a5h += y.x * xh + y.y * xh2; }
      { let y = vec2<f32>(wD[di + e6], wD[r1 + e6]); a6l += y.x * xl + y.y * xl2; a6h += y.x * xh + y.y * xh2; }
      { let y = vec2<f32>(wD[di + e7], wD[r1 + e7]); a7l += y.x * xl + y.y * xl2; a7h += y.x * xh + y.y * xh2; }
      xi += 2u * pw.ld2;
      di += 2u * ld;
    }
    if (M2 < pw.M) {
      let xl = wX[xi]; let xh = wX[xi + xd];
      { let y = wD[di + e0]; a0l += y * xl; a0h += y * xh; }
      { let y = wD[di + e1]; a1l += y * xl; a1h += y * xh; }
      { let y = wD[di + e2]; a2l += y * xl; a2h += y * xh; }
      { let y = wD[di + e3]; a3l += y * xl; a3h += y * xh; }
      { let y = wD[di + e4]; a4l += y * xl; a4h += y * xh; }
      { let y = wD[di + e5]; a5l += y * xl; a5h += y * xh; }
      { let y = wD[di + e6]; a6l += y * xl; a6h += y * xh; }
      { let y = wD[di + e7]; a7l += y * xl; a7h += y * xh; }
    }
  }
  let hi = c4 + 1u;
  // Stored in a loop over an array of the sums, not 16 inlined calls: SwiftShader compiled the
  // inlined form 3-5x slower (seconds at the first step) and runs both alike.
  let acc = array<vec4<f32>, 16>(a0l, a0h, a1l, a1h, a2l, a2h, a3l, a3h, a4l, a4h, a5l, a5h, a6l, a6h, a7l, a7h);
  for (var r = 0u; r < 8u; r++) {
    put_g(n0 + r, c4, acc[2u * r]); put_g(n0 + r, hi, acc[2u * r + 1u]);
  }
}

// 16 out rows x 16 columns (four vec4) per invocation: dw_rb's sums (same order, four rows of M per
// step, so G is bit-identical to dw_rb's) with twice the rows and columns per load. Laid out as
// dx_rb16 with D transposed: per step the invocation keeps its four X rows' 16 vec4 and takes each
// out row's four D values (one per row of M) as one vec4 y, so only 16 vec4 of X stay live across
// the step's 64 sums (with D's 16 vec4 live as well, SwiftShader spilled and reloaded both per sum:
// 1.25x slower at M = 64). A vec4 load costs SwiftShader four lane gathers, as four f32 loads do.
@compute @workgroup_size(WG_X, WG_Y)
fn dw_rb16(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n0 = gid.y * 16u;
  let c4 = gid.x * 4u;
  let K4 = pw.K / 4u;
  let N = pw.N;
  if (n0 >= N || c4 >= K4) { return; }
  let xb = min(c4 + 1u, K4 - 1u) - c4; let xc = min(c4 + 2u, K4 - 1u) - c4; let xd = min(c4 + 3u, K4 - 1u) - c4;
  let lastN = N - 1u;
  let e0 = pw.dOff + min(n0 + 0u, lastN); let e1 = pw.dOff + min(n0 + 1u, lastN);
  let e2 = pw.dOff + min(n0 + 2u, lastN); let e3 = pw.dOff + min(n0 + 3u, lastN);
  let e4 = pw.dOff + min(n0 + 4u, lastN); let e5 = pw.dOff + min(n0 + 5u, lastN);
  let e6 = pw.dOff + min(n0 + 6u, lastN); let e7 = pw.dOff + min(n0 + 7u, lastN);
  let e8 = pw.dOff + min(n0 + 8u, lastN); let e9 = pw.dOff + min(n0 + 9u, lastN);
  let e10 = pw.dOff + min(n0 + 10u, lastN); let e11 = pw.dOff + min(n0 + 11u, lastN);
  let e12 = pw.dOff + min(n0 + 12u, lastN); let e13 = pw.dOff + min(n0 + 13u, lastN);
  let e14 = pw.dOff + min(n0 + 14u, lastN); let e15 = pw.dOff + min(n0 + 15u, lastN);
  let ld = pw.ldD;
  var a0a = vec4<f32>(); var a0b = vec4<f32>(); var a0c = vec4<f32>(); var a0d = vec4<f32>();
  var a1a = vec4<f32>(); var a1b = vec4<f32>(); var a1c = vec4<f32>(); var a1d = vec4<f32>();
  var a2a = vec4<f32>(); var a2b = vec4<f32>(); var a2c = vec4<f32>(); var a2d = vec4<f32>();
  var a3a = vec4<f32>(); var a3b = vec4<f32>(); var a3c = vec4<f32>(); var a3d = vec4<f32>();
  var a4a = vec4<f32>(); var a4b = vec4<f32>(); var a4c = vec4<f32>(); var a4d = vec4<f32>();
  var a5a = vec4<f32>(); var a5b = vec4<f32>(); var a5c = vec4<f32>(); var a5d = vec4<f32>();
  var a6a = vec4<f32>(); var a6b = vec4<f32>(); var a6c = vec4<f32>(); var a6d = vec4<f32>();
  var a7a = vec4<f32>(); var a7b = vec4<f32>(); var a7c = vec4<f32>(); var a7d = vec4<f32>();
  var a8a = vec4<f32>(); var a8b = vec4<f32>(); var a8c = vec4<f32>(); var a8d = vec4<f32>();
  var a9a = vec4<f32>(); var a9b = vec4<f32>(); var a9c = vec4<f32>(); var a9d = vec4<f32>();
  var a10a = vec4<f32>(); var a10b = vec4<f32>(); var a10c = vec4<f32>(); var a10d = vec4<f32>();
  var a11a = vec4<f32>(); var a11b = vec4<f32>(); var a11c = vec4<f32>(); var a11d = vec4<f32>();
  var a12a = vec4<f32>(); var a12b = vec4<f32>(); var a12c = vec4<f32>(); var a12d = vec4<f32>();
  var a13a = vec4<f32>(); var a13b = vec4<f32>(); var a13c = vec4<f32>(); var a13d = vec4<f32>();
  var a14a = vec4<f32>(); var a14b = vec4<f32>(); var a14c = vec4<f32>(); var a14d = vec4<f32>();
  var a15a = vec4<f32>(); var a15b = vec4<f32>(); var a15c = vec4<f32>(); var a15d = vec4<f32>();
  var xi = pw.off2 + seg_cols_w(n0) + c4;
  var di = 0u;
  // Four rows per step as dw_rb (each sum read and written once per four terms), then a two-row
  // step and a last row.
  let M4 = pw.M & ~3u;
  for (var m = 0u; m < M4; m += 4u) {
    let j0 = xi; let x0a = wX[j0]; let x0b = wX[j0 + xb]; let x0c = wX[j0 + xc]; let x0d = wX[j0 + xd];
    let j1 = xi + 1u * pw.ld2; let x1a = wX[j1]; let x1b = wX[j1 + xb]; let x1c = wX[j1 + xc]; let x1d = wX[j1 + xd];
    let j2 = xi + 2u * pw.ld2; let x2a = wX[j2]; let x2b = wX[j2 + xb]; let x2c = wX[j2 + xc]; let x2d = wX[j2 + xd];
    let j3 = xi + 3u * pw.ld2; let x3a = wX[j3]; let x3b = wX[j3 + xb]; let x3c = wX[j3 + xc]; let x3d = wX[j3 + xd];
    let ma = mat4x4<f32>(x0a, x1a, x2a, x3a); let mb = mat4x4<f32>(x0b, x1b, x2b, x3b);
    let mc = mat4x4<f32>(x0c, x1c, x2c, x3c); let md = mat4x4<f32>(x0d, x1d, x2d, x3d);
    let r1 = di + ld; let r2 = r1 + ld; let r3 = r2 + ld;
    { let y = vec4<f32>(wD[di + e0], wD[r1 + e0], wD[r2 + e0], wD[r3 + e0]); a0a += ma * y; a0b += mb * y; a0c += mc * y; a0d += md * y; }
    { let y = vec4<f32>(wD[di + e1], wD[r1 + e1], wD[r2 + e1], wD[r3 + e1]); a1a += ma * y; a1b += mb * y; a1c += mc * y; a1d += md * y; }
    { let y = vec4<f32>(wD[di + e2], wD[r1 + e2], wD[r2 + e2], wD[r3 + e2]); a2a += ma * y; a2b += mb * y; a2c += mc * y; a2d += md * y; }
    { let y = vec4<f32>(wD[di + e3], wD[r1 + e3], wD[r2 + e3], wD[r3 + e3]); a3a += ma * y; a3b += mb * y; a3c += mc * y; a3d += md * y; }
    { let y = vec4<f32>(wD[di + e4], wD[r1 + e4], wD[r2 + e4], wD[r3 + e4]); a4a += ma * y; a4b += mb * y; a4c += mc * y; a4d += md * y; }
    { let y = vec4<f32>(wD[di + e5], wD[r1 + e5], wD[r2 + e5], wD[r3 + e5]); a5a += ma * y; a5b += mb * y; a5c += mc * y; a5d += md * y; }
    { let y = vec4<f32>(wD[di + e6], wD[r1 + e6], wD[r2 + e6], wD[r3 + e6]); a6a += ma * y; a6b += mb * y; a6c += mc * y; a6d += md * y; }
    { let y = vec4<f32>(wD[di + e7], wD[r1 + e7], wD[r2 + e7], wD[r3 + e7]); a7a += ma * y; a7b += mb * y; a7c += mc * y; a7d += md * y; }
    { let y = vec4<f32>(wD[di + e8], wD[r1 + e8], wD[r2 + e8], wD[r3 + e8]); a8a += ma * y; a8b += mb * y; a8c += mc * y; a8d += md * y; }
    { let y = vec4<f32>(wD[di + e9], wD[r1 + e9], wD[r2 + e9], wD[r3 + e9]); a9a += ma * y; a9b += mb * y; a9c += mc * y; a9d += md * y; }
    { let y = vec4<f32>(wD[di + e10], wD[r1 + e10], wD[r2 + e10], wD[r3 + e10]); a10a += ma * y; a10b += mb * y; a10c += mc * y; a10d += md * y; }
    { let y = vec4<f32>(wD[di + e11], wD[r1 + e11], wD[r2 + e11], wD[r3 + e11]); a11a += ma * y; a11b += mb * y; a11c += mc * y; a11d += md * y; }
    { let y = vec4<f32>(wD[di + e12], wD[r1 + e12], wD[r2 + e12], wD[r3 + e12]); a12a += ma * y; a12b += mb * y; a12c += mc * y; a12d += md * y; }
    { let y = vec4<f32>(wD[di + e13], wD[r1 + e13], wD[r2 + e13], wD[r3 + e13]); a13a += ma * y; a13b += mb * y; a13c += mc * y; a13d += md * y; }
    { let y = vec4<f32>(wD[di + e14], wD[r1 + e14], wD[r2 + e14], wD[r3 + e14]); a14a += ma * y; a14b += mb * y; a14c += mc * y; a14d += md * y; }
    { let y = vec4<f32>(wD[di + e15], wD[r1 + e15], wD[r2 + e15], wD[r3 + e15]); a15a += ma * y; a15b += mb * y; a15c += mc * y; a15d += md * y; }
    xi += 4u * pw.ld2;
    di += 4u * ld;
  }
  // The two-row and one-row steps (M not a multiple of 4): SwiftShader runs every block of an
  // `if` whether a lane takes it or not, so pipelines for M % 4 == 0 leave them out (TAIL).
  if (TAIL) {
    let M2 = pw.M & ~1u;
    if (M4 < M2) {
      let xa = wX[xi]; let xb_ = wX[xi + xb]; let xc_ = wX[xi + xc]; let xd_ = wX[xi + xd];
      let j = xi + pw.ld2;
      let ya = wX[j]; let yb = wX[j + xb]; let yc = wX[j + xc]; let yd = wX[j + xd];
      let r1 = di + ld;
      { let y = vec2<f32>(wD[di + e0], wD[r1 + e0]); a0a += y.x * xa + y.y * ya; a0b += y.x * xb_ + y.y * yb; a0c += y.x * xc_ + y.y * yc; a0d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e1], wD[r1 + e1]); a1a += y.x * xa + y.y * ya; a1b += y.x * xb_ + y.y * yb; a1c += y.x * xc_ + y.y * yc; a1d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e2], wD[r1 + e2]); a2a += y.x * xa + y.y * ya; a2b += y.x * xb_ + y.y * yb; a2c += y.x * xc_ + y.y * yc; a2d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e3], wD[r1 + e3]); a3a += y.x * xa + y.y * ya; a3b += y.x * xb_ + y.y * yb; a3c += y.x * xc_ + y.y * yc; a3d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e4], wD[r1 + e4]); a4a += y.x * xa + y.y * ya; a4b += y.x * xb_ + y.y * yb; a4c += y.x * xc_ + y.y * yc; a4d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e5], wD[r1 + e5]); a5a += y.x * xa + y.y * ya; a5b += y.x * xb_ + y.y * yb; a5c += y.x * xc_ + y.y * yc; a5d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e6], wD[r1 + e6]); a6a += y.x * xa + y.y * ya; a6b += y.x * xb_ + y.y * yb; a6c += y.x * xc_ + y.y * yc; a6d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e7], wD[r1 + e7]); a7a += y.x * xa + y.y * ya; a7b += y.x * xb_ + y.y * yb; a7c += y.x * xc_ + y.y * yc; a7d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e8], wD[r1 + e8]); a8a += y.x * xa + y.y * ya; a8b += y.x * xb_ + y.y * yb; a8c += y.x * xc_ + y.y * yc; a8d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e9], wD[r1 + e9]); a9a += y.x * xa + y.y * ya; a9b += y.x * xb_ + y.y * yb; a9c += y.x * xc_ + y.y * yc; a9d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e10], wD[r1 + e10]); a10a += y.x * xa + y.y * ya; a10b += y.x * xb_ + y.y * yb; a10c += y.x * xc_ + y.y * yc; a10d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e11], wD[r1 + e11]); a11a += y.x * xa + y.y * ya; a11b += y.x * xb_ + y.y * yb; a11c += y.x * xc_ + y.y * yc; a11d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e12], wD[r1 + e12]); a12a += y.x * xa + y.y * ya; a12b += y.x * xb_ + y.y * yb; a12c += y.x * xc_ + y.y * yc; a12d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e13], wD[r1 + e13]); a13a += y.x * xa + y.y * ya; a13b += y.x * xb_ + y.y * yb; a13c += y.x * xc_ + y.y * yc; a13d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e14], wD[r1 + e14]); a14a += y.x * xa + y.y * ya; a14b += y.x * xb_ + y.y * yb; a14c += y.x * xc_ + y.y * yc; a14d += y.x * xd_ + y.y * yd; }
      { let y = vec2<f32>(wD[di + e15], wD[r1 + e15]); a15a += y.x * xa + y.y * ya; a15b += y.x * xb_ + y.y * yb; a15c += y.x * xc_ + y.y * yc; a15d += y.x * xd_ + y.y * yd; }
      xi += 2u * pw.ld2;
      di += 2u * ld;
    }
    if (M2 < pw.M) {
      let xa = wX[xi]; let xb_ = wX[xi + xb]; let xc_ = wX[xi + xc]; let xd_ = wX[xi + xd];
      { let y = wD[di + e0]; a0a += y * xa; a0b += y * xb_; a0c += y * xc_; a0d += y * xd_; }
      { let y = wD[di + e1]; a1a += y * xa; a1b += y * xb_; a1c += y * xc_; a1d += y * xd_; }
      { let y = wD[di + e2]; a2a += y * xa; a2b += y * xb_; a2c += y * xc_; a2d += y * xd_; }
      { let y = wD[di + e3]; a3a += y * xa; a3b += y * xb_; a3c += y * xc_; a3d += y * xd_; }
      { let y = wD[di + e4]; a4a += y * xa; a4b += y * xb_; a4c += y * xc_; a4d += y * xd_; }
      { let y = wD[di + e5]; a5a += y * xa; a5b += y * xb_; a5c += y * xc_; a5d += y * xd_; }
      { let y = wD[di + e6]; a6a += y * xa; a6b += y * xb_; a6c += y * xc_; a6d += y * xd_; }
      { let y = wD[di + e7]; a7a += y * xa; a7b += y * xb_; a7c += y * xc_; a7d += y * xd_; }
      { let y = wD[di + e8]; a8a += y * xa; a8b += y * xb_; a8c += y * xc_; a8d += y * xd_; }
      { let y = wD[di + e9]; a9a += y * xa; a9b += y * xb_; a9c += y * xc_; a9d += y * xd_; }
      { let y = wD[di + e10]; a10a += y * xa; a10b += y * xb_; a10c += y * xc_; a10d += y * xd_; }
      { let y = wD[di + e11]; a11a += y * xa; a11b += y * xb_; a11c += y * xc_; a11d += y * xd_; }
      { let y = wD[di + e12]; a12a += y * xa; a12b += y * xb_; a12c += y * xc_; a12d += y * xd_; }
      { let y = wD[di + e13]; a13a += y * xa; a13b += y * xb_; a13c += y * xc_; a13d += y * xd_; }
      { let y = wD[di + e14]; a14a += y * xa; a14b += y * xb_; a14c += y * xc_; a14d += y * xd_; }
      { let y = wD[di + e15]; a15a += y * xa; a15b += y * xb_; a15c += y * xc_; a15d += y * xd_; }
    }
  }
  // Stored in a loop over an array of the sums, not 64 inlined calls: SwiftShader compiled the
  // inlined form 3-5x slower (seconds at the first step) and runs both alike.
  let acc = array<vec4<f32>, 64>(a0a, a0b, a0c, a0d, a1a, a1b, a1c, a1d, a2a, a2b, a2c, a2d, a3a, a3b, a3c, a3d,
    a4a, a4b, a4c, a4d, a5a, a5b, a5c, a5d, a6a, a6b, a6c, a6d, a7a, a7b, a7c, a7d,
    a8a, a8b, a8c, a8d, a9a, a9b, a9c, a9d, a10a, a10b, a10c, a10d, a11a, a11b, a11c, a11d,
    a12a, a12b, a12c, a12d, a13a, a13b, a13c, a13d, a14a, a14b, a14c, a14d, a15a, a15b, a15c, a15d);
  for (var r = 0u; r < 16u; r++) {
    for (var q = 0u; q < 4u; q++) { put_g(n0 + r, c4 + q, acc[4u * r + q]); }
  }
}

// Workgroup (16, 16): a tile of 64 out rows x 64 columns; M in steps of 16 through td / tv.
@compute @workgroup_size(16, 16)
fn dw_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(local_invocation_index) li: u32) {
  let K4 = pw.K / 4u;
  let N = pw.N;
  let nBase = wid.y * 64u;
  let c4Base = wid.x * 16u;
  var a0 = vec4<f32>(); var a1 = vec4<f32>(); var a2 = vec4<f32>(); var a3 = vec4<f32>();
  for (var m0 = 0u; m0 < pw.M; m0 += TT) {
    for (var e = li; e < 64u * TT; e += 256u) {
      let m = m0 + e / 64u;
      let n = nBase + e % 64u;
      td[e] = select(0.0, wD[min(m, pw.M - 1u) * pw.ldD + pw.dOff + min(n, N - 1u)], m < pw.M && n < N);
    }
    {
      let m = m0 + li / 16u;
      let c = c4Base + li % 16u;
      tv[li] = select(vec4<f32>(), wX[min(m, pw.M - 1u) * pw.ld2 + pw.off2 + min(c, K4 - 1u)], m < pw.M && c < K4);
    }
    workgroupBarrier();
    let nb = lid.y * 4u;
    for (var mm = 0u; mm < TT; mm++) {
      let x = tv[mm * 16u + lid.x];
      a0 += td[mm * 64u + nb] * x;
      a1 += td[mm * 64u + nb + 1u] * x;
      a2 += td[mm * 64u + nb + 2u] * x;
      a3 += td[mm * 64u + nb + 3u] * x;
    }
    workgroupBarrier();
  }
  let n = nBase + lid.y * 4u;
  let c4 = c4Base + lid.x;
  put_g(n, c4, a0); put_g(n + 1u, c4, a1); put_g(n + 2u, c4, a2); put_g(n + 3u, c4, a3);
}

// ---- LoRA: dYB = scale dY B per segment ---------------------------------------------------------
@group(0) @binding(0) var<storage, read> bdY: array<f32>;             // [M, N]
@group(0) @binding(1) var<storage, read> bB: array<f32>;              // [N, R] LoRA B (stacked)
@group(0) @binding(2) var<storage, read_write> bdYB: array<f32>;      // [M, SR]
@group(0) @binding(3) var<uniform> pb: Params;

fn seg_start(s: u32) -> u32 { return select(select(0u, pb.seg1, s == 1u), pb.seg2, s == 2u); }
fn seg_end(s: u32) -> u32 { return select(select(pb.seg1, pb.seg2, s == 1u), pb.N, s == 2u); }

// One invocation per (row m, segment column j = s R + q); sums over the segment's out rows.
@compute @workgroup_size(64)
fn lora_dyb(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.x + gid.y * 65535u * 64u;
  if (e >= pb.M * pb.SR) { return; }
  let m = e / pb.SR;
  let j = e % pb.SR;
  let s = j / pb.R;
  let q = j % pb.R;
  var acc = 0.0;
  for (var n = seg_start(s); n < seg_end(s); n++) { acc += bdY[m * pb.N + n] * bB[n * pb.R + q]; }
  bdYB[e] = pb.alpha * acc;
}

// ---- LoRA: dB += scale dY^T XA (XA columns of the row's segment) --------------------------------
@group(0) @binding(0) var<storage, read> cdY: array<f32>;             // [M, N]
@group(0) @binding(1) var<storage, read> cXA: array<f32>;             // [M, SR]
@group(0) @binding(2) var<storage, read_write> cdB: array<f32>;       // [N, R]
@group(0) @binding(3) var<uniform> pc: Params;

// One invocation per (out row n, q); loops over M.
@compute @workgroup_size(64)
fn lora_db(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.x + gid.y * 65535u * 64u;
  if (e >= pc.N * pc.R) { return; }
  let n = e / pc.R;
  let q = e % pc.R;
  let s = select(0u, 1u, n >= pc.seg1) + select(0u, 1u, n >= pc.seg2);
  let col = s * pc.R + q;
  var acc = 0.0;
  for (var m = 0u; m < pc.M; m++) { acc += cdY[m * pc.N + n] * cXA[m * pc.SR + col]; }
  cdB[e] += pc.alpha * acc;
}

// ---- dbias += column sums of dY -----------------------------------------------------------------
@group(0) @binding(0) var<storage, read> sdY: array<f32>;             // [M, N]
@group(0) @binding(1) var<storage, read_write> sdb: array<f32>;       // [N]
@group(0) @binding(2) var<uniform> ps: Params;

@compute @workgroup_size(64)
fn bias_grad(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  if (n >= ps.N) { return; }
  var acc = 0.0;
  for (var m = 0u; m < ps.M; m++) { acc += sdY[m * ps.N + n]; }
  sdb[n] += acc;
}

// ---- the split dx_rb's partials summed: out[i] = parts[i] + parts[zStride + i] + ... ---------
//   parts [N, zStride vec4] (N = the split count), out [M vec4] (M = vec4 summed). Fixed order.
@group(0) @binding(0) var<storage, read> zparts: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> zout: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> pz: Params;

@compute @workgroup_size(64)
fn sum_split(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= pz.M) { return; }
  // flags bit 1: parts of every segment from one dispatch, segment s's in parts [z0, z1) (seg1,
  // seg2: the first part of segments 1 and 2; N when there are fewer); the other parts hold
  // nothing for its columns.
  var z0 = 0u;
  var z1 = pz.N;
  if ((pz.flags & 2u) != 0u) {
    let s = (i % (pz.SR / 4u)) / (pz.R / 4u);
    z0 = select(select(0u, pz.seg1, s == 1u), pz.seg2, s == 2u);
    z1 = select(select(pz.seg1, pz.seg2, s == 1u), pz.N, s == 2u);
  }
  var a = zparts[z0 * pz.zStride + i];
  for (var z = z0 + 1u; z < z1; z++) { a += zparts[z * pz.zStride + i]; }
  zout[i] = a;
}
