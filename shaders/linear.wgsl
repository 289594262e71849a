// Linear layer with f32 weights and a fused epilogue (bias, LoRA, accumulate, SwiGLU):
//   Y[M, N] (=|+=) X[M, K] . W[N, K]^T + bias[N] + scale * XA[M, R] . LB[N, R]^T
// M = rows (B*T tokens), K = in features (a multiple of 4), N = out features, R = LoRA rank.
// The NF4-weight sibling is shaders/matmul_nf4.wgsl: same Params, same epilogue, same flags and
// SWIGLU layout (read its header); the bindings here are the same without absmax.
// CPU twin: linear_forward + lora_forward (+ swiglu_forward) in src/reference. Launcher:
// src/gpu/kernels/linear.ts. Tested by tests/unit/gpu/linear-forward.test.ts.
// Write contract: Y is overwritten (=), or accumulated (+=) when flags bit 2 is set.
// Entry points: lin_rb (register-blocked, no workgroup memory), lin_rb8 (its 8 x 8 tile in named
// registers: CPU adapters), lin_rb16 (four such tiles, 16 x 16, per invocation; f32 only), lin_tiled
// (workgroup-memory tiles), lin_gemv (small M: K split across WG_X invocations per column, M <= 8),
// the dec variant (M <= 8 rows in one block; also a prefill candidate, blocks of 8) is lin_rb8
// compiled with MR = 1, 2, 4 or 8 rows.

struct Params {
  M: u32,
  N: u32,         // output columns (I when SWIGLU)
  K: u32,
  flags: u32,     // bit0 bias, bit1 LoRA, bit2 accumulate, bit3 (lin_rb16 without WHOLE) skip whole tiles;
                  // bit4 (lin_rb8 with SWIGLU_FLAG) SwiGLU; bits 8-15 (lin_rb8) invocations across the workgroup
  R: u32,         // LoRA rank; with SAMPLE the draw's row of X's row 0 (a step split into passes)
  xaStride: u32,  // columns of XA (segments * R)
  seg1: u32,      // first W row of LoRA segment 1
  seg2: u32,      // first W row of LoRA segment 2
  scale: f32,     // LoRA scale; 1 / temperature with SAMPLE (linear_sample.wgsl)
  seed: u32,      // SAMPLE only: the sampler's seed,
  step: u32,      //   its step counter
  greedy: u32,    //   and 1 for argmax
}

@group(0) @binding(0) var<storage, read> X: array<vec4<f32>>;     // [M, K/4]
@group(0) @binding(1) var<storage, read> W: array<vec4<f32>>;     // [NW, K/4]
@group(0) @binding(2) var<storage, read> bias: array<f32>;        // [NW] (unused unless bit 0)
@group(0) @binding(3) var<storage, read> XA: array<f32>;          // [M, xaStride] (unless bit 1)
@group(0) @binding(4) var<storage, read> LB: array<f32>;          // [NW, R] LoRA B (unless bit 1)
@group(0) @binding(5) var<storage, read_write> Y: array<f32>;     // [M, N]
@group(0) @binding(6) var<uniform> p: Params;

override WG_X: u32 = 8;
override WG_Y: u32 = 8;
override TM: u32 = 4;          // rows per invocation (rb, tiled), at most 8
override TN: u32 = 4;          // virtual columns per invocation (rb, tiled), at most 8, even
override SWIGLU: bool = false;
// lin_rb8: SwiGLU (or not) read at run time from flags bit 4, so one pipeline serves both kinds of
// layer (src/gpu/kernels/linear.ts runFlags, shapeOverrides); the other entries take SWIGLU at compile time.
override SWIGLU_FLAG: bool = false;
override MR: u32 = 8;          // rows per invocation of lin_rb8: 1, 2, 4 or 8 (compile-time)
override WHOLE: bool = false;   // lin_rb16 without LoRA, whole column groups: straight stores from the sums (else the quarters' epilogue)
// WHOLE pipelines: Y += the sums (o_proj, down_proj: the residual add) or Y = them, fixed per
// pipeline where flags bit 2 picks at run time elsewhere. SwiftShader runs both sides of an `if`,
// so a run-time choice cost every store a masked read-add-write as well (1.1x at K = 64).
override ACCUM: bool = false;

