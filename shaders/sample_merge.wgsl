// Sampling without top-k / top-p, second pass (after sample_part.wgsl): one workgroup per row
// merges the row's chunk partials into its token and log-probability.
//   part [B, nChunks] vec4 (max z, sum e^(z - max), best, id), logits [B, V]
//   -> out [2B] u32: out[r] = id, out[B + r] = bitcast f32 log softmax(z)[id] over the full row.
// Ties between chunks go to the smaller id (the first index, as sample_rows and the CPU twin).
// FUSED: the partials come from the LM head itself (linear_sample.wgsl, chunks of 8 columns) and
// no logits exist: z of the chosen id is its best value (greedy) or that minus its Gumbel noise.
// CPU twin: src/reference/sampling.ts. Launcher: src/gpu/kernels/sampling.ts.
// Write contract: out overwritten (=) for rows 0..B-1.

// Params, WG, the workgroup merge (merge_partials).
// #include sample_chunks
// #include sampling_rng

override FUSED: bool = false;

@group(0) @binding(0) var<storage, read> logits: array<f32>;       // [B, V] (FUSED: not read)
@group(0) @binding(1) var<storage, read> part: array<vec4<f32>>;   // [B, nChunks]
@group(0) @binding(2) var<storage, read_write> out: array<u32>;    // [2B] ids, then f32 log-probs
@group(0) @binding(3) var<uniform> p: Params;
@group(0) @binding(4) var<storage, read> keys: array<f32>;      // [2B] (stream, position) when keyed

@compute @workgroup_size(WG)
fn sample_merge(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.x;
  if (row >= p.B) { return; }
  var m = NEG_BIG;
  var s = 0.0;
  var b = NEG_BIG;
  var bi = 0xffffffffu;
  for (var c = lid; c < p.nChunks; c += WG) {
    let q = part[row * p.nChunks + c];
    let mx = max(m, q.x);
    s = s * exp(m - mx) + q.y * exp(q.x - mx);
    m = mx;
    let i = bitcast<u32>(q.w);
    if (q.z > b || (q.z == b && i < bi)) { b = q.z; bi = i; }
  }
  merge_partials(lid, m, s, b, bi);
  if (lid == 0u) {
    let id = ri[0];
    out[row] = id;
    var z: f32;
    if (FUSED) {
      z = rb[0];
      if (p.greedy == 0u) {
        let ki = select(0u, 2u * row, p.keyed != 0u);
        z += log(-log(gumbel_u(draw_key(p.seed, row, p.step, p.keyed != 0u, vec2<f32>(keys[ki], keys[ki + 1u])), id)));
      }
    } else {
      z = logits[row * p.V + id] * p.invT;
    }
    out[p.B + row] = bitcast<u32>(z - (rm[0] + log(rs[0])));
  }
}
