// Linear layer reading NF4 weights directly (dequantized in registers, never a full-precision copy):
//   Y[M, N] (=|+=) X[M, K] . deq(Wq)[N, K]^T + bias[N] + scale * XA[M, R] . LB[N, R]^T
// M = rows (B*T tokens), K = in features (a multiple of 64), N = out features, R = LoRA rank.
// Wq is packed by shaders/nf4.wgsl: [N, K/8] u32 (8 codes per word, low nibble first), absmax
// [N, K/64] f32; deq(w) = NF4[code] * absmax. CPU twin: matmul_forward(X, nf4_roundtrip(W)) plus
// linear_forward / lora_forward / swiglu_forward (src/reference). Launcher: src/gpu/kernels/linear.ts.
// Tested by tests/unit/gpu/nf4-matmul.test.ts and tests/unit/gpu/linear-forward.test.ts.
// Sibling for f32 weights: shaders/linear.wgsl (same bindings without absmax, same epilogue).
//
// Epilogue, per output (r, n), chosen at run time by p.flags (no recompiling to toggle LoRA):
//   bit 0  + bias[n]
//   bit 1  + scale * sum_q XA[r, s(n)*R + q] * LB[n, q]   (LoRA; s(n) = LoRA segment of row n:
//          0, 1 if n >= seg1, 2 if n >= seg2, for fused projections such as q|k|v or gate|up)
//   bit 2  accumulate: Y += value (residual add fused into o_proj / down_proj); else Y = value.
// SWIGLU (override): W holds gate rows [0, N) then up rows [N, 2N) (plain concatenation along
//   out); each output is silu(gate_n + epi) * (up_n + epi), Y is [M, N] with N = I.
// Write contract: Y is overwritten (=), or accumulated (+=) when flags bit 2 is set.
// Entry points (variant chosen per adapter by timing, src/gpu/kernels/linear-tune.ts):
//   nf4_rb     register-blocked TM x TN outputs per invocation, no workgroup memory (CPU adapters);
//   nf4_tiled  X and dequantized W tiles staged through workgroup memory (real GPUs, large M);
//   nf4_gemv   small M (decode, M <= 8): WG_X invocations split K per column, reduced in
//              workgroup memory; WG_Y columns per workgroup;
//   nf4_dec    decode (M <= 8): 8 columns x MR rows per invocation in named registers, each code
//              word unpacked once for all rows (MR compile-time: 1, 2, 4 or 8 >= M);
//   nf4_dec_c32, nf4_dec_c64  nf4_dec on 32 or 64 columns per invocation (wide layers: the LM
//              head, gate|up), its outputs bit for bit (generated, scripts/gen-nf4-tiles.ts);
//   nf4_dec16  prefill / training (the rb16 variant): 16 rows x 16 columns per invocation.

struct Params {
  M: u32,
  N: u32,         // output columns (I when SWIGLU)
  K: u32,
  flags: u32,     // bit0 bias, bit1 LoRA, bit2 accumulate
  R: u32,         // LoRA rank; with SAMPLE the draw's row of X's row 0 (a step split into passes)
  xaStride: u32,  // columns of XA (segments * R)
  seg1: u32,      // first W row of LoRA segment 1
  seg2: u32,      // first W row of LoRA segment 2
  scale: f32,     // LoRA scale (alpha / r, or alpha / sqrt(r)); 1 / temperature with SAMPLE (linear_sample.wgsl)
  seed: u32,      // SAMPLE only: the sampler's seed,
  step: u32,      //   its step counter
  greedy: u32,    //   and 1 for argmax
}

@group(0) @binding(0) var<storage, read> X: array<vec4<f32>>;     // [M, K/4]
@group(0) @binding(1) var<storage, read> Wq: array<u32>;          // [NW, K/8] packed codes
@group(0) @binding(2) var<storage, read> absmax: array<f32>;      // [NW, K/64]
@group(0) @binding(3) var<storage, read> bias: array<f32>;        // [NW] (unused unless bit 0)
@group(0) @binding(4) var<storage, read> XA: array<f32>;          // [M, xaStride] (unless bit 1)
@group(0) @binding(5) var<storage, read> LB: array<f32>;          // [NW, R] LoRA B (unless bit 1)
@group(0) @binding(6) var<storage, read_write> Y: array<f32>;     // [M, N]
@group(0) @binding(7) var<uniform> p: Params;

override WG_X: u32 = 8;
override WG_Y: u32 = 8;
override TM: u32 = 4;          // rows per invocation (rb, tiled), at most 8
override TN: u32 = 4;          // virtual columns per invocation (rb, tiled), at most 8, even
override SWIGLU: bool = false;
// linear_tile.wgsl asks swiglu() (linear.wgsl's lin_rb8 can read it from the flags; here it is SWIGLU).
fn swiglu() -> bool { return SWIGLU; }
override MR: u32 = 8;          // rows per invocation of nf4_dec: 1, 2, 4 or 8 (compile-time)

// NF4 (code book), unpack_lo / unpack_hi, fill_pairs / pairs_lo / pairs_hi.
// #include nf4_codes

// ---- shared helpers ---------------------------------------------------------------------
fn out_cols(group: u32) -> u32 { return select(group, group / 2u, SWIGLU); }

// W row of virtual column j of column group g (g groups `width` virtual columns). In SWIGLU
// mode the first half of a group are gate rows, the second half the matching up rows.
fn w_row(g: u32, j: u32, width: u32) -> u32 {
  if (!SWIGLU) { return g * width + j; }
  let half = width / 2u;
  return g * half + (j % half) + select(0u, p.N, j >= half);
}

// Output column of virtual column j of group g.
fn out_col(g: u32, j: u32, width: u32) -> u32 {
  if (!SWIGLU) { return g * width + j; }
  return g * (width / 2u) + j;
}

fn nw() -> u32 { return select(p.N, 2u * p.N, SWIGLU); }


// Base value plus bias and LoRA for W row n.
fn epi(r: u32, n: u32, base: f32) -> f32 {
  var v = base;
  if ((p.flags & 1u) != 0u) { v += bias[n]; }
  if ((p.flags & 2u) != 0u) {
    let s = segment(n);
    let xa = r * p.xaStride + s * p.R;
    let lb = n * p.R;
    var d = 0.0;
    for (var q = 0u; q < p.R; q++) { d += XA[xa + q] * LB[lb + q]; }
    v += p.scale * d;
  }
  return v;
}

fn silu(x: f32) -> f32 { return x / (1.0 + exp(-x)); }

// Writes output (r, c) of column group g, virtual column j, given the accumulators of that
// virtual column (a) and, in SWIGLU mode, of its up partner (u).
fn store(r: u32, g: u32, j: u32, width: u32, a: f32, u: f32) {
  let c = out_col(g, j, width);
  if (c >= p.N) { return; }
  var v = epi(r, w_row(g, j, width), a);
  if (SWIGLU) { v = silu(v) * epi(r, c + p.N, u); }
  let idx = r * p.N + c;
  if ((p.flags & 4u) != 0u) { Y[idx] += v; } else { Y[idx] = v; }
}

// store_tile8 and put8: storing a whole 8 x 8 register tile (shared with the other 8 x 8 kernel file).
// #include linear_tile
// #include linear_sample

// ---- register-blocked ---------------------------------------------------------------------
@compute @workgroup_size(WG_X, WG_Y)
fn nf4_rb(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row0 = gid.y * TM;
  let g = gid.x;
  if (row0 >= p.M || out_col(g, 0u, TN) >= p.N) { return; }
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let NWr = nw();
  var acc: array<array<f32, 8>, 8>;
  var xr: array<u32, 8>;
  var wr: array<u32, 8>;
  for (var i = 0u; i < TM; i++) { xr[i] = min(row0 + i, p.M - 1u) * K4; }
  for (var j = 0u; j < TN; j++) { wr[j] = min(w_row(g, j, TN), NWr - 1u); }
  for (var kb = 0u; kb < KB; kb++) {
    // Explicitly zeroed each block (SwiftShader keeps an uninitialised loop-local var's value).
    var part = array<array<f32, 8>, 8>();
    for (var w = 0u; w < 8u; w++) {
      let kw = kb * 8u + w;
      var wa: array<vec4<f32>, 8>;
      var wb: array<vec4<f32>, 8>;
      for (var j = 0u; j < TN; j++) {
        let q = Wq[wr[j] * K8 + kw];
        wa[j] = unpack_lo(q);
        wb[j] = unpack_hi(q);
      }
      for (var i = 0u; i < TM; i++) {
        let x0 = X[xr[i] + 2u * kw];
        let x1 = X[xr[i] + 2u * kw + 1u];
        for (var j = 0u; j < TN; j++) { part[i][j] += dot(x0, wa[j]) + dot(x1, wb[j]); }
      }
    }
    for (var j = 0u; j < TN; j++) {
      let s = absmax[wr[j] * KB + kb];
      for (var i = 0u; i < TM; i++) { acc[i][j] += part[i][j] * s; }
    }
  }
  let oc = out_cols(TN);
  for (var i = 0u; i < TM; i++) {
    let r = row0 + i;
    if (r >= p.M) { break; }
    for (var j = 0u; j < oc; j++) { store(r, g, j, TN, acc[i][j], acc[i][j + oc % TN]); }
  }
}

// ---- workgroup-tiled ----------------------------------------------------------------------
// A (WG_Y*TM) x (WG_X*TN) tile of virtual outputs per workgroup; K steps of 16 (two words).
const TK4: u32 = 4u;
var<workgroup> xs: array<vec4<f32>, WG_Y * TM * TK4>;
var<workgroup> ws: array<vec4<f32>, WG_X * TN * TK4>;

@compute @workgroup_size(WG_X, WG_Y)
fn nf4_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
             @builtin(local_invocation_index) li: u32) {
  let tileM = WG_Y * TM;
  let tileN = WG_X * TN;
  let rowBase = wid.y * tileM;
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let NWr = nw();
  let threads = WG_X * WG_Y;
  let g = wid.x * WG_X + lid.x;
  var acc: array<array<f32, 8>, 8>;
  for (var k0 = 0u; k0 < K4; k0 += TK4) {
    for (var e = li; e < tileM * TK4; e += threads) {
      let gr = rowBase + e / TK4;
      xs[e] = select(vec4<f32>(0.0), X[min(gr, p.M - 1u) * K4 + k0 + e % TK4], gr < p.M);
    }
    for (var e = li; e < tileN * TK4; e += threads) {
      let t = e / TK4;
      let k4 = k0 + e % TK4;
      let gg = wid.x * WG_X + t / TN;
      let n = w_row(gg, t % TN, TN);
      let ok = n < NWr;
      let nr = min(n, NWr - 1u);
      let q = Wq[nr * K8 + k4 / 2u];
      let v = select(unpack_lo(q), unpack_hi(q), (k4 & 1u) == 1u) * absmax[nr * KB + k4 / 16u];
      ws[e] = select(vec4<f32>(0.0), v, ok);
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TK4; kk++) {
      var w: array<vec4<f32>, 8>;
      for (var j = 0u; j < TN; j++) { w[j] = ws[(lid.x * TN + j) * TK4 + kk]; }
      for (var i = 0u; i < TM; i++) {
        let x = xs[(lid.y * TM + i) * TK4 + kk];
        for (var j = 0u; j < TN; j++) { acc[i][j] += dot(x, w[j]); }
      }
    }
    workgroupBarrier();
  }
  let oc = out_cols(TN);
  for (var i = 0u; i < TM; i++) {
    let r = rowBase + lid.y * TM + i;
    if (r >= p.M) { break; }
    for (var j = 0u; j < oc; j++) { store(r, g, j, TN, acc[i][j], acc[i][j + oc % TN]); }
  }
}

// ---- decode: every code word unpacked once for all rows --------------------------------------
// An invocation owns 8 virtual columns and MR rows (compile-time, so M = 1 does no work for rows
// it lacks). Per 64-input block: the block's 8 words of each column are unpacked into mat4x4s of
// 4 columns x 4 inputs (through the workgroup's code-pair table), the rows' partial sums
// gathered unscaled, then scaled by the 8 absmax values at once. Dequantising is the cost on CPU
// adapters; on a GPU this streams the codes.
fn dec_row(i: u32, row0: u32, K4: u32) -> u32 { return min(row0 + i, p.M - 1u) * K4; }