// ---- shared helpers (same as matmul_nf4.wgsl) ----------------------------------------------
fn swiglu() -> bool { return SWIGLU || (SWIGLU_FLAG && (p.flags & 16u) != 0u); }

fn out_cols(group: u32) -> u32 { return select(group, group / 2u, swiglu()); }

fn w_row(g: u32, j: u32, width: u32) -> u32 {
  if (!swiglu()) { return g * width + j; }
  let half = width / 2u;
  return g * half + (j % half) + select(0u, p.N, j >= half);
}

fn out_col(g: u32, j: u32, width: u32) -> u32 {
  if (!swiglu()) { return g * width + j; }
  return g * (width / 2u) + j;
}

fn nw() -> u32 { return select(p.N, 2u * p.N, swiglu()); }

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

fn store(r: u32, g: u32, j: u32, width: u32, a: f32, u: f32) {
  let c = out_col(g, j, width);
  if (c >= p.N) { return; }
  var v = epi(r, w_row(g, j, width), a);
  if (swiglu()) { v = silu(v) * epi(r, c + p.N, u); }
  let idx = r * p.N + c;
  if ((p.flags & 4u) != 0u) { Y[idx] += v; } else { Y[idx] = v; }
}

// store_tile8 and put8: storing a whole 8 x 8 register tile (shared with the other 8 x 8 kernel file).
// #include linear_tile
// #include linear_sample

// ---- register-blocked ---------------------------------------------------------------------
@compute @workgroup_size(WG_X, WG_Y)
fn lin_rb(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row0 = gid.y * TM;
  let g = gid.x;
  if (row0 >= p.M || out_col(g, 0u, TN) >= p.N) { return; }
  let K4 = p.K / 4u;
  let NWr = nw();
  var acc: array<array<f32, 8>, 8>;
  var xr: array<u32, 8>;
  var wr: array<u32, 8>;
  for (var i = 0u; i < TM; i++) { xr[i] = min(row0 + i, p.M - 1u) * K4; }
  for (var j = 0u; j < TN; j++) { wr[j] = min(w_row(g, j, TN), NWr - 1u) * K4; }
  for (var k = 0u; k < K4; k++) {
    var w: array<vec4<f32>, 8>;
    for (var j = 0u; j < TN; j++) { w[j] = W[wr[j] + k]; }
    for (var i = 0u; i < TM; i++) {
      let x = X[xr[i] + k];
      for (var j = 0u; j < TN; j++) { acc[i][j] += dot(x, w[j]); }
    }
  }
  let oc = out_cols(TN);
  for (var i = 0u; i < TM; i++) {
    let r = row0 + i;
    if (r >= p.M) { break; }
    for (var j = 0u; j < oc; j++) { store(r, g, j, TN, acc[i][j], acc[i][j + oc % TN]); }
  }
}

// ---- register-blocked 8 x 8, named registers ---------------------------------------------------
// The same tile as lin_rb with TM = TN = 8, but the 64 sums live in 16 named vec4 registers
// (row i: columns 0-3 in a{i}l, 4-7 in a{i}h) built as [w0 w1 w2 w3]^T x (a matrix-vector product):
// SwiftShader spills dynamically indexed private arrays such as lin_rb's acc to memory.
// The four W rows of a step are one transposed matrix, built once for every row of the tile, and
// each row's step is then a matrix-vector product. SwiftShader sums its terms in the same order
// as the vector-matrix product x . [w0 w1 w2 w3] it replaced (the outputs are the same bit for
// bit), with fewer instructions: lin_rb16 (f32) and nf4_dec16 ran 1.05x faster.
// MR (compile-time) rows per invocation: 8 for prefill; the dec variant (decode, M <= 8) compiles
// 1, 2, 4 and 8, so each weight is read once per step for all rows and the rows an invocation
// lacks cost nothing (their registers and loads are folded away).
// Four bias values from column n (zeros without a bias).
fn bias4(on: bool, n: u32) -> vec4<f32> {
  if (!on) { return vec4<f32>(); }
  return vec4<f32>(bias[n], bias[n + 1u], bias[n + 2u], bias[n + 3u]);
}

