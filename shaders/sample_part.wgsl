// Sampling without top-k / top-p (greedy or plain temperature: the GRPO default), first pass:
// the vocabulary of each row split into chunks of CHUNK logits, one workgroup per (chunk, row),
// so a decode step of one row spreads over the whole device instead of one workgroup.
//   logits [B, V] -> part [B, nChunks] vec4: (max z, sum e^(z - max z), best, bitcast id)
// with z = logits / T; best / id: the chunk's largest z (greedy: first index on ties) or largest
// z + Gumbel noise (sampling; the same noise as sample_rows in sampling.wgsl). One read of the
// logits, online max and sum. sample_merge.wgsl reduces the chunks of a row. CPU twin:
// src/reference/sampling.ts (sample_forward). Launcher: src/gpu/kernels/sampling.ts.
// Write contract: part overwritten (=) for every (row, chunk).

// Params, WG, the workgroup merge (merge_partials).
// #include sample_chunks

@group(0) @binding(0) var<storage, read> logits: array<f32>;          // [B, V]
@group(0) @binding(1) var<storage, read_write> part: array<vec4<f32>>; // [B, nChunks]
@group(0) @binding(2) var<uniform> p: Params;
@group(0) @binding(3) var<storage, read> keys: array<f32>;         // [2B] (stream, position) when keyed

// #include sampling_rng

@compute @workgroup_size(WG)
fn sample_part(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let c = wid.x;
  let row = wid.y;
  if (row >= p.B || c >= p.nChunks) { return; }
  let o = row * p.V;
  let end = min(p.V, (c + 1u) * p.chunk);
  let ki = select(0u, 2u * row, p.keyed != 0u);
  let rk = draw_key(p.seed, row, p.step, p.keyed != 0u, vec2<f32>(keys[ki], keys[ki + 1u]));
  var d = draw_start();
  for (var i = c * p.chunk + lid; i < end; i += WG) {
    d = draw_add(d, logits[o + i] * p.invT, p.greedy != 0u, rk, i); // ids rise: the first index wins ties
  }
  merge_partials(lid, d.m, d.s, d.b, d.bi);
  if (lid == 0u) { part[row * p.nChunks + c] = vec4<f32>(rm[0], rs[0], rb[0], bitcast<f32>(ri[0])); }
}