@compute @workgroup_size(WG_X, 1)
fn nf4_dec(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  fill_pairs(li, WG_X);
  let row0 = gid.y * MR;
  let g = gid.x;
  if (row0 >= p.M || out_col(g, 0u, 8u) >= p.N) { return; }
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let last = nw() - 1u;
  let x0 = dec_row(0u, row0, K4); let x1 = dec_row(1u, row0, K4);
  let x2 = dec_row(2u, row0, K4); let x3 = dec_row(3u, row0, K4);
  let x4 = dec_row(4u, row0, K4); let x5 = dec_row(5u, row0, K4);
  let x6 = dec_row(6u, row0, K4); let x7 = dec_row(7u, row0, K4);
  let n0 = min(w_row(g, 0u, 8u), last); let n1 = min(w_row(g, 1u, 8u), last);
  let n2 = min(w_row(g, 2u, 8u), last); let n3 = min(w_row(g, 3u, 8u), last);
  let n4 = min(w_row(g, 4u, 8u), last); let n5 = min(w_row(g, 5u, 8u), last);
  let n6 = min(w_row(g, 6u, 8u), last); let n7 = min(w_row(g, 7u, 8u), last);
  var a0l = vec4<f32>(); var a0h = vec4<f32>(); var a1l = vec4<f32>(); var a1h = vec4<f32>();
  var a2l = vec4<f32>(); var a2h = vec4<f32>(); var a3l = vec4<f32>(); var a3h = vec4<f32>();
  var a4l = vec4<f32>(); var a4h = vec4<f32>(); var a5l = vec4<f32>(); var a5h = vec4<f32>();
  var a6l = vec4<f32>(); var a6h = vec4<f32>(); var a7l = vec4<f32>(); var a7h = vec4<f32>();
  for (var kb = 0u; kb < KB; kb++) {
    var p0l = vec4<f32>(); var p0h = vec4<f32>(); var p1l = vec4<f32>(); var p1h = vec4<f32>();
    var p2l = vec4<f32>(); var p2h = vec4<f32>(); var p3l = vec4<f32>(); var p3h = vec4<f32>();
    var p4l = vec4<f32>(); var p4h = vec4<f32>(); var p5l = vec4<f32>(); var p5h = vec4<f32>();
    var p6l = vec4<f32>(); var p6h = vec4<f32>(); var p7l = vec4<f32>(); var p7h = vec4<f32>();
    for (var w = 0u; w < 8u; w++) {
      let kw = kb * 8u + w;
      let q0 = Wq[n0 * K8 + kw]; let q1 = Wq[n1 * K8 + kw]; let q2 = Wq[n2 * K8 + kw]; let q3 = Wq[n3 * K8 + kw];
      let q4 = Wq[n4 * K8 + kw]; let q5 = Wq[n5 * K8 + kw]; let q6 = Wq[n6 * K8 + kw]; let q7 = Wq[n7 * K8 + kw];
      // transposed: column i of la is input 8kw + i of output columns 0-3 (ha: inputs 8kw + 4 ..; lb, hb: columns 4-7)
      let la = transpose(mat4x4<f32>(pairs_lo(q0), pairs_lo(q1), pairs_lo(q2), pairs_lo(q3)));
      let ha = transpose(mat4x4<f32>(pairs_hi(q0), pairs_hi(q1), pairs_hi(q2), pairs_hi(q3)));
      let lb = transpose(mat4x4<f32>(pairs_lo(q4), pairs_lo(q5), pairs_lo(q6), pairs_lo(q7)));
      let hb = transpose(mat4x4<f32>(pairs_hi(q4), pairs_hi(q5), pairs_hi(q6), pairs_hi(q7)));
      let k = 2u * kw;
      { let u = X[x0 + k]; let v = X[x0 + k + 1u]; p0l += la * u + ha * v; p0h += lb * u + hb * v; }
      if (MR > 1u) { let u = X[x1 + k]; let v = X[x1 + k + 1u]; p1l += la * u + ha * v; p1h += lb * u + hb * v; }
      if (MR > 2u) {
        { let u = X[x2 + k]; let v = X[x2 + k + 1u]; p2l += la * u + ha * v; p2h += lb * u + hb * v; }
        { let u = X[x3 + k]; let v = X[x3 + k + 1u]; p3l += la * u + ha * v; p3h += lb * u + hb * v; }
      }
      if (MR > 4u) {
        { let u = X[x4 + k]; let v = X[x4 + k + 1u]; p4l += la * u + ha * v; p4h += lb * u + hb * v; }
        { let u = X[x5 + k]; let v = X[x5 + k + 1u]; p5l += la * u + ha * v; p5h += lb * u + hb * v; }
        { let u = X[x6 + k]; let v = X[x6 + k + 1u]; p6l += la * u + ha * v; p6h += lb * u + hb * v; }
        { let u = X[x7 + k]; let v = X[x7 + k + 1u]; p7l += la * u + ha * v; p7h += lb * u + hb * v; }
      }
    }
    let sl = vec4<f32>(absmax[n0 * KB + kb], absmax[n1 * KB + kb], absmax[n2 * KB + kb], absmax[n3 * KB + kb]);
    let sh = vec4<f32>(absmax[n4 * KB + kb], absmax[n5 * KB + kb], absmax[n6 * KB + kb], absmax[n7 * KB + kb]);
    a0l += p0l * sl; a0h += p0h * sh;
    if (MR > 1u) { a1l += p1l * sl; a1h += p1h * sh; }
    if (MR > 2u) { a2l += p2l * sl; a2h += p2h * sh; a3l += p3l * sl; a3h += p3h * sh; }
    if (MR > 4u) {
      a4l += p4l * sl; a4h += p4h * sh; a5l += p5l * sl; a5h += p5h * sh;
      a6l += p6l * sl; a6h += p6h * sh; a7l += p7l * sl; a7h += p7h * sh;
    }
  }
  let tile = Tile8(a0l, a0h, a1l, a1h, a2l, a2h, a3l, a3h, a4l, a4h, a5l, a5h, a6l, a6h, a7l, a7h);
  // The LM head fused with sampling: partials instead of logits (linear_sample.wgsl).
  if (SAMPLE) { sample_tile8(row0, g, tile); return; }
  // Whole tiles in one go (linear_tile.wgsl); the rest through the per-element epilogue.
  if (store_tile8(row0, g, tile)) { return; }
  let acc = array<vec4<f32>, 16>(a0l, a0h, a1l, a1h, a2l, a2h, a3l, a3h, a4l, a4h, a5l, a5h, a6l, a6h, a7l, a7h);
  let oc = out_cols(8u);
  for (var i = 0u; i < MR; i++) {
    let r = row0 + i;
    if (r >= p.M) { break; }
    let lo = acc[2u * i];
    let hi = acc[2u * i + 1u];
    let v = array<f32, 8>(lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w);
    for (var j = 0u; j < oc; j++) { store(r, g, j, 8u, v[j], v[(j + oc) % 8u]); }
  }
}

// ---- generated by scripts/gen-nf4-tiles.ts: begin (do not edit by hand) ----
// ---- 16 or 32 rows x 16 columns (the rb16 variant, NF4) ----------------------------------
// nf4_dec's loop over two column groups (g = 2 gid.x, 2 gid.x + 1) and R = 16 or 32 rows: each
// word of X feeds 16 columns, each unpacked code R rows. The 16 codes of a step are scaled by
// their block's absmax as they are unpacked (no per-block partial sums: 4R vec4 sums a<row><q>).
// The codes of four columns form one transposed matrix per half word, so each row's step is a
// matrix-vector product (as lin_rb8 / lin_rb16, linear.wgsl, say: the same sums, fewer
// instructions). Every row sums the same terms in the same order in both, so nf4_dec32 gives
// nf4_dec16's outputs bit for bit while unpacking each code once for twice the rows (1.25x on
// SwiftShader); the launcher (src/gpu/kernels/linear.ts, tileRows) takes it where 32-row tiles
// cover no more rows than 16-row ones.
@compute @workgroup_size(WG_X, 1)
fn nf4_dec16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  fill_pairs(li, WG_X);
  let row0 = gid.y * 16u;
  let g0 = 2u * gid.x; let g1 = g0 + 1u;
  if (row0 >= p.M || out_col(g0, 0u, 8u) >= p.N) { return; }
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let last = nw() - 1u;
  let x0 = dec_row(0u, row0, K4);
  let x1 = dec_row(1u, row0, K4);
  let x2 = dec_row(2u, row0, K4);
  let x3 = dec_row(3u, row0, K4);
  let x4 = dec_row(4u, row0, K4);
  let x5 = dec_row(5u, row0, K4);
  let x6 = dec_row(6u, row0, K4);
  let x7 = dec_row(7u, row0, K4);
  let x8 = dec_row(8u, row0, K4);
  let x9 = dec_row(9u, row0, K4);
  let x10 = dec_row(10u, row0, K4);
  let x11 = dec_row(11u, row0, K4);
  let x12 = dec_row(12u, row0, K4);
  let x13 = dec_row(13u, row0, K4);
  let x14 = dec_row(14u, row0, K4);
  let x15 = dec_row(15u, row0, K4);
  let n0 = min(w_row(g0, 0u, 8u), last);
  let n1 = min(w_row(g0, 1u, 8u), last);
  let n2 = min(w_row(g0, 2u, 8u), last);
  let n3 = min(w_row(g0, 3u, 8u), last);
  let n4 = min(w_row(g0, 4u, 8u), last);
  let n5 = min(w_row(g0, 5u, 8u), last);
  let n6 = min(w_row(g0, 6u, 8u), last);
  let n7 = min(w_row(g0, 7u, 8u), last);
  let n8 = min(w_row(g1, 0u, 8u), last);
  let n9 = min(w_row(g1, 1u, 8u), last);
  let n10 = min(w_row(g1, 2u, 8u), last);
  let n11 = min(w_row(g1, 3u, 8u), last);
  let n12 = min(w_row(g1, 4u, 8u), last);
  let n13 = min(w_row(g1, 5u, 8u), last);
  let n14 = min(w_row(g1, 6u, 8u), last);
  let n15 = min(w_row(g1, 7u, 8u), last);
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
  for (var kb = 0u; kb < KB; kb++) {
    let s0 = absmax[n0 * KB + kb]; let s1 = absmax[n1 * KB + kb]; let s2 = absmax[n2 * KB + kb]; let s3 = absmax[n3 * KB + kb];
    let s4 = absmax[n4 * KB + kb]; let s5 = absmax[n5 * KB + kb]; let s6 = absmax[n6 * KB + kb]; let s7 = absmax[n7 * KB + kb];
    let s8 = absmax[n8 * KB + kb]; let s9 = absmax[n9 * KB + kb]; let s10 = absmax[n10 * KB + kb]; let s11 = absmax[n11 * KB + kb];
    let s12 = absmax[n12 * KB + kb]; let s13 = absmax[n13 * KB + kb]; let s14 = absmax[n14 * KB + kb]; let s15 = absmax[n15 * KB + kb];
    for (var w = 0u; w < 8u; w++) {
      let kw = kb * 8u + w;
      let q0 = Wq[n0 * K8 + kw]; let q1 = Wq[n1 * K8 + kw]; let q2 = Wq[n2 * K8 + kw]; let q3 = Wq[n3 * K8 + kw];
      let q4 = Wq[n4 * K8 + kw]; let q5 = Wq[n5 * K8 + kw]; let q6 = Wq[n6 * K8 + kw]; let q7 = Wq[n7 * K8 + kw];
      let q8 = Wq[n8 * K8 + kw]; let q9 = Wq[n9 * K8 + kw]; let q10 = Wq[n10 * K8 + kw]; let q11 = Wq[n11 * K8 + kw];
      let q12 = Wq[n12 * K8 + kw]; let q13 = Wq[n13 * K8 + kw]; let q14 = Wq[n14 * K8 + kw]; let q15 = Wq[n15 * K8 + kw];
      let la = transpose(mat4x4<f32>(pairs_lo(q0) * s0, pairs_lo(q1) * s1, pairs_lo(q2) * s2, pairs_lo(q3) * s3));
      let ha = transpose(mat4x4<f32>(pairs_hi(q0) * s0, pairs_hi(q1) * s1, pairs_hi(q2) * s2, pairs_hi(q3) * s3));
      let lb = transpose(mat4x4<f32>(pairs_lo(q4) * s4, pairs_lo(q5) * s5, pairs_lo(q6) * s6, pairs_lo(q7) * s7));
      let hb = transpose(mat4x4<f32>(pairs_hi(q4) * s4, pairs_hi(q5) * s5, pairs_hi(q6) * s6, pairs_hi(q7) * s7));
      let lc = transpose(mat4x4<f32>(pairs_lo(q8) * s8, pairs_lo(q9) * s9, pairs_lo(q10) * s10, pairs_lo(q11) * s11));
      let hc = transpose(mat4x4<f32>(pairs_hi(q8) * s8, pairs_hi(q9) * s9, pairs_hi(q10) * s10, pairs_hi(q11) * s11));
      let ld = transpose(mat4x4<f32>(pairs_lo(q12) * s12, pairs_lo(q13) * s13, pairs_lo(q14) * s14, pairs_lo(q15) * s15));
      let hd = transpose(mat4x4<f32>(pairs_hi(q12) * s12, pairs_hi(q13) * s13, pairs_hi(q14) * s14, pairs_hi(q15) * s15));
      let k = 2u * kw;
      { let u = X[x0 + k]; let v = X[x0 + k + 1u]; a0a += la * u + ha * v; a0b += lb * u + hb * v; a0c += lc * u + hc * v; a0d += ld * u + hd * v; }
      { let u = X[x1 + k]; let v = X[x1 + k + 1u]; a1a += la * u + ha * v; a1b += lb * u + hb * v; a1c += lc * u + hc * v; a1d += ld * u + hd * v; }
      { let u = X[x2 + k]; let v = X[x2 + k + 1u]; a2a += la * u + ha * v; a2b += lb * u + hb * v; a2c += lc * u + hc * v; a2d += ld * u + hd * v; }
      { let u = X[x3 + k]; let v = X[x3 + k + 1u]; a3a += la * u + ha * v; a3b += lb * u + hb * v; a3c += lc * u + hc * v; a3d += ld * u + hd * v; }
      { let u = X[x4 + k]; let v = X[x4 + k + 1u]; a4a += la * u + ha * v; a4b += lb * u + hb * v; a4c += lc * u + hc * v; a4d += ld * u + hd * v; }
      { let u = X[x5 + k]; let v = X[x5 + k + 1u]; a5a += la * u + ha * v; a5b += lb * u + hb * v; a5c += lc * u + hc * v; a5d += ld * u + hd * v; }
      { let u = X[x6 + k]; let v = X[x6 + k + 1u]; a6a += la * u + ha * v; a6b += lb * u + hb * v; a6c += lc * u + hc * v; a6d += ld * u + hd * v; }
      { let u = X[x7 + k]; let v = X[x7 + k + 1u]; a7a += la * u + ha * v; a7b += lb * u + hb * v; a7c += lc * u + hc * v; a7d += ld * u + hd * v; }
      { let u = X[x8 + k]; let v = X[x8 + k + 1u]; a8a += la * u + ha * v; a8b += lb * u + hb * v; a8c += lc * u + hc * v; a8d += ld * u + hd * v; }
      { let u = X[x9 + k]; let v = X[x9 + k + 1u]; a9a += la * u + ha * v; a9b += lb * u + hb * v; a9c += lc * u + hc * v; a9d += ld * u + hd * v; }
      { let u = X[x10 + k]; let v = X[x10 + k + 1u]; a10a += la * u + ha * v; a10b += lb * u + hb * v; a10c += lc * u + hc * v; a10d += ld * u + hd * v; }
      { let u = X[x11 + k]; let v = X[x11 + k + 1u]; a11a += la * u + ha * v; a11b += lb * u + hb * v; a11c += lc * u + hc * v; a11d += ld * u + hd * v; }
      { let u = X[x12 + k]; let v = X[x12 + k + 1u]; a12a += la * u + ha * v; a12b += lb * u + hb * v; a12c += lc * u + hc * v; a12d += ld * u + hd * v; }
      { let u = X[x13 + k]; let v = X[x13 + k + 1u]; a13a += la * u + ha * v; a13b += lb * u + hb * v; a13c += lc * u + hc * v; a13d += ld * u + hd * v; }
      { let u = X[x14 + k]; let v = X[x14 + k + 1u]; a14a += la * u + ha * v; a14b += lb * u + hb * v; a14c += lc * u + hc * v; a14d += ld * u + hd * v; }
      { let u = X[x15 + k]; let v = X[x15 + k + 1u]; a15a += la * u + ha * v; a15b += lb * u + hb * v; a15c += lc * u + hc * v; a15d += ld * u + hd * v; }
    }
  }
  // The 4 quarters (8 x 8 each) through one store_tile8 in a loop, the quarter picked by a
  // switch (as lin_rb16): inlined calls made SwiftShader compile this pipeline 3x slower.
  var done = array<bool, 4>(false, false, false, false);
  for (var q = 0u; q < 4u; q++) {
    var t: Tile8;
    switch q {
      case 0u: { t = Tile8(a0a, a0b, a1a, a1b, a2a, a2b, a3a, a3b, a4a, a4b, a5a, a5b, a6a, a6b, a7a, a7b); }
      case 1u: { t = Tile8(a0c, a0d, a1c, a1d, a2c, a2d, a3c, a3d, a4c, a4d, a5c, a5d, a6c, a6d, a7c, a7d); }
      case 2u: { t = Tile8(a8a, a8b, a9a, a9b, a10a, a10b, a11a, a11b, a12a, a12b, a13a, a13b, a14a, a14b, a15a, a15b); }
      default: { t = Tile8(a8c, a8d, a9c, a9d, a10c, a10d, a11c, a11d, a12c, a12d, a13c, a13d, a14c, a14d, a15c, a15d); }
    }
    done[q] = store_tile8(row0 + 8u * (q / 2u), g0 + q % 2u, t);
  }
  if (done[0] && done[1] && done[2] && done[3]) { return; }
  let acc = array<vec4<f32>, 64>(a0a, a0b, a0c, a0d, a1a, a1b, a1c, a1d, a2a, a2b, a2c, a2d, a3a, a3b, a3c, a3d, a4a, a4b, a4c, a4d, a5a, a5b, a5c, a5d, a6a, a6b, a6c, a6d, a7a, a7b, a7c, a7d, a8a, a8b, a8c, a8d, a9a, a9b, a9c, a9d, a10a, a10b, a10c, a10d, a11a, a11b, a11c, a11d, a12a, a12b, a12c, a12d, a13a, a13b, a13c, a13d, a14a, a14b, a14c, a14d, a15a, a15b, a15c, a15d);
  let oc = out_cols(8u);
  for (var i = 0u; i < 16u; i++) {
    let r = row0 + i;
    if (r >= p.M) { break; }
    for (var h = 0u; h < 2u; h++) {
      if (done[2u * (i / 8u) + h]) { continue; }
      let lo = acc[4u * i + 2u * h];
      let hi = acc[4u * i + 2u * h + 1u];
      let v = array<f32, 8>(lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w);
      for (var j = 0u; j < oc; j++) { store(r, g0 + h, j, 8u, v[j], v[(j + oc) % 8u]); }
    }
  }
}