// Row r's 8 outputs from column c, for lin_rb16's WHOLE tiles, whose rows may pass M: those rows
// read X's last row (x_i clamped), so their sums are its sums bit for bit, and store its values
// again (= and the same values: no race in the one invocation), or add zeros (+=, ACCUM).
fn put8_row(r: u32, c: u32, lo: vec4<f32>, hi: vec4<f32>) {
  let i = min(r, p.M - 1u) * p.N + c;
  let keep = r < p.M;
  if (ACCUM) { add8(i, select(vec4<f32>(), lo, keep), select(vec4<f32>(), hi, keep)); } else { set8(i, lo, hi); }
}

fn store8(r: u32, g: u32, lo: vec4<f32>, hi: vec4<f32>) {
  if (r >= p.M) { return; }
  // Plain output (no bias, LoRA or SwiGLU) and all 8 columns in range: no per-element epilogue.
  if (!swiglu() && (p.flags & 3u) == 0u && g * 8u + 8u <= p.N) {
    put8(r * p.N + g * 8u, lo, hi);
    return;
  }
  // SwiGLU without bias or LoRA, 4 output columns in range: gate (lo) and up (hi) as vectors.
  if (swiglu() && (p.flags & 3u) == 0u && g * 4u + 4u <= p.N) {
    let v = lo / (vec4<f32>(1.0) + exp(-lo)) * hi;
    let i = r * p.N + g * 4u;
    if ((p.flags & 4u) != 0u) {
      Y[i] += v.x; Y[i + 1u] += v.y; Y[i + 2u] += v.z; Y[i + 3u] += v.w;
    } else {
      Y[i] = v.x; Y[i + 1u] = v.y; Y[i + 2u] = v.z; Y[i + 3u] = v.w;
    }
    return;
  }
  // One store() in a loop over the 8 columns (SwiGLU: 4 outputs, gate in lo, up in hi), not eight
  // inlined copies of the epilogue: a quarter of lin_rb8's SwiftShader compile time.
  let v = array<vec4<f32>, 2>(lo, hi);
  let oc = select(8u, 4u, swiglu());
  for (var j = 0u; j < oc; j++) { store(r, g, j, 8u, v[j / 4u][j % 4u], hi[j % 4u]); }
}

