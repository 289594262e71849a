// The LM head fused with sampling (greedy or plain temperature): the dec kernels (lin_rb8 in
// linear.wgsl, nf4_dec in matmul_nf4.wgsl; `// #include linear_sample`) compiled with SAMPLE
// write, instead of their 8 logits per row, one partial per (row, group of 8 columns):
//   Y as [M, ceil(N / 8)] vec4 (max z, sum e^(z - max z), best, bitcast id), z = logit / T
// with best / id the largest z (greedy: the first index on ties) or z + Gumbel noise, the same
// noise as sample_part.wgsl. sample_merge.wgsl (FUSED) reduces a row's partials to its token and
// log-prob, so the [M, V] logits are never written or read again. Uses the includer's p (Params:
// scale = 1 / T, seed, step, greedy; no bias or LoRA), Y and MR.
// CPU twin: linear_forward + sample_forward (src/reference). Launcher: Linear.runSample
// (src/gpu/kernels/linear.ts). Tested by tests/unit/gpu/lm-head-sample.test.ts.

// #include sampling_rng

override SAMPLE: bool = false;

// One row's 8 logits (columns 8 g .. 8 g + 7, those below N) to its partial.
fn sample_row8(r: u32, g: u32, lo: vec4<f32>, hi: vec4<f32>) {
  let rk = row_key(p.seed, r, p.step);
  var d = draw_start();
  for (var j = 0u; j < 8u; j++) {
    let col = g * 8u + j;
    if (col >= p.N) { break; }
    d = draw_add(d, select(hi[j & 3u], lo[j & 3u], j < 4u) * p.scale, p.greedy != 0u, rk, col);
  }
  let o = (r * ((p.N + 7u) / 8u) + g) * 4u;
  Y[o] = d.m;
  Y[o + 1u] = d.s;
  Y[o + 2u] = d.b;
  Y[o + 3u] = bitcast<f32>(d.bi);
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