@compute @workgroup_size(WG_X, 1)
fn nf4_dec32(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  fill_pairs(li, WG_X);
  let row0 = gid.y * 32u;
  let g0 = 2u * gid.x; let g1 = g0 + 1u;
  if (row0 >= p.M || out_col(g0, 0u, 8u) >= p.N) { return; }
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let last = nw() - 1u;
  let x0 = dec_row(0u, row0, K4);
  let x1 = dec_row(1u, row0, K4);
  let x2 = dec_row(2u, row0, K4);
  let x3 = dec_row(3u, row0, K4);
  let x4 = dec_row(4u, row0, K4);
  let x5 = dec_row(5u, row0, K4);
  let x6 = dec_row(6u, row0, K4);
  let x7 = dec_row(7u, row0, K4);
  let x8 = dec_row(8u, row0, K4);
  let x9 = dec_row(9u, row0, K4);
  let x10 = dec_row(10u, row0, K4);
  let x11 = dec_row(11u, row0, K4);
  let x12 = dec_row(12u, row0, K4);
  let x13 = dec_row(13u, row0, K4);
  let x14 = dec_row(14u, row0, K4);
  let x15 = dec_row(15u, row0, K4);
  let x16 = dec_row(16u, row0, K4);
  let x17 = dec_row(17u, row0, K4);
  let x18 = dec_row(18u, row0, K4);
  let x19 = dec_row(19u, row0, K4);
  let x20 = dec_row(20u, row0, K4);
  let x21 = dec_row(21u, row0, K4);
  let x22 = dec_row(22u, row0, K4);
  let x23 = dec_row(23u, row0, K4);
  let x24 = dec_row(24u, row0, K4);
  let x25 = dec_row(25u, row0, K4);
  let x26 = dec_row(26u, row0, K4);
  let x27 = dec_row(27u, row0, K4);
  let x28 = dec_row(28u, row0, K4);
  let x29 = dec_row(29u, row0, K4);
  let x30 = dec_row(30u, row0, K4);
  let x31 = dec_row(31u, row0, K4);
  let n0 = min(w_row(g0, 0u, 8u), last);
  let n1 = min(w_row(g0, 1u, 8u), last);
  let n2 = min(w_row(g0, 2u, 8u), last);
  let n3 = min(w_row(g0, 3u, 8u), last);
  let n4 = min(w_row(g0, 4u, 8u), last);
  let n5 = min(w_row(g0, 5u, 8u), last);
  let n6 = min(w_row(g0, 6u, 8u), last);
  let n7 = min(w_row(g0, 7u, 8u), last);
  let n8 = min(w_row(g1, 0u, 8u), last);
  let n9 = min(w_row(g1, 1u, 8u), last);
  let n10 = min(w_row(g1, 2u, 8u), last);
  let n11 = min(w_row(g1, 3u, 8u), last);
  let n12 = min(w_row(g1, 4u, 8u), last);
  let n13 = min(w_row(g1, 5u, 8u), last);
  let n14 = min(w_row(g1, 6u, 8u), last);
  let n15 = min(w_row(g1, 7u, 8u), last);
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
  for (var kb = 0u; kb < KB; kb++) {
    let s0 = absmax[n0 * KB + kb]; let s1 = absmax[n1 * KB + kb]; let s2 = absmax[n2 * KB + kb]; let s3 = absmax[n3 * KB + kb];
    let s4 = absmax[n4 * KB + kb]; let s5 = absmax[n5 * KB + kb]; let s6 = absmax[n6 * KB + kb]; let s7 = absmax[n7 * KB + kb];
    let s8 = absmax[n8 * KB + kb]; let s9 = absmax[n9 * KB + kb]; let s10 = absmax[n10 * KB + kb]; let s11 = absmax[n11 * KB + kb];
    let s12 = absmax[n12 * KB + kb]; let s13 = absmax[n13 * KB + kb]; let s14 = absmax[n14 * KB + kb]; let s15 = absmax[n15 * KB + kb];
    for (var w = 0u; w < 8u; w++) {
      let kw = kb * 8u + w;
      let q0 = Wq[n0 * K8 + kw]; let q1 = Wq[n1 * K8 + kw]; let q2 = Wq[n2 * K8 + kw]; let q3 = Wq[n3 * K8 + kw];
      let q4 = Wq[n4 * K8 + kw]; let q5 = Wq[n5 * K8 + kw]; let q6 = Wq[n6 * K8 + kw]; let q7 = Wq[n7 * K8 + kw];
      let q8 = Wq[n8 * K8 + kw]; let q9 = Wq[n9 * K8 + kw]; let q10 = Wq[n10 * K8 + kw]; let q11 = Wq[n11 * K8 + kw];
      let q12 = Wq[n12 * K8 + kw]; let q13 = Wq[n13 * K8 + kw]; let q14 = Wq[n14 * K8 + kw]; let q15 = Wq[n15 * K8 + kw];
      let la = transpose(mat4x4<f32>(pairs_lo(q0) * s0, pairs_lo(q1) * s1, pairs_lo(q2) * s2, pairs_lo(q3) * s3));
      let ha = transpose(mat4x4<f32>(pairs_hi(q0) * s0, pairs_hi(q1) * s1, pairs_hi(q2) * s2, pairs_hi(q3) * s3));
      let lb = transpose(mat4x4<f32>(pairs_lo(q4) * s4, pairs_lo(q5) * s5, pairs_lo(q6) * s6, pairs_lo(q7) * s7));
      let hb = transpose(mat4x4<f32>(pairs_hi(q4) * s4, pairs_hi(q5) * s5, pairs_hi(q6) * s6, pairs_hi(q7) * s7));
      let lc = transpose(mat4x4<f32>(pairs_lo(q8) * s8, pairs_lo(q9) * s9, pairs_lo(q10) * s10, pairs_lo(q11) * s11));
      let hc = transpose(mat4x4<f32>(pairs_hi(q8) * s8, pairs_hi(q9) * s9, pairs_hi(q10) * s10, pairs_hi(q11) * s11));
      let ld = transpose(mat4x4<f32>(pairs_lo(q12) * s12, pairs_lo(q13) * s13, pairs_lo(q14) * s14, pairs_lo(q15) * s15));
      let hd = transpose(mat4x4<f32>(pairs_hi(q12) * s12, pairs_hi(q13) * s13, pairs_hi(q14) * s14, pairs_hi(q15) * s15));
      let k = 2u * kw;
      { let u = X[x0 + k]; let v = X[x0 + k + 1u]; a0a += la * u + ha * v; a0b += lb * u + hb * v; a0c += lc * u + hc * v; a0d += ld * u + hd * v; }
      { let u = X[x1 + k]; let v = X[x1 + k + 1u]; a1a += la * u + ha * v; a1b += lb * u + hb * v; a1c += lc * u + hc * v; a1d += ld * u + hd * v; }
      { let u = X[x2 + k]; let v = X[x2 + k + 1u]; a2a += la * u + ha * v; a2b += lb * u + hb * v; a2c += lc * u + hc * v; a2d += ld * u + hd * v; }
      { let u = X[x3 + k]; let v = X[x3 + k + 1u]; a3a += la * u + ha * v; a3b += lb * u + hb * v; a3c += lc * u + hc * v; a3d += ld * u + hd * v; }
      { let u = X[x4 + k]; let v = X[x4 + k + 1u]; a4a += la * u + ha * v; a4b += lb * u + hb * v; a4c += lc * u + hc * v; a4d += ld * u + hd * v; }
      { let u = X[x5 + k]; let v = X[x5 + k + 1u]; a5a += la * u + ha * v; a5b += lb * u + hb * v; a5c += lc * u + hc * v; a5d += ld * u + hd * v; }
      { let u = X[x6 + k]; let v = X[x6 + k + 1u]; a6a += la * u + ha * v; a6b += lb * u + hb * v; a6c += lc * u + hc * v; a6d += ld * u + hd * v; }
      { let u = X[x7 + k]; let v = X[x7 + k + 1u]; a7a += la * u + ha * v; a7b += lb * u + hb * v; a7c += lc * u + hc * v; a7d += ld * u + hd * v; }
      { let u = X[x8 + k]; let v = X[x8 + k + 1u]; a8a += la * u + ha * v; a8b += lb * u + hb * v; a8c += lc * u + hc * v; a8d += ld * u + hd * v; }
      { let u = X[x9 + k]; let v = X[x9 + k + 1u]; a9a += la * u + ha * v; a9b += lb * u + hb * v; a9c += lc * u + hc * v; a9d += ld * u + hd * v; }
      { let u = X[x10 + k]; let v = X[x10 + k + 1u]; a10a += la * u + ha * v; a10b += lb * u + hb * v; a10c += lc * u + hc * v; a10d += ld * u + hd * v; }
      { let u = X[x11 + k]; let v = X[x11 + k + 1u]; a11a += la * u + ha * v; a11b += lb * u + hb * v; a11c += lc * u + hc * v; a11d += ld * u + hd * v; }
      { let u = X[x12 + k]; let v = X[x12 + k + 1u]; a12a += la * u + ha * v; a12b += lb * u + hb * v; a12c += lc * u + hc * v; a12d += ld * u + hd * v; }
      { let u = X[x13 + k]; let v = X[x13 + k + 1u]; a13a += la * u + ha * v; a13b += lb * u + hb * v; a13c += lc * u + hc * v; a13d += ld * u + hd * v; }
      { let u = X[x14 + k]; let v = X[x14 + k + 1u]; a14a += la * u + ha * v; a14b += lb * u + hb * v; a14c += lc * u + hc * v; a14d += ld * u + hd * v; }
      { let u = X[x15 + k]; let v = X[x15 + k + 1u]; a15a += la * u + ha * v; a15b += lb * u + hb * v; a15c += lc * u + hc * v; a15d += ld * u + hd * v; }
      { let u = X[x16 + k]; let v = X[x16 + k + 1u]; a16a += la * u + ha * v; a16b += lb * u + hb * v; a16c += lc * u + hc * v; a16d += ld * u + hd * v; }
      { let u = X[x17 + k]; let v = X[x17 + k + 1u]; a17a += la * u + ha * v; a17b += lb * u + hb * v; a17c += lc * u + hc * v; a17d += ld * u + hd * v; }
      { let u = X[x18 + k]; let v = X[x18 + k + 1u]; a18a += la * u + ha * v; a18b += lb * u + hb * v; a18c += lc * u + hc * v; a18d += ld * u + hd * v; }
      { let u = X[x19 + k]; let v = X[x19 + k + 1u]; a19a += la * u + ha * v; a19b += lb * u + hb * v; a19c += lc * u + hc * v; a19d += ld * u + hd * v; }
      { let u = X[x20 + k]; let v = X[x20 + k + 1u]; a20a += la * u + ha * v; a20b += lb * u + hb * v; a20c += lc * u + hc * v; a20d += ld * u + hd * v; }
      { let u = X[x21 + k]; let v = X[x21 + k + 1u]; a21a += la * u + ha * v; a21b += lb * u + hb * v; a21c += lc * u + hc * v; a21d += ld * u + hd * v; }
      { let u = X[x22 + k]; let v = X[x22 + k + 1u]; a22a += la * u + ha * v; a22b += lb * u + hb * v; a22c += lc * u + hc * v; a22d += ld * u + hd * v; }
      { let u = X[x23 + k]; let v = X[x23 + k + 1u]; a23a += la * u + ha * v; a23b += lb * u + hb * v; a23c += lc * u + hc * v; a23d += ld * u + hd * v; }
      { let u = X[x24 + k]; let v = X[x24 + k + 1u]; a24a += la * u + ha * v; a24b += lb * u + hb * v; a24c += lc * u + hc * v; a24d += ld * u + hd * v; }
      { let u = X[x25 + k]; let v = X[x25 + k + 1u]; a25a += la * u + ha * v; a25b += lb * u + hb * v; a25c += lc * u + hc * v; a25d += ld * u + hd * v; }
      { let u = X[x26 + k]; let v = X[x26 + k + 1u]; a26a += la * u + ha * v; a26b += lb * u + hb * v; a26c += lc * u + hc * v; a26d += ld * u + hd * v; }
      { let u = X[x27 + k]; let v = X[x27 + k + 1u]; a27a += la * u + ha * v; a27b += lb * u + hb * v; a27c += lc * u + hc * v; a27d += ld * u + hd * v; }
      { let u = X[x28 + k]; let v = X[x28 + k + 1u]; a28a += la * u + ha * v; a28b += lb * u + hb * v; a28c += lc * u + hc * v; a28d += ld * u + hd * v; }
      { let u = X[x29 + k]; let v = X[x29 + k + 1u]; a29a += la * u + ha * v; a29b += lb * u + hb * v; a29c += lc * u + hc * v; a29d += ld * u + hd * v; }
      { let u = X[x30 + k]; let v = X[x30 + k + 1u]; a30a += la * u + ha * v; a30b += lb * u + hb * v; a30c += lc * u + hc * v; a30d += ld * u + hd * v; }
      { let u = X[x31 + k]; let v = X[x31 + k + 1u]; a31a += la * u + ha * v; a31b += lb * u + hb * v; a31c += lc * u + hc * v; a31d += ld * u + hd * v; }
    }
  }
  // The 8 quarters (8 x 8 each) through one store_tile8 in a loop, the quarter picked by a
  // switch (as lin_rb16): inlined calls made SwiftShader compile this pipeline 3x slower.
  var done = array<bool, 8>(false, false, false, false, false, false, false, false);
  for (var q = 0u; q < 8u; q++) {
    var t: Tile8;
    switch q {
      case 0u: { t = Tile8(a0a, a0b, a1a, a1b, a2a, a2b, a3a, a3b, a4a, a4b, a5a, a5b, a6a, a6b, a7a, a7b); }
      case 1u: { t = Tile8(a0c, a0d, a1c, a1d, a2c, a2d, a3c, a3d, a4c, a4d, a5c, a5d, a6c, a6d, a7c, a7d); }
      case 2u: { t = Tile8(a8a, a8b, a9a, a9b, a10a, a10b, a11a, a11b, a12a, a12b, a13a, a13b, a14a, a14b, a15a, a15b); }
      case 3u: { t = Tile8(a8c, a8d, a9c, a9d, a10c, a10d, a11c, a11d, a12c, a12d, a13c, a13d, a14c, a14d, a15c, a15d); }
      case 4u: { t = Tile8(a16a, a16b, a17a, a17b, a18a, a18b, a19a, a19b, a20a, a20b, a21a, a21b, a22a, a22b, a23a, a23b); }
      case 5u: { t = Tile8(a16c, a16d, a17c, a17d, a18c, a18d, a19c, a19d, a20c, a20d, a21c, a21d, a22c, a22d, a23c, a23d); }
      case 6u: { t = Tile8(a24a, a24b, a25a, a25b, a26a, a26b, a27a, a27b, a28a, a28b, a29a, a29b, a30a, a30b, a31a, a31b); }
      default: { t = Tile8(a24c, a24d, a25c, a25d, a26c, a26d, a27c, a27d, a28c, a28d, a29c, a29d, a30c, a30d, a31c, a31d); }
    }
    done[q] = store_tile8(row0 + 8u * (q / 2u), g0 + q % 2u, t);
  }
  if (done[0] && done[1] && done[2] && done[3] && done[4] && done[5] && done[6] && done[7]) { return; }
  let acc = array<vec4<f32>, 128>(a0a, a0b, a0c, a0d, a1a, a1b, a1c, a1d, a2a, a2b, a2c, a2d, a3a, a3b, a3c, a3d, a4a, a4b, a4c, a4d, a5a, a5b, a5c, a5d, a6a, a6b, a6c, a6d, a7a, a7b, a7c, a7d, a8a, a8b, a8c, a8d, a9a, a9b, a9c, a9d, a10a, a10b, a10c, a10d, a11a, a11b, a11c, a11d, a12a, a12b, a12c, a12d, a13a, a13b, a13c, a13d, a14a, a14b, a14c, a14d, a15a, a15b, a15c, a15d, a16a, a16b, a16c, a16d, a17a, a17b, a17c, a17d, a18a, a18b, a18c, a18d, a19a, a19b, a19c, a19d, a20a, a20b, a20c, a20d, a21a, a21b, a21c, a21d, a22a, a22b, a22c, a22d, a23a, a23b, a23c, a23d, a24a, a24b, a24c, a24d, a25a, a25b, a25c, a25d, a26a, a26b, a26c, a26d, a27a, a27b, a27c, a27d, a28a, a28b, a28c, a28d, a29a, a29b, a29c, a29d, a30a, a30b, a30c, a30d, a31a, a31b, a31c, a31d);
  let oc = out_cols(8u);
  for (var i = 0u; i < 32u; i++) {
    let r = row0 + i;
    if (r >= p.M) { break; }
    for (var h = 0u; h < 2u; h++) {
      if (done[2u * (i / 8u) + h]) { continue; }
      let lo = acc[4u * i + 2u * h];
      let hi = acc[4u * i + 2u * h + 1u];
      let v = array<f32, 8>(lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w);
      for (var j = 0u; j < oc; j++) { store(r, g0 + h, j, 8u, v[j], v[(j + oc) % 8u]); }
    }
  }
}