// The workgroup's layout comes from flags bits 8-15 (invocations across; 0: WG_X), so that one
// pipeline of 16 invocations serves every layout of at most 16 (src/gpu/kernels/linear.ts
// flatRb8, runFlags): each layout its own pipeline cost ~0.3 s of compile apiece on SwiftShader.
@compute @workgroup_size(WG_X, WG_Y)
fn lin_rb8(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let told = (p.flags >> 8u) & 255u;
  let across = select(WG_X, told, told != 0u);
  let down = (WG_X * WG_Y) / across;
  if (li / across >= down) { return; }
  let row0 = (wid.y * down + li / across) * MR;
  let g = wid.x * across + li % across;
  if (row0 >= p.M || out_col(g, 0u, 8u) >= p.N) { return; }
  let K4 = p.K / 4u;
  let last = nw() - 1u;
  let lastM = p.M - 1u;
  let x0 = min(row0, lastM) * K4;      let x1 = min(row0 + 1u, lastM) * K4;
  let x2 = min(row0 + 2u, lastM) * K4; let x3 = min(row0 + 3u, lastM) * K4;
  let x4 = min(row0 + 4u, lastM) * K4; let x5 = min(row0 + 5u, lastM) * K4;
  let x6 = min(row0 + 6u, lastM) * K4; let x7 = min(row0 + 7u, lastM) * K4;
  let r0 = min(w_row(g, 0u, 8u), last) * K4; let r1 = min(w_row(g, 1u, 8u), last) * K4;
  let r2 = min(w_row(g, 2u, 8u), last) * K4; let r3 = min(w_row(g, 3u, 8u), last) * K4;
  let r4 = min(w_row(g, 4u, 8u), last) * K4; let r5 = min(w_row(g, 5u, 8u), last) * K4;
  let r6 = min(w_row(g, 6u, 8u), last) * K4; let r7 = min(w_row(g, 7u, 8u), last) * K4;
  var a0l = vec4<f32>(); var a0h = vec4<f32>(); var a1l = vec4<f32>(); var a1h = vec4<f32>();
  var a2l = vec4<f32>(); var a2h = vec4<f32>(); var a3l = vec4<f32>(); var a3h = vec4<f32>();
  var a4l = vec4<f32>(); var a4h = vec4<f32>(); var a5l = vec4<f32>(); var a5h = vec4<f32>();
  var a6l = vec4<f32>(); var a6h = vec4<f32>(); var a7l = vec4<f32>(); var a7h = vec4<f32>();
  for (var k = 0u; k < K4; k++) {
    let wl = transpose(mat4x4<f32>(W[r0 + k], W[r1 + k], W[r2 + k], W[r3 + k]));
    let wh = transpose(mat4x4<f32>(W[r4 + k], W[r5 + k], W[r6 + k], W[r7 + k]));
    let y0 = X[x0 + k]; a0l += wl * y0; a0h += wh * y0;
    if (MR > 1u) { let y1 = X[x1 + k]; a1l += wl * y1; a1h += wh * y1; }
    if (MR > 2u) {
      let y2 = X[x2 + k]; a2l += wl * y2; a2h += wh * y2;
      let y3 = X[x3 + k]; a3l += wl * y3; a3h += wh * y3;
    }
    if (MR > 4u) {
      let y4 = X[x4 + k]; a4l += wl * y4; a4h += wh * y4;
      let y5 = X[x5 + k]; a5l += wl * y5; a5h += wh * y5;
      let y6 = X[x6 + k]; a6l += wl * y6; a6h += wh * y6;
      let y7 = X[x7 + k]; a7l += wl * y7; a7h += wh * y7;
    }
  }
  let tile = Tile8(a0l, a0h, a1l, a1h, a2l, a2h, a3l, a3h, a4l, a4h, a5l, a5h, a6l, a6h, a7l, a7h);
  // The LM head fused with sampling: partials instead of logits (linear_sample.wgsl).
  if (SAMPLE) { sample_tile8(row0, g, tile); return; }
  // Whole tiles in one go (linear_tile.wgsl); the rest through the per-element epilogue.
  if (store_tile8(row0, g, tile)) { return; }
  // One store8 in a loop, not eight inlined: the epilogue (bias, LoRA, SwiGLU) is large, and
  // eight copies made SwiftShader take seconds to compile this pipeline.
  let acc = array<vec4<f32>, 16>(a0l, a0h, a1l, a1h, a2l, a2h, a3l, a3h, a4l, a4h, a5l, a5h, a6l, a6h, a7l, a7h);
  for (var i = 0u; i < MR; i++) { store8(row0 + i, g, acc[2u * i], acc[2u * i + 1u]); }
}

