// The sg variant of the NF4 linear (decode, M <= 8 per block): subgroup reductions, for adapters
// with the `subgroups` feature (a separate file: `enable subgroups` must not reach devices without
// it). Everything of shaders/matmul_nf4.wgsl (Params, bindings, code book, epilogue; read its
// header) plus nf4_sg. Launcher: src/gpu/kernels/linear.ts (variant 'sg'); tested with every
// other variant by tests/unit/gpu/nf4-matmul.test.ts and linear-forward.test.ts.
//
// nf4_sg: as lin_sg (linear_sg.wgsl): a workgroup of WG_X invocations (one subgroup) owns 4
// virtual columns x MR rows; invocation i takes code words i, i + WG_X, ... of each column, so a
// subgroup streams a weight row's codes coalesced and unpacks each word once for all MR rows. A
// word's 8 codes share one absmax: the rows' 4-column partial sums of a word are scaled by the 4
// absmax values once. PAIRS (override): unpack through the workgroup's code-pair table (one read
// per two codes; filling it costs 256 / WG_X reads per invocation, cheap at GPU subgroup widths)
// instead of one private-table read per code (SwiftShader's 4-wide subgroups).
enable subgroups;

// #include matmul_nf4
// #include linear_sg_store

override PAIRS: bool = false;

fn sg_lo(q: u32) -> vec4<f32> {
  if (PAIRS) { return pairs_lo(q); }
  return unpack_lo(q);
}
fn sg_hi(q: u32) -> vec4<f32> {
  if (PAIRS) { return pairs_hi(q); }
  return unpack_hi(q);
}

@compute @workgroup_size(WG_X, 1)
fn nf4_sg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  if (PAIRS) { fill_pairs(li, WG_X); }
  let g = wid.x;
  let row0 = wid.y * MR;
  if (row0 >= p.M || out_col(g, 0u, 4u) >= p.N) { return; }
  let K4 = p.K / 4u;
  let K8 = p.K / 8u;
  let KB = p.K / 64u;
  let last = nw() - 1u;
  let n0 = min(w_row(g, 0u, 4u), last); let n1 = min(w_row(g, 1u, 4u), last);
  let n2 = min(w_row(g, 2u, 4u), last); let n3 = min(w_row(g, 3u, 4u), last);
  let x0 = sg_x(0u, row0, K4); let x1 = sg_x(1u, row0, K4); let x2 = sg_x(2u, row0, K4); let x3 = sg_x(3u, row0, K4);
  let x4 = sg_x(4u, row0, K4); let x5 = sg_x(5u, row0, K4); let x6 = sg_x(6u, row0, K4); let x7 = sg_x(7u, row0, K4);
  var a = Rows8();
  let steps = (K8 + WG_X - 1u) / WG_X; // uniform: subgroupAdd after the loop stays in uniform control flow
  for (var s = 0u; s < steps; s++) {
    let kw = s * WG_X + li;
    if (kw < K8) {
      let q0 = Wq[n0 * K8 + kw]; let q1 = Wq[n1 * K8 + kw]; let q2 = Wq[n2 * K8 + kw]; let q3 = Wq[n3 * K8 + kw];
      let b = kw / 8u;
      let sc = vec4<f32>(absmax[n0 * KB + b], absmax[n1 * KB + b], absmax[n2 * KB + b], absmax[n3 * KB + b]);
      // [inputs 8kw..8kw+3 | 8kw+4..8kw+7] x [columns 0-3], unscaled codes.
      let lo = mat4x4<f32>(sg_lo(q0), sg_lo(q1), sg_lo(q2), sg_lo(q3));
      let hi = mat4x4<f32>(sg_hi(q0), sg_hi(q1), sg_hi(q2), sg_hi(q3));
      let k = 2u * kw;
      a.a0 += (X[x0 + k] * lo + X[x0 + k + 1u] * hi) * sc;
      if (MR > 1u) { a.a1 += (X[x1 + k] * lo + X[x1 + k + 1u] * hi) * sc; }
      if (MR > 2u) {
        a.a2 += (X[x2 + k] * lo + X[x2 + k + 1u] * hi) * sc;
        a.a3 += (X[x3 + k] * lo + X[x3 + k + 1u] * hi) * sc;
      }
      if (MR > 4u) {
        a.a4 += (X[x4 + k] * lo + X[x4 + k + 1u] * hi) * sc;
        a.a5 += (X[x5 + k] * lo + X[x5 + k + 1u] * hi) * sc;
        a.a6 += (X[x6 + k] * lo + X[x6 + k + 1u] * hi) * sc;
        a.a7 += (X[x7 + k] * lo + X[x7 + k + 1u] * hi) * sc;
      }
    }
  }
  sg_reduce_store(li, row0, g, a);
}