// ---- decode: MR rows x 32 or 64 columns (the dec variant on wide layers) ----------------
// nf4_dec over 4 or 8 column groups of 8: each word of X (and each row's X load) feeds 32 or 64
// columns instead of 8. Every output sums the same terms in the same order as nf4_dec's (per-block
// partials of unscaled codes, then scaled by the 8 absmax values of a group), so the outputs, the
// sampled tokens and their log-probs are nf4_dec's bit for bit. The launcher
// (src/gpu/kernels/linear.ts, nf4DecodeWidth) takes them on layers with enough columns to keep
// every core busy; SwiftShader compiles them in 1-6 s, so small layers keep nf4_dec.
@compute @workgroup_size(WG_X, 1)
fn nf4_dec_c32(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  fill_pairs(li, WG_X);
  let row0 = gid.y * MR;
  let g0 = 4u * gid.x; let g1 = g0 + 1u; let g2 = g0 + 2u; let g3 = g0 + 3u;
  if (row0 >= p.M || out_col(g0, 0u, 8u) >= p.N) { return; }
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let last = nw() - 1u;
  let x0 = dec_row(0u, row0, K4);
  let x1 = dec_row(1u, row0, K4);
  let x2 = dec_row(2u, row0, K4);
  let x3 = dec_row(3u, row0, K4);
  let x4 = dec_row(4u, row0, K4);
  let x5 = dec_row(5u, row0, K4);
  let x6 = dec_row(6u, row0, K4);
  let x7 = dec_row(7u, row0, K4);
  let n0 = min(w_row(g0, 0u, 8u), last);
  let n1 = min(w_row(g0, 1u, 8u), last);
  let n2 = min(w_row(g0, 2u, 8u), last);
  let n3 = min(w_row(g0, 3u, 8u), last);
  let n4 = min(w_row(g0, 4u, 8u), last);
  let n5 = min(w_row(g0, 5u, 8u), last);
  let n6 = min(w_row(g0, 6u, 8u), last);
  let n7 = min(w_row(g0, 7u, 8u), last);
  let n8 = min(w_row(g1, 0u, 8u), last);
  let n9 = min(w_row(g1, 1u, 8u), last);
  let n10 = min(w_row(g1, 2u, 8u), last);
  let n11 = min(w_row(g1, 3u, 8u), last);
  let n12 = min(w_row(g1, 4u, 8u), last);
  let n13 = min(w_row(g1, 5u, 8u), last);
  let n14 = min(w_row(g1, 6u, 8u), last);
  let n15 = min(w_row(g1, 7u, 8u), last);
  let n16 = min(w_row(g2, 0u, 8u), last);
  let n17 = min(w_row(g2, 1u, 8u), last);
  let n18 = min(w_row(g2, 2u, 8u), last);
  let n19 = min(w_row(g2, 3u, 8u), last);
  let n20 = min(w_row(g2, 4u, 8u), last);
  let n21 = min(w_row(g2, 5u, 8u), last);
  let n22 = min(w_row(g2, 6u, 8u), last);
  let n23 = min(w_row(g2, 7u, 8u), last);
  let n24 = min(w_row(g3, 0u, 8u), last);
  let n25 = min(w_row(g3, 1u, 8u), last);
  let n26 = min(w_row(g3, 2u, 8u), last);
  let n27 = min(w_row(g3, 3u, 8u), last);
  let n28 = min(w_row(g3, 4u, 8u), last);
  let n29 = min(w_row(g3, 5u, 8u), last);
  let n30 = min(w_row(g3, 6u, 8u), last);
  let n31 = min(w_row(g3, 7u, 8u), last);
  var a0a = vec4<f32>(); var a0b = vec4<f32>(); var a0c = vec4<f32>(); var a0d = vec4<f32>(); var a0e = vec4<f32>(); var a0f = vec4<f32>(); var a0g = vec4<f32>(); var a0h = vec4<f32>();
  var a1a = vec4<f32>(); var a1b = vec4<f32>(); var a1c = vec4<f32>(); var a1d = vec4<f32>(); var a1e = vec4<f32>(); var a1f = vec4<f32>(); var a1g = vec4<f32>(); var a1h = vec4<f32>();
  var a2a = vec4<f32>(); var a2b = vec4<f32>(); var a2c = vec4<f32>(); var a2d = vec4<f32>(); var a2e = vec4<f32>(); var a2f = vec4<f32>(); var a2g = vec4<f32>(); var a2h = vec4<f32>();
  var a3a = vec4<f32>(); var a3b = vec4<f32>(); var a3c = vec4<f32>(); var a3d = vec4<f32>(); var a3e = vec4<f32>(); var a3f = vec4<f32>(); var a3g = vec4<f32>(); var a3h = vec4<f32>();
  var a4a = vec4<f32>(); var a4b = vec4<f32>(); var a4c = vec4<f32>(); var a4d = vec4<f32>(); var a4e = vec4<f32>(); var a4f = vec4<f32>(); var a4g = vec4<f32>(); var a4h = vec4<f32>();
  var a5a = vec4<f32>(); var a5b = vec4<f32>(); var a5c = vec4<f32>(); var a5d = vec4<f32>(); var a5e = vec4<f32>(); var a5f = vec4<f32>(); var a5g = vec4<f32>(); var a5h = vec4<f32>();
  var a6a = vec4<f32>(); var a6b = vec4<f32>(); var a6c = vec4<f32>(); var a6d = vec4<f32>(); var a6e = vec4<f32>(); var a6f = vec4<f32>(); var a6g = vec4<f32>(); var a6h = vec4<f32>();
  var a7a = vec4<f32>(); var a7b = vec4<f32>(); var a7c = vec4<f32>(); var a7d = vec4<f32>(); var a7e = vec4<f32>(); var a7f = vec4<f32>(); var a7g = vec4<f32>(); var a7h = vec4<f32>();
  for (var kb = 0u; kb < KB; kb++) {
    var p0a = vec4<f32>(); var p0b = vec4<f32>(); var p0c = vec4<f32>(); var p0d = vec4<f32>(); var p0e = vec4<f32>(); var p0f = vec4<f32>(); var p0g = vec4<f32>(); var p0h = vec4<f32>();
    var p1a = vec4<f32>(); var p1b = vec4<f32>(); var p1c = vec4<f32>(); var p1d = vec4<f32>(); var p1e = vec4<f32>(); var p1f = vec4<f32>(); var p1g = vec4<f32>(); var p1h = vec4<f32>();
    var p2a = vec4<f32>(); var p2b = vec4<f32>(); var p2c = vec4<f32>(); var p2d = vec4<f32>(); var p2e = vec4<f32>(); var p2f = vec4<f32>(); var p2g = vec4<f32>(); var p2h = vec4<f32>();
    var p3a = vec4<f32>(); var p3b = vec4<f32>(); var p3c = vec4<f32>(); var p3d = vec4<f32>(); var p3e = vec4<f32>(); var p3f = vec4<f32>(); var p3g = vec4<f32>(); var p3h = vec4<f32>();
    var p4a = vec4<f32>(); var p4b = vec4<f32>(); var p4c = vec4<f32>(); var p4d = vec4<f32>(); var p4e = vec4<f32>(); var p4f = vec4<f32>(); var p4g = vec4<f32>(); var p4h = vec4<f32>();
    var p5a = vec4<f32>(); var p5b = vec4<f32>(); var p5c = vec4<f32>(); var p5d = vec4<f32>(); var p5e = vec4<f32>(); var p5f = vec4<f32>(); var p5g = vec4<f32>(); var p5h = vec4<f32>();
    var p6a = vec4<f32>(); var p6b = vec4<f32>(); var p6c = vec4<f32>(); var p6d = vec4<f32>(); var p6e = vec4<f32>(); var p6f = vec4<f32>(); var p6g = vec4<f32>(); var p6h = vec4<f32>();
    var p7a = vec4<f32>(); var p7b = vec4<f32>(); var p7c = vec4<f32>(); var p7d = vec4<f32>(); var p7e = vec4<f32>(); var p7f = vec4<f32>(); var p7g = vec4<f32>(); var p7h = vec4<f32>();
    for (var w = 0u; w < 8u; w++) {
      let kw = kb * 8u + w;
      let q0 = Wq[n0 * K8 + kw]; let q1 = Wq[n1 * K8 + kw]; let q2 = Wq[n2 * K8 + kw]; let q3 = Wq[n3 * K8 + kw];
      let q4 = Wq[n4 * K8 + kw]; let q5 = Wq[n5 * K8 + kw]; let q6 = Wq[n6 * K8 + kw]; let q7 = Wq[n7 * K8 + kw];
      let q8 = Wq[n8 * K8 + kw]; let q9 = Wq[n9 * K8 + kw]; let q10 = Wq[n10 * K8 + kw]; let q11 = Wq[n11 * K8 + kw];
      let q12 = Wq[n12 * K8 + kw]; let q13 = Wq[n13 * K8 + kw]; let q14 = Wq[n14 * K8 + kw]; let q15 = Wq[n15 * K8 + kw];
      let q16 = Wq[n16 * K8 + kw]; let q17 = Wq[n17 * K8 + kw]; let q18 = Wq[n18 * K8 + kw]; let q19 = Wq[n19 * K8 + kw];
      let q20 = Wq[n20 * K8 + kw]; let q21 = Wq[n21 * K8 + kw]; let q22 = Wq[n22 * K8 + kw]; let q23 = Wq[n23 * K8 + kw];
      let q24 = Wq[n24 * K8 + kw]; let q25 = Wq[n25 * K8 + kw]; let q26 = Wq[n26 * K8 + kw]; let q27 = Wq[n27 * K8 + kw];
      let q28 = Wq[n28 * K8 + kw]; let q29 = Wq[n29 * K8 + kw]; let q30 = Wq[n30 * K8 + kw]; let q31 = Wq[n31 * K8 + kw];
      let la = transpose(mat4x4<f32>(pairs_lo(q0), pairs_lo(q1), pairs_lo(q2), pairs_lo(q3)));
      let ha = transpose(mat4x4<f32>(pairs_hi(q0), pairs_hi(q1), pairs_hi(q2), pairs_hi(q3)));
      let lb = transpose(mat4x4<f32>(pairs_lo(q4), pairs_lo(q5), pairs_lo(q6), pairs_lo(q7)));
      let hb = transpose(mat4x4<f32>(pairs_hi(q4), pairs_hi(q5), pairs_hi(q6), pairs_hi(q7)));
      let lc = transpose(mat4x4<f32>(pairs_lo(q8), pairs_lo(q9), pairs_lo(q10), pairs_lo(q11)));
      let hc = transpose(mat4x4<f32>(pairs_hi(q8), pairs_hi(q9), pairs_hi(q10), pairs_hi(q11)));
      let ld = transpose(mat4x4<f32>(pairs_lo(q12), pairs_lo(q13), pairs_lo(q14), pairs_lo(q15)));
      let hd = transpose(mat4x4<f32>(pairs_hi(q12), pairs_hi(q13), pairs_hi(q14), pairs_hi(q15)));
      let le = transpose(mat4x4<f32>(pairs_lo(q16), pairs_lo(q17), pairs_lo(q18), pairs_lo(q19)));
      let he = transpose(mat4x4<f32>(pairs_hi(q16), pairs_hi(q17), pairs_hi(q18), pairs_hi(q19)));
      let lf = transpose(mat4x4<f32>(pairs_lo(q20), pairs_lo(q21), pairs_lo(q22), pairs_lo(q23)));
      let hf = transpose(mat4x4<f32>(pairs_hi(q20), pairs_hi(q21), pairs_hi(q22), pairs_hi(q23)));
      let lg = transpose(mat4x4<f32>(pairs_lo(q24), pairs_lo(q25), pairs_lo(q26), pairs_lo(q27)));
      let hg = transpose(mat4x4<f32>(pairs_hi(q24), pairs_hi(q25), pairs_hi(q26), pairs_hi(q27)));
      let lh = transpose(mat4x4<f32>(pairs_lo(q28), pairs_lo(q29), pairs_lo(q30), pairs_lo(q31)));
      let hh = transpose(mat4x4<f32>(pairs_hi(q28), pairs_hi(q29), pairs_hi(q30), pairs_hi(q31)));
      let k = 2u * kw;
      { let u = X[x0 + k]; let v = X[x0 + k + 1u]; p0a += la * u + ha * v; p0b += lb * u + hb * v; p0c += lc * u + hc * v; p0d += ld * u + hd * v; p0e += le * u + he * v; p0f += lf * u + hf * v; p0g += lg * u + hg * v; p0h += lh * u + hh * v; }
      if (MR > 1u) { { let u = X[x1 + k]; let v = X[x1 + k + 1u]; p1a += la * u + ha * v; p1b += lb * u + hb * v; p1c += lc * u + hc * v; p1d += ld * u + hd * v; p1e += le * u + he * v; p1f += lf * u + hf * v; p1g += lg * u + hg * v; p1h += lh * u + hh * v; } }
      if (MR > 2u) { { let u = X[x2 + k]; let v = X[x2 + k + 1u]; p2a += la * u + ha * v; p2b += lb * u + hb * v; p2c += lc * u + hc * v; p2d += ld * u + hd * v; p2e += le * u + he * v; p2f += lf * u + hf * v; p2g += lg * u + hg * v; p2h += lh * u + hh * v; } { let u = X[x3 + k]; let v = X[x3 + k + 1u]; p3a += la * u + ha * v; p3b += lb * u + hb * v; p3c += lc * u + hc * v; p3d += ld * u + hd * v; p3e += le * u + he * v; p3f += lf * u + hf * v; p3g += lg * u + hg * v; p3h += lh * u + hh * v; } }
      if (MR > 4u) { { let u = X[x4 + k]; let v = X[x4 + k + 1u]; p4a += la * u + ha * v; p4b += lb * u + hb * v; p4c += lc * u + hc * v; p4d += ld * u + hd * v; p4e += le * u + he * v; p4f += lf * u + hf * v; p4g += lg * u + hg * v; p4h += lh * u + hh * v; } { let u = X[x5 + k]; let v = X[x5 + k + 1u]; p5a += la * u + ha * v; p5b += lb * u + hb * v; p5c += lc * u + hc * v; p5d += ld * u + hd * v; p5e += le * u + he * v; p5f += lf * u + hf * v; p5g += lg * u + hg * v; p5h += lh * u + hh * v; } { let u = X[x6 + k]; let v = X[x6 + k + 1u]; p6a += la * u + ha * v; p6b += lb * u + hb * v; p6c += lc * u + hc * v; p6d += ld * u + hd * v; p6e += le * u + he * v; p6f += lf * u + hf * v; p6g += lg * u + hg * v; p6h += lh * u + hh * v; } { let u = X[x7 + k]; let v = X[x7 + k + 1u]; p7a += la * u + ha * v; p7b += lb * u + hb * v; p7c += lc * u + hc * v; p7d += ld * u + hd * v; p7e += le * u + he * v; p7f += lf * u + hf * v; p7g += lg * u + hg * v; p7h += lh * u + hh * v; } }
    }
    let sa = vec4<f32>(absmax[n0 * KB + kb], absmax[n1 * KB + kb], absmax[n2 * KB + kb], absmax[n3 * KB + kb]);
    let sb = vec4<f32>(absmax[n4 * KB + kb], absmax[n5 * KB + kb], absmax[n6 * KB + kb], absmax[n7 * KB + kb]);
    let sc = vec4<f32>(absmax[n8 * KB + kb], absmax[n9 * KB + kb], absmax[n10 * KB + kb], absmax[n11 * KB + kb]);
    let sd = vec4<f32>(absmax[n12 * KB + kb], absmax[n13 * KB + kb], absmax[n14 * KB + kb], absmax[n15 * KB + kb]);
    let se = vec4<f32>(absmax[n16 * KB + kb], absmax[n17 * KB + kb], absmax[n18 * KB + kb], absmax[n19 * KB + kb]);
    let sf = vec4<f32>(absmax[n20 * KB + kb], absmax[n21 * KB + kb], absmax[n22 * KB + kb], absmax[n23 * KB + kb]);
    let sg = vec4<f32>(absmax[n24 * KB + kb], absmax[n25 * KB + kb], absmax[n26 * KB + kb], absmax[n27 * KB + kb]);
    let sh = vec4<f32>(absmax[n28 * KB + kb], absmax[n29 * KB + kb], absmax[n30 * KB + kb], absmax[n31 * KB + kb]);
    a0a += p0a * sa; a0b += p0b * sb; a0c += p0c * sc; a0d += p0d * sd; a0e += p0e * se; a0f += p0f * sf; a0g += p0g * sg; a0h += p0h * sh;
    if (MR > 1u) { a1a += p1a * sa; a1b += p1b * sb; a1c += p1c * sc; a1d += p1d * sd; a1e += p1e * se; a1f += p1f * sf; a1g += p1g * sg; a1h += p1h * sh; }
    if (MR > 2u) { a2a += p2a * sa; a2b += p2b * sb; a2c += p2c * sc; a2d += p2d * sd; a2e += p2e * se; a2f += p2f * sf; a2g += p2g * sg; a2h += p2h * sh; a3a += p3a * sa; a3b += p3b * sb; a3c += p3c * sc; a3d += p3d * sd; a3e += p3e * se; a3f += p3f * sf; a3g += p3g * sg; a3h += p3h * sh; }
    if (MR > 4u) { a4a += p4a * sa; a4b += p4b * sb; a4c += p4c * sc; a4d += p4d * sd; a4e += p4e * se; a4f += p4f * sf; a4g += p4g * sg; a4h += p4h * sh; a5a += p5a * sa; a5b += p5b * sb; a5c += p5c * sc; a5d += p5d * sd; a5e += p5e * se; a5f += p5f * sf; a5g += p5g * sg; a5h += p5h * sh; a6a += p6a * sa; a6b += p6b * sb; a6c += p6c * sc; a6d += p6d * sd; a6e += p6e * se; a6f += p6f * sf; a6g += p6g * sg; a6h += p6h * sh; a7a += p7a * sa; a7b += p7b * sb; a7c += p7c * sc; a7d += p7d * sd; a7e += p7e * se; a7f += p7f * sf; a7g += p7g * sg; a7h += p7h * sh; }
  }
  // Each column group's 8 x 8 tile through one epilogue in a loop, the group picked by a switch.
  for (var c = 0u; c < 4u; c++) {
    let g = g0 + c;
    if (out_col(g, 0u, 8u) >= p.N) { break; }
    var t: Tile8;
    switch c {
      case 0u: { t = Tile8(a0a, a0b, a1a, a1b, a2a, a2b, a3a, a3b, a4a, a4b, a5a, a5b, a6a, a6b, a7a, a7b); }
      case 1u: { t = Tile8(a0c, a0d, a1c, a1d, a2c, a2d, a3c, a3d, a4c, a4d, a5c, a5d, a6c, a6d, a7c, a7d); }
      case 2u: { t = Tile8(a0e, a0f, a1e, a1f, a2e, a2f, a3e, a3f, a4e, a4f, a5e, a5f, a6e, a6f, a7e, a7f); }
      default: { t = Tile8(a0g, a0h, a1g, a1h, a2g, a2h, a3g, a3h, a4g, a4h, a5g, a5h, a6g, a6h, a7g, a7h); }
    }
    // The LM head fused with sampling: partials instead of logits (linear_sample.wgsl).
    if (SAMPLE) { sample_tile8(row0, g, t); continue; }
    if (store_tile8(row0, g, t)) { continue; }
    let acc = array<vec4<f32>, 16>(t.a0l, t.a0h, t.a1l, t.a1h, t.a2l, t.a2h, t.a3l, t.a3h, t.a4l, t.a4h, t.a5l, t.a5h, t.a6l, t.a6h, t.a7l, t.a7h);
    let oc = out_cols(8u);
    for (var i = 0u; i < MR; i++) {
      let r = row0 + i;
      if (r >= p.M) { break; }
      let lo = acc[2u * i];
      let hi = acc[2u * i + 1u];
      let v = array<f32, 8>(lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w);
      for (var j = 0u; j < oc; j++) { store(r, g, j, 8u, v[j], v[(j + oc) % 8u]); }
    }
  }
}