// ---- register-blocked 16 x 16, named registers ---------------------------------------------
// Four 8 x 8 tiles of lin_rb8 in one invocation: rows row0 .. row0 + 15, column groups 2 gid.x and
// 2 gid.x + 1 (8 columns each; SwiGLU: 4 outputs each, as lin_rb8). 64 vec4 sums (a<row><q>, q =
// columns 4q .. 4q + 3) in named registers. On a CPU adapter every W read is a per-lane gather and
// every X read a broadcast, so twice the rows and columns per invocation halve the loads per
// multiply-add: 1.25-1.6x lin_rb8 at K = 896 and on 512^3 (tuned per shape class; at narrow outputs
// such as 128 x 64 the 8 x 8 tile keeps more invocations busy and wins).
@compute @workgroup_size(WG_X, WG_Y)
fn lin_rb16(@builtin(global_invocation_id) gid: vec3<u32>) {
  let row0 = gid.y * 16u;
  let g0 = 2u * gid.x;
  if (row0 >= p.M || out_col(g0, 0u, 8u) >= p.N) { return; }
  // Linear runs WHOLE, when LoRA is off and every tile's columns are in range, on every tile
  // (rows past M: put8_row), else the other pipeline alone.
  let K4 = p.K / 4u;
  let last = nw() - 1u;
  let lastM = p.M - 1u;
  let x0 = min(row0 + 0u, lastM) * K4; let x1 = min(row0 + 1u, lastM) * K4;
  let x2 = min(row0 + 2u, lastM) * K4; let x3 = min(row0 + 3u, lastM) * K4;
  let x4 = min(row0 + 4u, lastM) * K4; let x5 = min(row0 + 5u, lastM) * K4;
  let x6 = min(row0 + 6u, lastM) * K4; let x7 = min(row0 + 7u, lastM) * K4;
  let x8 = min(row0 + 8u, lastM) * K4; let x9 = min(row0 + 9u, lastM) * K4;
  let x10 = min(row0 + 10u, lastM) * K4; let x11 = min(row0 + 11u, lastM) * K4;
  let x12 = min(row0 + 12u, lastM) * K4; let x13 = min(row0 + 13u, lastM) * K4;
  let x14 = min(row0 + 14u, lastM) * K4; let x15 = min(row0 + 15u, lastM) * K4;
  let r0 = min(w_row(g0, 0u, 8u), last) * K4; let r1 = min(w_row(g0, 1u, 8u), last) * K4;
  let r2 = min(w_row(g0, 2u, 8u), last) * K4; let r3 = min(w_row(g0, 3u, 8u), last) * K4;
  let r4 = min(w_row(g0, 4u, 8u), last) * K4; let r5 = min(w_row(g0, 5u, 8u), last) * K4;
  let r6 = min(w_row(g0, 6u, 8u), last) * K4; let r7 = min(w_row(g0, 7u, 8u), last) * K4;
  let r8 = min(w_row(g0 + 1u, 0u, 8u), last) * K4; let r9 = min(w_row(g0 + 1u, 1u, 8u), last) * K4;
  let r10 = min(w_row(g0 + 1u, 2u, 8u), last) * K4; let r11 = min(w_row(g0 + 1u, 3u, 8u), last) * K4;
  let r12 = min(w_row(g0 + 1u, 4u, 8u), last) * K4; let r13 = min(w_row(g0 + 1u, 5u, 8u), last) * K4;
  let r14 = min(w_row(g0 + 1u, 6u, 8u), last) * K4; let r15 = min(w_row(g0 + 1u, 7u, 8u), last) * K4;
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
  for (var k = 0u; k < K4; k++) {
    let wa = transpose(mat4x4<f32>(W[r0 + k], W[r1 + k], W[r2 + k], W[r3 + k]));
    let wb = transpose(mat4x4<f32>(W[r4 + k], W[r5 + k], W[r6 + k], W[r7 + k]));
    let wc = transpose(mat4x4<f32>(W[r8 + k], W[r9 + k], W[r10 + k], W[r11 + k]));
    let wd = transpose(mat4x4<f32>(W[r12 + k], W[r13 + k], W[r14 + k], W[r15 + k]));
    { let y = X[x0 + k]; a0a += wa * y; a0b += wb * y; a0c += wc * y; a0d += wd * y; }
    { let y = X[x1 + k]; a1a += wa * y; a1b += wb * y; a1c += wc * y; a1d += wd * y; }
    { let y = X[x2 + k]; a2a += wa * y; a2b += wb * y; a2c += wc * y; a2d += wd * y; }
    { let y = X[x3 + k]; a3a += wa * y; a3b += wb * y; a3c += wc * y; a3d += wd * y; }
    { let y = X[x4 + k]; a4a += wa * y; a4b += wb * y; a4c += wc * y; a4d += wd * y; }
    { let y = X[x5 + k]; a5a += wa * y; a5b += wb * y; a5c += wc * y; a5d += wd * y; }
    { let y = X[x6 + k]; a6a += wa * y; a6b += wb * y; a6c += wc * y; a6d += wd * y; }
    { let y = X[x7 + k]; a7a += wa * y; a7b += wb * y; a7c += wc * y; a7d += wd * y; }
    { let y = X[x8 + k]; a8a += wa * y; a8b += wb * y; a8c += wc * y; a8d += wd * y; }
    { let y = X[x9 + k]; a9a += wa * y; a9b += wb * y; a9c += wc * y; a9d += wd * y; }
    { let y = X[x10 + k]; a10a += wa * y; a10b += wb * y; a10c += wc * y; a10d += wd * y; }
    { let y = X[x11 + k]; a11a += wa * y; a11b += wb * y; a11c += wc * y; a11d += wd * y; }
    { let y = X[x12 + k]; a12a += wa * y; a12b += wb * y; a12c += wc * y; a12d += wd * y; }
    { let y = X[x13 + k]; a13a += wa * y; a13b += wb * y; a13c += wc * y; a13d += wd * y; }
    { let y = X[x14 + k]; a14a += wa * y; a14b += wb * y; a14c += wc * y; a14d += wd * y; }
    { let y = X[x15 + k]; a15a += wa * y; a15b += wb * y; a15c += wc * y; a15d += wd * y; }
  }
  // Whole tiles: bias added and stored straight from the named sums. A kernel that also holds the
  // quarters' path below ran 1.3-1.4x slower at K = 64 even when every tile took this one, hence
  // two pipelines; and the paths in if / else: with the quarters merely after an `if (WHOLE)` that
  // returns, SwiftShader kept them and the whole-tile pipeline gained only half as much. The rows
  // are stored in a loop over an array of the sums: 32 inlined put8_row calls took SwiftShader
  // 1.9 s to compile (0.5 s as a loop); `bench matmul --model agent --m 1280` measured no
  // difference in speed (three alternating pairs, within +-5 %).
  if (WHOLE) {
    let hasBias = (p.flags & 1u) != 0u;
    let acc = array<vec4<f32>, 64>(a0a, a0b, a0c, a0d, a1a, a1b, a1c, a1d, a2a, a2b, a2c, a2d, a3a, a3b, a3c, a3d,
      a4a, a4b, a4c, a4d, a5a, a5b, a5c, a5d, a6a, a6b, a6c, a6d, a7a, a7b, a7c, a7d,
      a8a, a8b, a8c, a8d, a9a, a9b, a9c, a9d, a10a, a10b, a10c, a10d, a11a, a11b, a11c, a11d,
      a12a, a12b, a12c, a12d, a13a, a13b, a13c, a13d, a14a, a14b, a14c, a14d, a15a, a15b, a15c, a15d);
    if (swiglu()) {
      // Gate (a, c) and up (b, d) of output columns 4 g0 .. 4 g0 + 7; bias rows as w_row() counts them.
      let c0 = g0 * 4u;
      let ga = bias4(hasBias, c0); let ua = bias4(hasBias, p.N + c0);
      let gc = bias4(hasBias, c0 + 4u); let uc = bias4(hasBias, p.N + c0 + 4u);
      for (var i = 0u; i < 16u; i++) {
        put8_row(row0 + i, c0, swiglu4(acc[4u * i] + ga, acc[4u * i + 1u] + ua),
                 swiglu4(acc[4u * i + 2u] + gc, acc[4u * i + 3u] + uc));
      }
    } else {
      let c0 = g0 * 8u;
      let b0 = bias4(hasBias, c0); let b1 = bias4(hasBias, c0 + 4u);
      let b2 = bias4(hasBias, c0 + 8u); let b3 = bias4(hasBias, c0 + 12u);
      for (var i = 0u; i < 16u; i++) {
        put8_row(row0 + i, c0, acc[4u * i] + b0, acc[4u * i + 1u] + b1);
        put8_row(row0 + i, c0 + 8u, acc[4u * i + 2u] + b2, acc[4u * i + 3u] + b3);
      }
    }
    return;
  }
  if (!WHOLE) {
    // Whole 8 x 8 quarters straight from registers (linear_tile.wgsl); the others element-wise. The
    // quarter is picked by a switch, not from an array of the four tiles: SwiftShader spills a
    // dynamically indexed array to memory (64 vec4 out and back per invocation, 3-8 % of the kernel
    // at K = 64); four separate store_tile8 calls instead inline four epilogues and ran 3x slower.
    for (var q = 0u; q < 4u; q++) {
      let r = row0 + 8u * (q / 2u);
      let g = g0 + q % 2u;
      var t: Tile8;
      switch q {
        case 0u: { t = Tile8(a0a, a0b, a1a, a1b, a2a, a2b, a3a, a3b, a4a, a4b, a5a, a5b, a6a, a6b, a7a, a7b); }
        case 1u: { t = Tile8(a0c, a0d, a1c, a1d, a2c, a2d, a3c, a3d, a4c, a4d, a5c, a5d, a6c, a6d, a7c, a7d); }
        case 2u: { t = Tile8(a8a, a8b, a9a, a9b, a10a, a10b, a11a, a11b, a12a, a12b, a13a, a13b, a14a, a14b, a15a, a15b); }
        default: { t = Tile8(a8c, a8d, a9c, a9d, a10c, a10d, a11c, a11d, a12c, a12d, a13c, a13d, a14c, a14d, a15c, a15d); }
      }
      if (r >= p.M || out_col(g, 0u, 8u) >= p.N || store_tile8(r, g, t)) { continue; }
      let acc = array<vec4<f32>, 16>(t.a0l, t.a0h, t.a1l, t.a1h, t.a2l, t.a2h, t.a3l, t.a3h,
        t.a4l, t.a4h, t.a5l, t.a5h, t.a6l, t.a6h, t.a7l, t.a7h);
      for (var i = 0u; i < 8u; i++) { store8(r + i, g, acc[2u * i], acc[2u * i + 1u]); }
    }
  }
}

