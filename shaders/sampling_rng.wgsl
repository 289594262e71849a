// Helpers of the sampling kernels (sampling.wgsl, sample_part.wgsl, sample_merge.wgsl,
// linear_sample.wgsl; `// #include sampling_rng`): the counter-based PCG hash behind the Gumbel
// noise (the CPU twin src/reference/sampling.ts uses the same), the order-preserving f32 <-> u32
// keys of the threshold search, and the running draw over a run of logits (Draw).

fn pcg(v: u32) -> u32 {
  let state = v * 747796405u + 2891336453u;
  let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

// Order-preserving map of f32 to u32 (larger float -> larger key), and its inverse.
fn key_of(f: f32) -> u32 {
  let b = bitcast<u32>(f);
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn value_of(k: u32) -> f32 {
  return bitcast<f32>(select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u));
}

// The noise of one draw: (seed, stream, position), by default (seed, the row, the decode step).
fn row_key(seed: u32, row: u32, step: u32) -> u32 { return pcg(pcg(pcg(seed) ^ row) ^ step); }

// The noise of row `row` of a draw: keyed, (stream, position) from the draw's key pairs (exact
// integers in f32, src/reference/sampling.ts rowKeyPairs: DecodeSession gives each slot a stream
// and keys a row by the index of the token it samples, so a sequence draws the same noise whichever
// rows step with it); else (row, step). The includer reads the pair at index 2 row (0 unkeyed, so
// a stand-in buffer of 2 floats serves) and passes it as kp.
fn draw_key(seed: u32, row: u32, step: u32, keyed: bool, kp: vec2<f32>) -> u32 {
  return row_key(seed, select(row, u32(kp.x), keyed), select(step, u32(kp.y), keyed));
}

// z + Gumbel noise of token i (u in (0, 1) from 24 hash bits): the argmax over tokens of this is a
// draw from softmax(z). (2^24 - 1) + 0.5 rounds to 2^24 in f32, so u is capped at the largest f32
// below 1: at u = 1 the noise was +inf and that token won whatever its z (once in 2^24 tokens: about
// 1 % of draws over a 151,936-token vocabulary).
fn gumbel(z: f32, rk: u32, i: u32) -> f32 {
  return z - log(-log(gumbel_u(rk, i)));
}

fn gumbel_u(rk: u32, i: u32) -> f32 {
  return min((f32(pcg(rk ^ pcg(i)) >> 8u) + 0.5) * (1.0 / 16777216.0), 0.99999994);
}

// A running draw over logits seen in increasing id order: max z, sum e^(z - max z) (online), and
// the best value (z, or z + Gumbel noise when sampling) with its id (the first one on ties).
struct Draw { m: f32, s: f32, b: f32, bi: u32 }

fn draw_start() -> Draw { return Draw(-3.0e38, 0.0, -3.0e38, 0xffffffffu); }

fn draw_add(d: Draw, z: f32, greedy: bool, rk: u32, i: u32) -> Draw {
  var r = d;
  if (z > r.m) {
    r.s = r.s * exp(r.m - z) + 1.0;
    r.m = z;
  } else {
    r.s += exp(z - r.m);
  }
  var v = z;
  if (!greedy) { v = gumbel(z, rk, i); }
  if (v > r.b) { r.b = v; r.bi = i; }
  return r;
}