@compute @workgroup_size(WG_X, 1)
fn nf4_dec_c64(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  fill_pairs(li, WG_X);
  let row0 = gid.y * MR;
  let g0 = 8u * gid.x; let g1 = g0 + 1u; let g2 = g0 + 2u; let g3 = g0 + 3u; let g4 = g0 + 4u; let g5 = g0 + 5u; let g6 = g0 + 6u; let g7 = g0 + 7u;
  if (row0 >= p.M || out_col(g0, 0u, 8u) >= p.N) { return; }
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let last = nw() - 1u;
  let x0 = dec_row(0u, row0, K4);
  let x1 = dec_row(1u, row0, K4);
  let x2 = dec_row(2u, row0, K4);
  let x3 = dec_row(3u, row0, K4);
  let x4 = dec_row(4u, row0, K4);
  let x5 = dec_row(5u, row0, K4);
  let x6 = dec_row(6u, row0, K4);
  let x7 = dec_row(7u, row0, K4);
  let n0 = min(w_row(g0, 0u, 8u), last);
  let n1 = min(w_row(g0, 1u, 8u), last);
  let n2 = min(w_row(g0, 2u, 8u), last);
  let n3 = min(w_row(g0, 3u, 8u), last);
  let n4 = min(w_row(g0, 4u, 8u), last);
  let n5 = min(w_row(g0, 5u, 8u), last);
  let n6 = min(w_row(g0, 6u, 8u), last);
  let n7 = min(w_row(g0, 7u, 8u), last);
  let n8 = min(w_row(g1, 0u, 8u), last);
  let n9 = min(w_row(g1, 1u, 8u), last);
  let n10 = min(w_row(g1, 2u, 8u), last);
  let n11 = min(w_row(g1, 3u, 8u), last);
  let n12 = min(w_row(g1, 4u, 8u), last);
  let n13 = min(w_row(g1, 5u, 8u), last);
  let n14 = min(w_row(g1, 6u, 8u), last);
  let n15 = min(w_row(g1, 7u, 8u), last);
  let n16 = min(w_row(g2, 0u, 8u), last);
  let n17 = min(w_row(g2, 1u, 8u), last);
  let n18 = min(w_row(g2, 2u, 8u), last);
  let n19 = min(w_row(g2, 3u, 8u), last);
  let n20 = min(w_row(g2, 4u, 8u), last);
  let n21 = min(w_row(g2, 5u, 8u), last);
  let n22 = min(w_row(g2, 6u, 8u), last);
  let n23 = min(w_row(g2, 7u, 8u), last);
  let n24 = min(w_row(g3, 0u, 8u), last);
  let n25 = min(w_row(g3, 1u, 8u), last);
  let n26 = min(w_row(g3, 2u, 8u), last);
  let n27 = min(w_row(g3, 3u, 8u), last);
  let n28 = min(w_row(g3, 4u, 8u), last);
  let n29 = min(w_row(g3, 5u, 8u), last);
  let n30 = min(w_row(g3, 6u, 8u), last);
  let n31 = min(w_row(g3, 7u, 8u), last);
  let n32 = min(w_row(g4, 0u, 8u), last);
  let n33 = min(w_row(g4, 1u, 8u), last);
  let n34 = min(w_row(g4, 2u, 8u), last);
  let n35 = min(w_row(g4, 3u, 8u), last);
  let n36 = min(w_row(g4, 4u, 8u), last);
  let n37 = min(w_row(g4, 5u, 8u), last);
  let n38 = min(w_row(g4, 6u, 8u), last);
  let n39 = min(w_row(g4, 7u, 8u), last);
  let n40 = min(w_row(g5, 0u, 8u), last);
  let n41 = min(w_row(g5, 1u, 8u), last);
  let n42 = min(w_row(g5, 2u, 8u), last);
  let n43 = min(w_row(g5, 3u, 8u), last);
  let n44 = min(w_row(g5, 4u, 8u), last);
  let n45 = min(w_row(g5, 5u, 8u), last);
  let n46 = min(w_row(g5, 6u, 8u), last);
  let n47 = min(w_row(g5, 7u, 8u), last);
  let n48 = min(w_row(g6, 0u, 8u), last);
  let n49 = min(w_row(g6, 1u, 8u), last);
  let n50 = min(w_row(g6, 2u, 8u), last);
  let n51 = min(w_row(g6, 3u, 8u), last);
  let n52 = min(w_row(g6, 4u, 8u), last);
  let n53 = min(w_row(g6, 5u, 8u), last);
  let n54 = min(w_row(g6, 6u, 8u), last);
  let n55 = min(w_row(g6, 7u, 8u), last);
  let n56 = min(w_row(g7, 0u, 8u), last);
  let n57 = min(w_row(g7, 1u, 8u), last);
  let n58 = min(w_row(g7, 2u, 8u), last);
  let n59 = min(w_row(g7, 3u, 8u), last);
  let n60 = min(w_row(g7, 4u, 8u), last);
  let n61 = min(w_row(g7, 5u, 8u), last);
  let n62 = min(w_row(g7, 6u, 8u), last);
  let n63 = min(w_row(g7, 7u, 8u), last);
  var a0a = vec4<f32>(); var a0b = vec4<f32>(); var a0c = vec4<f32>(); var a0d = vec4<f32>(); var a0e = vec4<f32>(); var a0f = vec4<f32>(); var a0g = vec4<f32>(); var a0h = vec4<f32>(); var a0i = vec4<f32>(); var a0j = vec4<f32>(); var a0k = vec4<f32>(); var a0l = vec4<f32>(); var a0m = vec4<f32>(); var a0n = vec4<f32>(); var a0o = vec4<f32>(); var a0p = vec4<f32>();
  var a1a = vec4<f32>(); var a1b = vec4<f32>(); var a1c = vec4<f32>(); var a1d = vec4<f32>(); var a1e = vec4<f32>(); var a1f = vec4<f32>(); var a1g = vec4<f32>(); var a1h = vec4<f32>(); var a1i = vec4<f32>(); var a1j = vec4<f32>(); var a1k = vec4<f32>(); var a1l = vec4<f32>(); var a1m = vec4<f32>(); var a1n = vec4<f32>(); var a1o = vec4<f32>(); var a1p = vec4<f32>();
  var a2a = vec4<f32>(); var a2b = vec4<f32>(); var a2c = vec4<f32>(); var a2d = vec4<f32>(); var a2e = vec4<f32>(); var a2f = vec4<f32>(); var a2g = vec4<f32>(); var a2h = vec4<f32>(); var a2i = vec4<f32>(); var a2j = vec4<f32>(); var a2k = vec4<f32>(); var a2l = vec4<f32>(); var a2m = vec4<f32>(); var a2n = vec4<f32>(); var a2o = vec4<f32>(); var a2p = vec4<f32>();
  var a3a = vec4<f32>(); var a3b = vec4<f32>(); var a3c = vec4<f32>(); var a3d = vec4<f32>(); var a3e = vec4<f32>(); var a3f = vec4<f32>(); var a3g = vec4<f32>(); var a3h = vec4<f32>(); var a3i = vec4<f32>(); var a3j = vec4<f32>(); var a3k = vec4<f32>(); var a3l = vec4<f32>(); var a3m = vec4<f32>(); var a3n = vec4<f32>(); var a3o = vec4<f32>(); var a3p = vec4<f32>();
  var a4a = vec4<f32>(); var a4b = vec4<f32>(); var a4c = vec4<f32>(); var a4d = vec4<f32>(); var a4e = vec4<f32>(); var a4f = vec4<f32>(); var a4g = vec4<f32>(); var a4h = vec4<f32>(); var a4i = vec4<f32>(); var a4j = vec4<f32>(); var a4k = vec4<f32>(); var a4l = vec4<f32>(); var a4m = vec4<f32>(); var a4n = vec4<f32>(); var a4o = vec4<f32>(); var a4p = vec4<f32>();
  var a5a = vec4<f32>(); var a5b = vec4<f32>(); var a5c = vec4<f32>(); var a5d = vec4<f32>(); var a5e = vec4<f32>(); var a5f = vec4<f32>(); var a5g = vec4<f32>(); var a5h = vec4<f32>(); var a5i = vec4<f32>(); var a5j = vec4<f32>(); var a5k = vec4<f32>(); var a5l = vec4<f32>(); var a5m = vec4<f32>(); var a5n = vec4<f32>(); var a5o = vec4<f32>(); var a5p = vec4<f32>();
  var a6a = vec4<f32>(); var a6b = vec4<f32>(); var a6c = vec4<f32>(); var a6d = vec4<f32>(); var a6e = vec4<f32>(); var a6f = vec4<f32>(); var a6g = vec4<f32>(); var a6h = vec4<f32>(); var a6i = vec4<f32>(); var a6j = vec4<f32>(); var a6k = vec4<f32>(); var a6l = vec4<f32>(); var a6m = vec4<f32>(); var a6n = vec4<f32>(); var a6o = vec4<f32>(); var a6p = vec4<f32>();
  var a7a = vec4<f32>(); var a7b = vec4<f32>(); var a7c = vec4<f32>(); var a7d = vec4<f32>(); var a7e = vec4<f32>(); var a7f = vec4<f32>(); var a7g = vec4<f32>(); var a7h = vec4<f32>(); var a7i = vec4<f32>(); var a7j = vec4<f32>(); var a7k = vec4<f32>(); var a7l = vec4<f32>(); var a7m = vec4<f32>(); var a7n = vec4<f32>(); var a7o = vec4<f32>(); var a7p = vec4<f32>();
  for (var kb = 0u; kb < KB; kb++) {
    var p0a = vec4<f32>(); var p0b = vec4<f32>(); var p0c = vec4<f32>(); var p0d = vec4<f32>(); var p0e = vec4<f32>(); var p0f = vec4<f32>(); var p0g = vec4<f32>(); var p0h = vec4<f32>(); var p0i = vec4<f32>(); var p0j = vec4<f32>(); var p0k = vec4<f32>(); var p0l = vec4<f32>(); var p0m = vec4<f32>(); var p0n = vec4<f32>(); var p0o = vec4<f32>(); var p0p = vec4<f32>();
    var p1a = vec4<f32>(); var p1b = vec4<f32>(); var p1c = vec4<f32>(); var p1d = vec4<f32>(); var p1e = vec4<f32>(); var p1f = vec4<f32>(); var p1g = vec4<f32>(); var p1h = vec4<f32>(); var p1i = vec4<f32>(); var p1j = vec4<f32>(); var p1k = vec4<f32>(); var p1l = vec4<f32>(); var p1m = vec4<f32>(); var p1n = vec4<f32>(); var p1o = vec4<f32>(); var p1p = vec4<f32>();
    var p2a = vec4<f32>(); var p2b = vec4<f32>(); var p2c = vec4<f32>(); var p2d = vec4<f32>(); var p2e = vec4<f32>(); var p2f = vec4<f32>(); var p2g = vec4<f32>(); var p2h = vec4<f32>(); var p2i = vec4<f32>(); var p2j = vec4<f32>(); var p2k = vec4<f32>(); var p2l = vec4<f32>(); var p2m = vec4<f32>(); var p2n = vec4<f32>(); var p2o = vec4<f32>(); var p2p = vec4<f32>();
    var p3a = vec4<f32>(); var p3b = vec4<f32>(); var p3c = vec4<f32>(); var p3d = vec4<f32>(); var p3e = vec4<f32>(); var p3f = vec4<f32>(); var p3g = vec4<f32>(); var p3h = vec4<f32>(); var p3i = vec4<f32>(); var p3j = vec4<f32>(); var p3k = vec4<f32>(); var p3l = vec4<f32>(); var p3m = vec4<f32>(); var p3n = vec4<f32>(); var p3o = vec4<f32>(); var p3p = vec4<f32>();
    var p4a = vec4<f32>(); var p4b = vec4<f32>(); var p4c = vec4<f32>(); var p4d = vec4<f32>(); var p4e = vec4<f32>(); var p4f = vec4<f32>(); var p4g = vec4<f32>(); var p4h = vec4<f32>(); var p4i = vec4<f32>(); var p4j = vec4<f32>(); var p4k = vec4<f32>(); var p4l = vec4<f32>(); var p4m = vec4<f32>(); var p4n = vec4<f32>(); var p4o = vec4<f32>(); var p4p = vec4<f32>();
    var p5a = vec4<f32>(); var p5b = vec4<f32>(); var p5c = vec4<f32>(); var p5d = vec4<f32>(); var p5e = vec4<f32>(); var p5f = vec4<f32>(); var p5g = vec4<f32>(); var p5h = vec4<f32>(); var p5i = vec4<f32>(); var p5j = vec4<f32>(); var p5k = vec4<f32>(); var p5l = vec4<f32>(); var p5m = vec4<f32>(); var p5n = vec4<f32>(); var p5o = vec4<f32>(); var p5p = vec4<f32>();
    var p6a = vec4<f32>(); var p6b = vec4<f32>(); var p6c = vec4<f32>(); var p6d = vec4<f32>(); var p6e = vec4<f32>(); var p6f = vec4<f32>(); var p6g = vec4<f32>(); var p6h = vec4<f32>(); var p6i = vec4<f32>(); var p6j = vec4<f32>(); var p6k = vec4<f32>(); var p6l = vec4<f32>(); var p6m = vec4<f32>(); var p6n = vec4<f32>(); var p6o = vec4<f32>(); var p6p = vec4<f32>();
    var p7a = vec4<f32>(); var p7b = vec4<f32>(); var p7c = vec4<f32>(); var p7d = vec4<f32>(); var p7e = vec4<f32>(); var p7f = vec4<f32>(); var p7g = vec4<f32>(); var p7h = vec4<f32>(); var p7i = vec4<f32>(); var p7j = vec4<f32>(); var p7k = vec4<f32>(); var p7l = vec4<f32>(); var p7m = vec4<f32>(); var p7n = vec4<f32>(); var p7o = vec4<f32>(); var p7p = vec4<f32>();
    for (var w = 0u; w < 8u; w++) {
      let kw = kb * 8u + w;
      let q0 = Wq[n0 * K8 + kw]; let q1 = Wq[n1 * K8 + kw]; let q2 = Wq[n2 * K8 + kw]; let q3 = Wq[n3 * K8 + kw];
      let q4 = Wq[n4 * K8 + kw]; let q5 = Wq[n5 * K8 + kw]; let q6 = Wq[n6 * K8 + kw]; let q7 = Wq[n7 * K8 + kw];
      let q8 = Wq[n8 * K8 + kw]; let q9 = Wq[n9 * K8 + kw]; let q10 = Wq[n10 * K8 + kw]; let q11 = Wq[n11 * K8 + kw];
      let q12 = Wq[n12 * K8 + kw]; let q13 = Wq[n13 * K8 + kw]; let q14 = Wq[n14 * K8 + kw]; let q15 = Wq[n15 * K8 + kw];
      let q16 = Wq[n16 * K8 + kw]; let q17 = Wq[n17 * K8 + kw]; let q18 = Wq[n18 * K8 + kw]; let q19 = Wq[n19 * K8 + kw];
      let q20 = Wq[n20 * K8 + kw]; let q21 = Wq[n21 * K8 + kw]; let q22 = Wq[n22 * K8 + kw]; let q23 = Wq[n23 * K8 + kw];
      let q24 = Wq[n24 * K8 + kw]; let q25 = Wq[n25 * K8 + kw]; let q26 = Wq[n26 * K8 + kw]; let q27 = Wq[n27 * K8 + kw];
      let q28 = Wq[n28 * K8 + kw]; let q29 = Wq[n29 * K8 + kw]; let q30 = Wq[n30 * K8 + kw]; let q31 = Wq[n31 * K8 + kw];
      let q32 = Wq[n32 * K8 + kw]; let q33 = Wq[n33 * K8 + kw]; let q34 = Wq[n34 * K8 + kw]; let q35 = Wq[n35 * K8 + kw];
      let q36 = Wq[n36 * K8 + kw]; let q37 = Wq[n37 * K8 + kw]; let q38 = Wq[n38 * K8 + kw]; let q39 = Wq[n39 * K8 + kw];
      let q40 = Wq[n40 * K8 + kw]; let q41 = Wq[n41 * K8 + kw]; let q42 = Wq[n42 * K8 + kw]; let q43 = Wq[n43 * K8 + kw];
      let q44 = Wq[n44 * K8 + kw]; let q45 = Wq[n45 * K8 + kw]; let q46 = Wq[n46 * K8 + kw]; let q47 = Wq[n47 * K8 + kw];
      let q48 = Wq[n48 * K8 + kw]; let q49 = Wq[n49 * K8 + kw]; let q50 = Wq[n50 * K8 + kw]; let q51 = Wq[n51 * K8 + kw];
      let q52 = Wq[n52 * K8 + kw]; let q53 = Wq[n53 * K8 + kw]; let q54 = Wq[n54 * K8 + kw]; let q55 = Wq[n55 * K8 + kw];
      let q56 = Wq[n56 * K8 + kw]; let q57 = Wq[n57 * K8 + kw]; let q58 = Wq[n58 * K8 + kw]; let q59 = Wq[n59 * K8 + kw];
      let q60 = Wq[n60 * K8 + kw]; let q61 = Wq[n61 * K8 + kw]; let q62 = Wq[n62 * K8 + kw]; let q63 = Wq[n63 * K8 + kw];
      let la = transpose(mat4x4<f32>(pairs_lo(q0), pairs_lo(q1), pairs_lo(q2), pairs_lo(q3)));
      let ha = transpose(mat4x4<f32>(pairs_hi(q0), pairs_hi(q1), pairs_hi(q2), pairs_hi(q3)));
      let lb = transpose(mat4x4<f32>(pairs_lo(q4), pairs_lo(q5), pairs_lo(q6), pairs_lo(q7)));
      let hb = transpose(mat4x4<f32>(pairs_hi(q4), pairs_hi(q5), pairs_hi(q6), pairs_hi(q7)));
      let lc = transpose(mat4x4<f32>(pairs_lo(q8), pairs_lo(q9), pairs_lo(q10), pairs_lo(q11)));
      let hc = transpose(mat4x4<f32>(pairs_hi(q8), pairs_hi(q9), pairs_hi(q10), pairs_hi(q11)));
      let ld = transpose(mat4x4<f32>(pairs_lo(q12), pairs_lo(q13), pairs_lo(q14), pairs_lo(q15)));
      let hd = transpose(mat4x4<f32>(pairs_hi(q12), pairs_hi(q13), pairs_hi(q14), pairs_hi(q15)));
      let le = transpose(mat4x4<f32>(pairs_lo(q16), pairs_lo(q17), pairs_lo(q18), pairs_lo(q19)));
      let he = transpose(mat4x4<f32>(pairs_hi(q16), pairs_hi(q17), pairs_hi(q18), pairs_hi(q19)));
      let lf = transpose(mat4x4<f32>(pairs_lo(q20), pairs_lo(q21), pairs_lo(q22), pairs_lo(q23)));
      let hf = transpose(mat4x4<f32>(pairs_hi(q20), pairs_hi(q21), pairs_hi(q22), pairs_hi(q23)));
      let lg = transpose(mat4x4<f32>(pairs_lo(q24), pairs_lo(q25), pairs_lo(q26), pairs_lo(q27)));
      let hg = transpose(mat4x4<f32>(pairs_hi(q24), pairs_hi(q25), pairs_hi(q26), pairs_hi(q27)));
      let lh = transpose(mat4x4<f32>(pairs_lo(q28), pairs_lo(q29), pairs_lo(q30), pairs_lo(q31)));
      let hh = transpose(mat4x4<f32>(pairs_hi(q28), pairs_hi(q29), pairs_hi(q30), pairs_hi(q31)));
      let li = transpose(mat4x4<f32>(pairs_lo(q32), pairs_lo(q33), pairs_lo(q34), pairs_lo(q35)));
      let hi = transpose(mat4x4<f32>(pairs_hi(q32), pairs_hi(q33), pairs_hi(q34), pairs_hi(q35)));
      let lj = transpose(mat4x4<f32>(pairs_lo(q36), pairs_lo(q37), pairs_lo(q38), pairs_lo(q39)));
      let hj = transpose(mat4x4<f32>(pairs_hi(q36), pairs_hi(q37), pairs_hi(q38), pairs_hi(q39)));
      let lk = transpose(mat4x4<f32>(pairs_lo(q40), pairs_lo(q41), pairs_lo(q42), pairs_lo(q43)));
      let hk = transpose(mat4x4<f32>(pairs_hi(q40), pairs_hi(q41), pairs_hi(q42), pairs_hi(q43)));
      let ll = transpose(mat4x4<f32>(pairs_lo(q44), pairs_lo(q45), pairs_lo(q46), pairs_lo(q47)));
      let hl = transpose(mat4x4<f32>(pairs_hi(q44), pairs_hi(q45), pairs_hi(q46), pairs_hi(q47)));
      let lm = transpose(mat4x4<f32>(pairs_lo(q48), pairs_lo(q49), pairs_lo(q50), pairs_lo(q51)));
      let hm = transpose(mat4x4<f32>(pairs_hi(q48), pairs_hi(q49), pairs_hi(q50), pairs_hi(q51)));
      let ln = transpose(mat4x4<f32>(pairs_lo(q52), pairs_lo(q53), pairs_lo(q54), pairs_lo(q55)));
      let hn = transpose(mat4x4<f32>(pairs_hi(q52), pairs_hi(q53), pairs_hi(q54), pairs_hi(q55)));
      let lo = transpose(mat4x4<f32>(pairs_lo(q56), pairs_lo(q57), pairs_lo(q58), pairs_lo(q59)));
      let ho = transpose(mat4x4<f32>(pairs_hi(q56), pairs_hi(q57), pairs_hi(q58), pairs_hi(q59)));
      let lp = transpose(mat4x4<f32>(pairs_lo(q60), pairs_lo(q61), pairs_lo(q62), pairs_lo(q63)));
      let hp = transpose(mat4x4<f32>(pairs_hi(q60), pairs_hi(q61), pairs_hi(q62), pairs_hi(q63)));
      let k = 2u * kw;
      { let u = X[x0 + k]; let v = X[x0 + k + 1u]; p0a += la * u + ha * v; p0b += lb * u + hb * v; p0c += lc * u + hc * v; p0d += ld * u + hd * v; p0e += le * u + he * v; p0f += lf * u + hf * v; p0g += lg * u + hg * v; p0h += lh * u + hh * v; p0i += li * u + hi * v; p0j += lj * u + hj * v; p0k += lk * u + hk * v; p0l += ll * u + hl * v; p0m += lm * u + hm * v; p0n += ln * u + hn * v; p0o += lo * u + ho * v; p0p += lp * u + hp * v; }
      if (MR > 1u) { { let u = X[x1 + k]; let v = X[x1 + k + 1u]; p1a += la * u + ha * v; p1b += lb * u + hb * v; p1c += lc * u + hc * v; p1d += ld * u + hd * v; p1e += le * u + he * v; p1f += lf * u + hf * v; p1g += lg * u + hg * v; p1h += lh * u + hh * v; p1i += li * u + hi * v; p1j += lj * u + hj * v; p1k += lk * u + hk * v; p1l += ll * u + hl * v; p1m += lm * u + hm * v; p1n += ln * u + hn * v; p1o += lo * u + ho * v; p1p += lp * u + hp * v; } }
      if (MR > 2u) { { let u = X[x2 + k]; let v = X[x2 + k + 1u]; p2a += la * u + ha * v; p2b += lb * u + hb * v; p2c += lc * u + hc * v; p2d += ld * u + hd * v; p2e += le * u + he * v; p2f += lf * u + hf * v; p2g += lg * u + hg * v; p2h += lh * u + hh * v; p2i += li * u + hi * v; p2j += lj * u + hj * v; p2k += lk * u + hk * v; p2l += ll * u + hl * v; p2m += lm * u + hm * v; p2n += ln * u + hn * v; p2o += lo * u + ho * v; p2p += lp * u + hp * v; } { let u = X[x3 + k]; let v = X[x3 + k + 1u]; p3a += la * u + ha * v; p3b += lb * u + hb * v; p3c += lc * u + hc * v; p3d += ld * u + hd * v; p3e += le * u + he * v; p3f += lf * u + hf * v; p3g += lg * u + hg * v; p3h += lh * u + hh * v; p3i += li * u + hi * v; p3j += lj * u + hj * v; p3k += lk * u + hk * v; p3l += ll * u + hl * v; p3m += lm * u + hm * v; p3n += ln * u + hn * v; p3o += lo * u + ho * v; p3p += lp * u + hp * v; } }
      if (MR > 4u) { { let u = X[x4 + k]; let v = X[x4 + k + 1u]; p4a += la * u + ha * v; p4b += lb * u + hb * v; p4c += lc * u + hc * v; p4d += ld * u + hd * v; p4e += le * u + he * v; p4f += lf * u + hf * v; p4g += lg * u + hg * v; p4h += lh * u + hh * v; p4i += li * u + hi * v; p4j += lj * u + hj * v; p4k += lk * u + hk * v; p4l += ll * u + hl * v; p4m += lm * u + hm * v; p4n += ln * u + hn * v; p4o += lo * u + ho * v; p4p += lp * u + hp * v; } { let u = X[x5 + k]; let v = X[x5 + k + 1u]; p5a += la * u + ha * v; p5b += lb * u + hb * v; p5c += lc * u + hc * v; p5d += ld * u + hd * v; p5e += le * u + he * v; p5f += lf * u + hf * v; p5g += lg * u + hg * v; p5h += lh * u + hh * v; p5i += li * u + hi * v; p5j += lj * u + hj * v; p5k += lk * u + hk * v; p5l += ll * u + hl * v; p5m += lm * u + hm * v; p5n += ln * u + hn * v; p5o += lo * u + ho * v; p5p += lp * u + hp * v; } { let u = X[x6 + k]; let v = X[x6 + k + 1u]; p6a += la * u + ha * v; p6b += lb * u + hb * v; p6c += lc * u + hc * v; p6d += ld * u + hd * v; p6e += le * u + he * v; p6f += lf * u + hf * v; p6g += lg * u + hg * v; p6h += lh * u + hh * v; p6i += li * u + hi * v; p6j += lj * u + hj * v; p6k += lk * u + hk * v; p6l += ll * u + hl * v; p6m += lm * u + hm * v; p6n += ln * u + hn * v; p6o += lo * u + ho * v; p6p += lp * u + hp * v; } { let u = X[x7 + k]; let v = X[x7 + k + 1u]; p7a += la * u + ha * v; p7b += lb * u + hb * v; p7c += lc * u + hc * v; p7d += ld * u + hd * v; p7e += le * u + he * v; p7f += lf * u + hf * v; p7g += lg * u + hg * v; p7h += lh * u + hh * v; p7i += li * u + hi * v; p7j += lj * u + hj * v; p7k += lk * u + hk * v; p7l += ll * u + hl * v; p7m += lm * u + hm * v; p7n += ln * u + hn * v; p7o += lo * u + ho * v; p7p += lp * u + hp * v; } }
    }
    let sa = vec4<f32>(absmax[n0 * KB + kb], absmax[n1 * KB + kb], absmax[n2 * KB + kb], absmax[n3 * KB + kb]);
    let sb = vec4<f32>(absmax[n4 * KB + kb], absmax[n5 * KB + kb], absmax[n6 * KB + kb], absmax[n7 * KB + kb]);
    let sc = vec4<f32>(absmax[n8 * KB + kb], absmax[n9 * KB + kb], absmax[n10 * KB + kb], absmax[n11 * KB + kb]);
    let sd = vec4<f32>(absmax[n12 * KB + kb], absmax[n13 * KB + kb], absmax[n14 * KB + kb], absmax[n15 * KB + kb]);
    let se = vec4<f32>(absmax[n16 * KB + kb], absmax[n17 * KB + kb], absmax[n18 * KB + kb], absmax[n19 * KB + kb]);
    let sf = vec4<f32>(absmax[n20 * KB + kb], absmax[n21 * KB + kb], absmax[n22 * KB + kb], absmax[n23 * KB + kb]);
    let sg = vec4<f32>(absmax[n24 * KB + kb], absmax[n25 * KB + kb], absmax[n26 * KB + kb], absmax[n27 * KB + kb]);
    let sh = vec4<f32>(absmax[n28 * KB + kb], absmax[n29 * KB + kb], absmax[n30 * KB + kb], absmax[n31 * KB + kb]);
    let si = vec4<f32>(absmax[n32 * KB + kb], absmax[n33 * KB + kb], absmax[n34 * KB + kb], absmax[n35 * KB + kb]);
    let sj = vec4<f32>(absmax[n36 * KB + kb], absmax[n37 * KB + kb], absmax[n38 * KB + kb], absmax[n39 * KB + kb]);
    let sk = vec4<f32>(absmax[n40 * KB + kb], absmax[n41 * KB + kb], absmax[n42 * KB + kb], absmax[n43 * KB + kb]);
    let sl = vec4<f32>(absmax[n44 * KB + kb], absmax[n45 * KB + kb], absmax[n46 * KB + kb], absmax[n47 * KB + kb]);
    let sm = vec4<f32>(absmax[n48 * KB + kb], absmax[n49 * KB + kb], absmax[n50 * KB + kb], absmax[n51 * KB + kb]);
    let sn = vec4<f32>(absmax[n52 * KB + kb], absmax[n53 * KB + kb], absmax[n54 * KB + kb], absmax[n55 * KB + kb]);
    let so = vec4<f32>(absmax[n56 * KB + kb], absmax[n57 * KB + kb], absmax[n58 * KB + kb], absmax[n59 * KB + kb]);
    let sp = vec4<f32>(absmax[n60 * KB + kb], absmax[n61 * KB + kb], absmax[n62 * KB + kb], absmax[n63 * KB + kb]);
    a0a += p0a * sa; a0b += p0b * sb; a0c += p0c * sc; a0d += p0d * sd; a0e += p0e * se; a0f += p0f * sf; a0g += p0g * sg; a0h += p0h * sh; a0i += p0i * si; a0j += p0j * sj; a0k += p0k * sk; a0l += p0l * sl; a0m += p0m * sm; a0n += p0n * sn; a0o += p0o * so; a0p += p0p * sp;
    if (MR > 1u) { a1a += p1a * sa; a1b += p1b * sb; a1c += p1c * sc; a1d += p1d * sd; a1e += p1e * se; a1f += p1f * sf; a1g += p1g * sg; a1h += p1h * sh; a1i += p1i * si; a1j += p1j * sj; a1k += p1k * sk; a1l += p1l * sl; a1m += p1m * sm; a1n += p1n * sn; a1o += p1o * so; a1p += p1p * sp; }
    if (MR > 2u) { a2a += p2a * sa; a2b += p2b * sb; a2c += p2c * sc; a2d += p2d * sd; a2e += p2e * se; a2f += p2f * sf; a2g += p2g * sg; a2h += p2h * sh; a2i += p2i * si; a2j += p2j * sj; a2k += p2k * sk; a2l += p2l * sl; a2m += p2m * sm; a2n += p2n * sn; a2o += p2o * so; a2p += p2p * sp; a3a += p3a * sa; a3b += p3b * sb; a3c += p3c * sc; a3d += p3d * sd; a3e += p3e * se; a3f += p3f * sf; a3g += p3g * sg; a3h += p3h * sh; a3i += p3i * si; a3j += p3j * sj; a3k += p3k * sk; a3l += p3l * sl; a3m += p3m * sm; a3n += p3n * sn; a3o += p3o * so; a3p += p3p * sp; }
    if (MR > 4u) { a4a += p4a * sa; a4b += p4b * sb; a4c += p4c * sc; a4d += p4d * sd; a4e += p4e * se; a4f += p4f * sf; a4g += p4g * sg; a4h += p4h * sh; a4i += p4i * si; a4j += p4j * sj; a4k += p4k * sk; a4l += p4l * sl; a4m += p4m * sm; a4n += p4n * sn; a4o += p4o * so; a4p += p4p * sp; a5a += p5a * sa; a5b += p5b * sb; a5c += p5c * sc; a5d += p5d * sd; a5e += p5e * se; a5f += p5f * sf; a5g += p5g * sg; a5h += p5h * sh; a5i += p5i * si; a5j += p5j * sj; a5k += p5k * sk; a5l += p5l * sl; a5m += p5m * sm; a5n += p5n * sn; a5o += p5o * so; a5p += p5p * sp; a6a += p6a * sa; a6b += p6b * sb; a6c += p6c * sc; a6d += p6d * sd; a6e += p6e * se; a6f += p6f * sf; a6g += p6g * sg; a6h += p6h * sh; a6i += p6i * si; a6j += p6j * sj; a6k += p6k * sk; a6l += p6l * sl; a6m += p6m * sm; a6n += p6n * sn; a6o += p6o * so; a6p += p6p * sp; a7a += p7a * sa; a7b += p7b * sb; a7c += p7c * sc; a7d += p7d * sd; a7e += p7e * se; a7f += p7f * sf; a7g += p7g * sg; a7h += p7h * sh; a7i += p7i * si; a7j += p7j * sj; a7k += p7k * sk; a7l += p7l * sl; a7m += p7m * sm; a7n += p7n * sn; a7o += p7o * so; a7p += p7p * sp; }
  }
  // Each column group's 8 x 8 tile through one epilogue in a loop, the group picked by a switch.
  for (var c = 0u; c < 8u; c++) {
    let g = g0 + c;
    if (out_col(g, 0u, 8u) >= p.N) { break; }
    var t: Tile8;
    switch c {
      case 0u: { t = Tile8(a0a, a0b, a1a, a1b, a2a, a2b, a3a, a3b, a4a, a4b, a5a, a5b, a6a, a6b, a7a, a7b); }
      case 1u: { t = Tile8(a0c, a0d, a1c, a1d, a2c, a2d, a3c, a3d, a4c, a4d, a5c, a5d, a6c, a6d, a7c, a7d); }
      case 2u: { t = Tile8(a0e, a0f, a1e, a1f, a2e, a2f, a3e, a3f, a4e, a4f, a5e, a5f, a6e, a6f, a7e, a7f); }
      case 3u: { t = Tile8(a0g, a0h, a1g, a1h, a2g, a2h, a3g, a3h, a4g, a4h, a5g, a5h, a6g, a6h, a7g, a7h); }
      case 4u: { t = Tile8(a0i, a0j, a1i, a1j, a2i, a2j, a3i, a3j, a4i, a4j, a5i, a5j, a6i, a6j, a7i, a7j); }
      case 5u: { t = Tile8(a0k, a0l, a1k, a1l, a2k, a2l, a3k, a3l, a4k, a4l, a5k, a5l, a6k, a6l, a7k, a7l); }
      case 6u: { t = Tile8(a0m, a0n, a1m, a1n, a2m, a2n, a3m, a3n, a4m, a4n, a5m, a5n, a6m, a6n, a7m, a7n); }
      default: { t = Tile8(a0o, a0p, a1o, a1p, a2o, a2p, a3o, a3p, a4o, a4p, a5o, a5p, a6o, a6p, a7o, a7p); }
    }
    // The LM head fused with sampling: partials instead of logits (linear_sample.wgsl).
    if (SAMPLE) { sample_tile8(row0, g, t); continue; }
    if (store_tile8(row0, g, t)) { continue; }
    let acc = array<vec4<f32>, 16>(t.a0l, t.a0h, t.a1l, t.a1h, t.a2l, t.a2h, t.a3l, t.a3h, t.a4l, t.a4h, t.a5l, t.a5h, t.a6l, t.a6h, t.a7l, t.a7h);
    let oc = out_cols(8u);
    for (var i = 0u; i < MR; i++) {
      let r = row0 + i;
      if (r >= p.M) { break; }
      let lo = acc[2u * i];
      let hi = acc[2u * i + 1u];
      let v = array<f32, 8>(lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w);
      for (var j = 0u; j < oc; j++) { store(r, g, j, 8u, v[j], v[(j + oc) % 8u]); }
    }
  }
}
// ---- generated by scripts/gen-nf4-tiles.ts: end ----

