// The sg variant of the f32 linear (decode, M <= 8 per block): subgroup reductions, for adapters
// with the `subgroups` feature (a separate file because `enable subgroups` must not reach devices
// without it). Everything of shaders/linear.wgsl (Params, bindings, epilogue; read its header)
// plus lin_sg. Launcher: src/gpu/kernels/linear.ts (variant 'sg'); tested with every other variant
// by tests/unit/gpu/linear-forward.test.ts against the CPU twins.
//
// lin_sg: a workgroup of WG_X invocations (at most the adapter's smallest subgroup: one subgroup)
// owns 4 virtual columns and MR rows (1, 2, 4 or 8, compile-time). Its invocations take K in
// interleaved vec4 steps (invocation i reads W[n, 4(i + s WG_X) ..]), so on a GPU the subgroup
// reads each weight row as one coalesced stream, every weight once for all MR rows; subgroupAdd
// sums the partials in registers. On SwiftShader (subgroups of 4 SIMD lanes) each workgroup is one
// lane group with no workgroup memory.
enable subgroups;

// #include linear
// #include linear_sg_store

@compute @workgroup_size(WG_X, 1)
fn lin_sg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let g = wid.x;
  let row0 = wid.y * MR;
  if (row0 >= p.M || out_col(g, 0u, 4u) >= p.N) { return; }
  let K4 = p.K / 4u;
  let last = nw() - 1u;
  let n0 = min(w_row(g, 0u, 4u), last) * K4; let n1 = min(w_row(g, 1u, 4u), last) * K4;
  let n2 = min(w_row(g, 2u, 4u), last) * K4; let n3 = min(w_row(g, 3u, 4u), last) * K4;
  let x0 = sg_x(0u, row0, K4); let x1 = sg_x(1u, row0, K4); let x2 = sg_x(2u, row0, K4); let x3 = sg_x(3u, row0, K4);
  let x4 = sg_x(4u, row0, K4); let x5 = sg_x(5u, row0, K4); let x6 = sg_x(6u, row0, K4); let x7 = sg_x(7u, row0, K4);
  var a = Rows8();
  // A uniform trip count (the same for every invocation), so subgroupAdd after it is reached in
  // uniform control flow; the last step's invocations past K4 add nothing.
  let steps = (K4 + WG_X - 1u) / WG_X;
  for (var s = 0u; s < steps; s++) {
    let k = s * WG_X + li;
    if (k < K4) {
      // Columns of w: the 4 weight rows' vec4 at k; X[r] * w = the 4 columns' dot products.
      let w = mat4x4<f32>(W[n0 + k], W[n1 + k], W[n2 + k], W[n3 + k]);
      a.a0 += X[x0 + k] * w;
      if (MR > 1u) { a.a1 += X[x1 + k] * w; }
      if (MR > 2u) { a.a2 += X[x2 + k] * w; a.a3 += X[x3 + k] * w; }
      if (MR > 4u) { a.a4 += X[x4 + k] * w; a.a5 += X[x5 + k] * w; a.a6 += X[x6 + k] * w; a.a7 += X[x7 + k] * w; }
    }
  }
  sg_reduce_store(li, row0, g, a);
}
