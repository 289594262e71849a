// The last step of the sg kernels (lin_sg in linear_sg.wgsl, nf4_sg in matmul_nf4_sg.wgsl; both
// `// #include linear_sg_store`): each invocation's partial sums of 4 virtual columns x MR rows
// summed over the workgroup with subgroupAdd (the launcher keeps a workgroup no larger than the
// adapter's smallest subgroup, so the workgroup is one subgroup: no workgroup memory, no barrier),
// then stored through the includer's per-element epilogue (store: bias, LoRA, SwiGLU, +=), or with
// SAMPLE turned into each row's sampling partial of its 4 columns (linear_sample.wgsl).
// Uses the includer's p (Params), MR, WG_X, out_cols and store. Call from uniform control flow.

// Partial sums of one invocation: row i of the block in a<i>, virtual columns 0-3 as x..w.
struct Rows8 {
  a0: vec4<f32>, a1: vec4<f32>, a2: vec4<f32>, a3: vec4<f32>,
  a4: vec4<f32>, a5: vec4<f32>, a6: vec4<f32>, a7: vec4<f32>,
}

fn sg_reduce_store(li: u32, row0: u32, g: u32, part: Rows8) {
  var s = Rows8();
  s.a0 = subgroupAdd(part.a0);
  if (MR > 1u) { s.a1 = subgroupAdd(part.a1); }
  if (MR > 2u) { s.a2 = subgroupAdd(part.a2); s.a3 = subgroupAdd(part.a3); }
  if (MR > 4u) {
    s.a4 = subgroupAdd(part.a4); s.a5 = subgroupAdd(part.a5);
    s.a6 = subgroupAdd(part.a6); s.a7 = subgroupAdd(part.a7);
  }
  let rows = array<vec4<f32>, 8>(s.a0, s.a1, s.a2, s.a3, s.a4, s.a5, s.a6, s.a7);
  let oc = out_cols(4u);
  // Invocation i stores rows i, i + WG_X, ... of the block (every invocation holds every sum).
  for (var i = li; i < MR; i += WG_X) {
    let r = row0 + i;
    if (r >= p.M) { break; }
    let v = rows[i];
    if (SAMPLE) { sample_row4(r, g, v); continue; }
    for (var j = 0u; j < oc; j++) { store(r, g, j, 4u, v[j], v[(j + oc) % 4u]); }
  }
}

// Row i of the block starting at row0 as a vec4 index into X (past p.M: the last row, unused).
fn sg_x(i: u32, row0: u32, K4: u32) -> u32 { return min(row0 + i, p.M - 1u) * K4; }
