// The LM head fused with sampling (greedy or plain temperature): the decode kernels compiled with
// SAMPLE write, instead of their logits, one partial per (row, group of G columns):
//   Y as [M, ceil(N / G)] vec4 (max z, sum e^(z - max z), best, bitcast id), z = logit / T
// with best / id the largest z (greedy: the first index on ties) or z + Gumbel noise, the same
// noise as sample_part.wgsl. G = 8 for dec (lin_rb8 in linear.wgsl, nf4_dec in matmul_nf4.wgsl:
// sample_tile8) and gemv (lin_gemv / nf4_gemv: sample_row8 from the reduced column sums), G = 4
// for sg (linear_sg_store.wgsl: sample_row4 after subgroupAdd). sample_merge.wgsl (FUSED) reduces
// a row's partials to its token and log-prob, so the [M, V] logits are never written or read
// again. Uses the includer's p (Params: scale = 1 / T, seed, step, greedy, and R the draw's row of
// X's row 0: the noise is keyed by the row of the draw, which a pass of a split step starts past 0;
// no bias or LoRA; flags bit 5: per-row noise keys in bias, sample_key), bias, Y, MR, and for gemv its red, WG_X and WG_Y.
// CPU twin: linear_forward + sample_forward (src/reference). Launcher: Linear.runSample
// (src/gpu/kernels/linear.ts). Tested by tests/unit/gpu/lm-head-sample.test.ts.

// #include sampling_rng

override SAMPLE: bool = false;

// Row r's noise: flags bit 5 keys it by the draw's (stream, position) pairs, which the launcher
// binds in bias's place (SAMPLE draws have no bias), at the draw's row p.R + r.
fn sample_key(r: u32) -> u32 {
  let keyed = (p.flags & 32u) != 0u;
  let ki = select(0u, 2u * (p.R + r), keyed);
  return draw_key(p.seed, p.R + r, p.step, keyed, vec2<f32>(bias[ki], bias[ki + 1u]));
}

// Row r's partial for its column group g of G columns (G = 8 or 4).
fn sample_write(r: u32, g: u32, G: u32, d: Draw) {
  let o = (r * ((p.N + G - 1u) / G) + g) * 4u;
  Y[o] = d.m;
  Y[o + 1u] = d.s;
  Y[o + 2u] = d.b;
  Y[o + 3u] = bitcast<f32>(d.bi);
}

// One row's 8 logits (columns 8 g .. 8 g + 7, those below N) to its partial.
fn sample_row8(r: u32, g: u32, lo: vec4<f32>, hi: vec4<f32>) {
  let rk = sample_key(r);
  var d = draw_start();
  for (var j = 0u; j < 8u; j++) {
    let col = g * 8u + j;
    if (col >= p.N) { break; }
    d = draw_add(d, select(hi[j & 3u], lo[j & 3u], j < 4u) * p.scale, p.greedy != 0u, rk, col);
  }
  sample_write(r, g, 8u, d);
}

// One row's 4 logits (columns 4 g .. 4 g + 3, those below N) to its partial.
fn sample_row4(r: u32, g: u32, v: vec4<f32>) {
  let rk = sample_key(r);
  var d = draw_start();
  for (var j = 0u; j < 4u; j++) {
    let col = g * 4u + j;
    if (col >= p.N) { break; }
    d = draw_add(d, v[j] * p.scale, p.greedy != 0u, rk, col);
  }
  sample_write(r, g, 4u, d);
}

// The partials of rows row0 .. row0 + MR - 1 (those below M) of column group g.
fn sample_tile8(row0: u32, g: u32, t: Tile8) {
  sample_row8(row0, g, t.a0l, t.a0h);
  if (MR > 1u && row0 + 1u < p.M) { sample_row8(row0 + 1u, g, t.a1l, t.a1h); }
  if (MR > 2u) {
    if (row0 + 2u < p.M) { sample_row8(row0 + 2u, g, t.a2l, t.a2h); }
    if (row0 + 3u < p.M) { sample_row8(row0 + 3u, g, t.a3l, t.a3h); }
  }
  if (MR > 4u) {
    if (row0 + 4u < p.M) { sample_row8(row0 + 4u, g, t.a4l, t.a4h); }
    if (row0 + 5u < p.M) { sample_row8(row0 + 5u, g, t.a5l, t.a5h); }
    if (row0 + 6u < p.M) { sample_row8(row0 + 6u, g, t.a6l, t.a6h); }
    if (row0 + 7u < p.M) { sample_row8(row0 + 7u, g, t.a7l, t.a7h); }
  }
}

// gemv (lin_gemv, nf4_gemv): after their reduction, column y's sum of row m is the includer's
// red[m * WG_X * WG_Y + y * WG_X]; invocation (m, 0) writes row m's partial of its 8 columns (the
// launcher keeps WG_Y = 8 and M <= 8 <= WG_X).
fn sample_gemv(lid: vec3<u32>, g: u32) {
  if (lid.y != 0u || lid.x >= p.M) { return; }
  let b = lid.x * WG_X * WG_Y;
  let lo = vec4<f32>(red[b], red[b + WG_X], red[b + 2u * WG_X], red[b + 3u * WG_X]);
  let hi = vec4<f32>(red[b + 4u * WG_X], red[b + 5u * WG_X], red[b + 6u * WG_X], red[b + 7u * WG_X]);
  sample_row8(lid.x, g, lo, hi);
}
