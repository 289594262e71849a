// Shared by the two passes of chunked sampling (sample_part.wgsl, sample_merge.wgsl;
// `// #include sample_chunks`): their Params, workgroup size and the workgroup merge of
// (max z, sum e^(z - max z), best value, best id) partials.

struct Params {
  B: u32,        // rows
  V: u32,        // vocabulary size
  greedy: u32,   // 1: argmax
  seed: u32,     // RNG seed
  step: u32,     // RNG counter (decode step)
  invT: f32,     // 1 / temperature (1 when greedy)
  chunk: u32,    // logits per chunk
  nChunks: u32,  // ceil(V / chunk)
  keyed: u32,    // 1: each row's noise from its pair in keys (draw_key in sampling_rng.wgsl)
}

// Invocations per workgroup, a power of two (4 on CPU adapters, 64 on GPUs: rowWorkgroupSize).
override WG: u32 = 64;
const NEG_BIG: f32 = -3.0e38;

var<workgroup> rm: array<f32, WG>;  // max z
var<workgroup> rs: array<f32, WG>;  // sum e^(z - max z)
var<workgroup> rb: array<f32, WG>;  // best (z or z + noise)
var<workgroup> ri: array<u32, WG>;  // its token id

// Merges every invocation's partial into invocation 0's slots (rm[0], rs[0], rb[0], ri[0]): sums
// rescaled to the larger max, the larger best value and on ties the smaller id. An invocation
// with nothing (m = NEG_BIG, s = 0) adds 0 without overflow. Call from uniform control flow.
fn merge_partials(lid: u32, m: f32, s: f32, b: f32, bi: u32) {
  rm[lid] = m;
  rs[lid] = s;
  rb[lid] = b;
  ri[lid] = bi;
  for (var h = WG / 2u; h > 0u; h >>= 1u) {
    workgroupBarrier();
    if (lid < h) {
      let m2 = rm[lid + h];
      let mx = max(rm[lid], m2);
      rs[lid] = rs[lid] * exp(rm[lid] - mx) + rs[lid + h] * exp(m2 - mx);
      rm[lid] = mx;
      let b2 = rb[lid + h];
      let i2 = ri[lid + h];
      if (b2 > rb[lid] || (b2 == rb[lid] && i2 < ri[lid])) {
        rb[lid] = b2;
        ri[lid] = i2;
      }
    }
  }
}