// ---- workgroup-tiled ----------------------------------------------------------------------
const TK4: u32 = 4u;
var<workgroup> xs: array<vec4<f32>, WG_Y * TM * TK4>;
var<workgroup> ws: array<vec4<f32>, WG_X * TN * TK4>;

@compute @workgroup_size(WG_X, WG_Y)
fn lin_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
             @builtin(local_invocation_index) li: u32) {
  let tileM = WG_Y * TM;
  let tileN = WG_X * TN;
  let rowBase = wid.y * tileM;
  let K4 = p.K / 4u;
  let NWr = nw();
  let threads = WG_X * WG_Y;
  let g = wid.x * WG_X + lid.x;
  var acc: array<array<f32, 8>, 8>;
  for (var k0 = 0u; k0 < K4; k0 += TK4) {
    for (var e = li; e < tileM * TK4; e += threads) {
      let gr = rowBase + e / TK4;
      let kk = k0 + e % TK4;
      xs[e] = select(vec4<f32>(0.0), X[min(gr, p.M - 1u) * K4 + min(kk, K4 - 1u)], gr < p.M && kk < K4);
    }
    for (var e = li; e < tileN * TK4; e += threads) {
      let t = e / TK4;
      let kk = k0 + e % TK4;
      let n = w_row(wid.x * WG_X + t / TN, t % TN, TN);
      ws[e] = select(vec4<f32>(0.0), W[min(n, NWr - 1u) * K4 + min(kk, K4 - 1u)], n < NWr && kk < K4);
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

// ---- small M (decode) ----------------------------------------------------------------------
const MAXM: u32 = 8u;
var<workgroup> red: array<f32, MAXM * WG_X * WG_Y>;

@compute @workgroup_size(WG_X, WG_Y)
fn lin_gemv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let K4 = p.K / 4u;
  let g = wid.x;
  let n = min(w_row(g, lid.y, WG_Y), nw() - 1u);
  var acc: array<f32, MAXM>;
  for (var k = lid.x; k < K4; k += WG_X) {
    let w = W[n * K4 + k];
    for (var m = 0u; m < MAXM; m++) {
      if (m >= p.M) { break; }
      acc[m] += dot(X[m * K4 + k], w);
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
  let oc = out_cols(WG_Y);
  if (lid.y < oc && lid.x < p.M) {
    let m = lid.x;
    let a = red[m * WG_X * WG_Y + lid.y * WG_X];
    let u = red[m * WG_X * WG_Y + ((lid.y + oc) % WG_Y) * WG_X];
    store(m, g, lid.y, WG_Y, a, u);
  }
}