// ---- small M (decode) ----------------------------------------------------------------------
// Workgroup (WG_X, WG_Y): WG_Y virtual columns; the WG_X invocations of a column split its K
// words and reduce through workgroup memory. M <= 8. WG_X must be a power of two.
const MAXM: u32 = 8u;
var<workgroup> red: array<f32, MAXM * WG_X * WG_Y>;

@compute @workgroup_size(WG_X, WG_Y)
fn nf4_gemv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let g = wid.x;
  let n = min(w_row(g, lid.y, WG_Y), nw() - 1u);
  var acc: array<f32, MAXM>;
  for (var kw = lid.x; kw < K8; kw += WG_X) {
    let q = Wq[n * K8 + kw];
    let s = absmax[n * KB + kw / 8u];
    let w0 = unpack_lo(q) * s;
    let w1 = unpack_hi(q) * s;
    for (var m = 0u; m < MAXM; m++) {
      if (m >= p.M) { break; }
      acc[m] += dot(X[m * K4 + 2u * kw], w0) + dot(X[m * K4 + 2u * kw + 1u], w1);
    }
  }
  let base = lid.y * WG_X + lid.x;
  for (var m = 0u; m < MAXM; m++) { red[m * WG_X * WG_Y + base] = acc[m]; }
  workgroupBarrier();
  for (var s = WG_X / 2u; s > 0u; s >>= 1u) {
    if (lid.x < s) {
      for (var m = 0u; m < MAXM; m++) {
        red[m * WG_X * WG_Y + base] += red[m * WG_X * WG_Y + base + s];
      }
    }
    workgroupBarrier();
  }
  // The LM head fused with sampling: partials instead of logits (linear_sample.wgsl).
  if (SAMPLE) { sample_gemv(lid, g); return; }
  // Invocation x of column y writes row x (so up to WG_X rows; the launcher keeps M <= 8).
  let oc = out_cols(WG_Y);
  if (lid.y < oc && lid.x < p.M) {
    let m = lid.x;
    let a = red[m * WG_X * WG_Y + lid.y * WG_X];
    let u = red[m * WG_X * WG_Y + ((lid.y + oc) % WG_Y) * WG_X];
    store(m, g, lid.y, WG_Y, a, u);
  }
}
