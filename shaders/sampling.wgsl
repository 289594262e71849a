// Token sampling on the GPU: greedy, temperature, top-k, top-p, seeded and reproducible.
//   logits [B, V] -> out [2B] u32: out[r] = token id, out[B + r] = bitcast f32 log-probability.
// Distribution: z = logits / T (f32). Greedy (greedy = 1): the first index of max logits, and
// its log-prob under softmax(logits) (T = 1). Otherwise the kept set is every token whose z is
// >= the k-th largest z (top-k; ties kept) and, within it, every token whose z is >= the largest
// threshold whose kept mass is >= topP of the top-k mass (top-p, nucleus; ties kept). Thresholds
// are found without a sort by bisection over the order-preserving u32 keys of z (value midpoints
// first), one pass over V and one workgroup reduction per probe; a probe also returns the
// smallest kept value and its weight, so the search stops as soon as the kept set is exactly the
// answer (typically 10-20 probes, at most about 32). The token is argmax over kept tokens of z + Gumbel noise (= a sample
// from softmax(z) renormalised over the kept set), the noise from a counter-based PCG hash of
// (seed, row, step, token), or (seed, stream, position, token) with per-row keys (draw_key). The reported log-prob is log softmax(z)[id] over the FULL
// vocabulary (temperature-scaled, before top-k/top-p truncation): what the trainer recomputes.
// CPU twin: src/reference/sampling.ts (sample_forward, same hash). Launcher: src/gpu/kernels/sampling.ts.
// Write contract: out overwritten (=) for rows 0..B-1.

struct Params {
  B: u32,        // rows
  V: u32,        // vocabulary size
  topK: u32,     // 0 or >= V: no top-k
  greedy: u32,   // 1: argmax
  seed: u32,     // RNG seed
  step: u32,     // RNG counter (decode step)
  invT: f32,     // 1 / temperature
  topP: f32,     // >= 1: no top-p
  keyed: u32,    // 1: each row's noise from its pair in keys (draw_key in sampling_rng.wgsl)
}

@group(0) @binding(0) var<storage, read> logits: array<f32>;     // [B, V]
@group(0) @binding(1) var<storage, read_write> out: array<u32>;  // [2B] ids, then f32 log-probs
@group(0) @binding(2) var<uniform> p: Params;
@group(0) @binding(3) var<storage, read> keys: array<f32>;      // [2B] (stream, position) when keyed

// Invocations per workgroup, a power of two (the launcher picks 4 on CPU adapters, where a
// workgroup runs on one thread and each reduction round is a barrier, and 64 on GPUs).
override WG: u32 = 64;
const NEG_BIG: f32 = -3.0e38;
const POS_BIG: f32 = 3.0e38;

var<workgroup> rf: array<f32, WG>;   // f32 lane (max, sums, weights)
var<workgroup> rg: array<f32, WG>;   // f32 lane (smallest kept value)
var<workgroup> rh: array<f32, WG>;   // f32 lane (weight at the smallest kept value)
var<workgroup> ru: array<u32, WG>;   // u32 lane (argmax index, min key)

// pcg, key_of, value_of, row_key, gumbel (shared with sample_part.wgsl).
// #include sampling_rng

fn wg_sum_f(lid: u32, v: f32) -> f32 {
  workgroupBarrier();
  rf[lid] = v;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) { rf[lid] += rf[lid + s]; }
  }
  return workgroupUniformLoad(&rf[0]);
}

fn wg_min_u(lid: u32, v: u32) -> u32 {
  workgroupBarrier();
  ru[lid] = v;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) { ru[lid] = min(ru[lid], ru[lid + s]); }
  }
  return workgroupUniformLoad(&ru[0]);
}

// Argmax of (value, index) pairs, first index on ties; returns the index.
fn wg_argmax(lid: u32, v: f32, i: u32) -> u32 {
  workgroupBarrier();
  rf[lid] = v;
  ru[lid] = i;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) {
      let v2 = rf[lid + s];
      let i2 = ru[lid + s];
      if (v2 > rf[lid] || (v2 == rf[lid] && i2 < ru[lid])) {
        rf[lid] = v2;
        ru[lid] = i2;
      }
    }
  }
  return workgroupUniformLoad(&ru[0]);
}

// One probe of the threshold search over the tokens with key >= k, weighting each by 1
// (useMass false: a count) or e^(z - zmax) (a mass): total weight, smallest kept z, and the
// weight of the tokens equal to that smallest z.
struct Probe {
  total: f32,
  zmin: f32,
  atMin: f32,
}

fn probe(lid: u32, o: u32, k: u32, useMass: bool, zmax: f32) -> Probe {
  var t = 0.0;
  var zm = POS_BIG;
  var wm = 0.0;
  for (var i = lid; i < p.V; i += WG) {
    let z = logits[o + i] * p.invT;
    if (key_of(z) >= k) {
      let w = select(1.0, exp(z - zmax), useMass);
      t += w;
      if (z < zm) { zm = z; wm = w; } else if (z == zm) { wm += w; }
    }
  }
  workgroupBarrier();
  rf[lid] = t;
  rg[lid] = zm;
  rh[lid] = wm;
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    workgroupBarrier();
    if (lid < s) {
      rf[lid] += rf[lid + s];
      let z2 = rg[lid + s];
      if (z2 < rg[lid]) {
        rg[lid] = z2;
        rh[lid] = rh[lid + s];
      } else if (z2 == rg[lid]) {
        rh[lid] += rh[lid + s];
      }
    }
  }
  return Probe(workgroupUniformLoad(&rf[0]), workgroupUniformLoad(&rg[0]), workgroupUniformLoad(&rh[0]));
}

// The largest key whose kept weight (tokens with key >= it) is >= want, searched in [lo, hi)
// where the weight at lo is >= want and at hi is < want. It is always the key of a token.
fn search(lid: u32, o: u32, lo0: u32, hi0: u32, want: f32, useMass: bool, zmax: f32) -> u32 {
  var lo = lo0;
  var hi = hi0;
  loop {
    if (hi - lo <= 1u) { break; }
    var mid = key_of(0.5 * (value_of(lo) + value_of(hi)));
    if (mid <= lo || mid >= hi) { mid = lo + (hi - lo) / 2u; }
    let r = probe(lid, o, mid, useMass, zmax);
    if (r.total >= want) {
      // The kept set {key >= mid} is {z >= r.zmin}; it is the answer when dropping its
      // smallest value would fall short.
      lo = key_of(r.zmin);
      if (r.total - r.atMin < want) { break; }
    } else {
      hi = mid;
    }
  }
  return lo;
}

@compute @workgroup_size(WG)
fn sample_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.x;
  if (row >= p.B) { return; }
  let o = row * p.V;
  // Pass 1: max, sum e^(z - max), argmax, min key.
  var m = NEG_BIG;
  var s = 0.0;
  var am = 0u;
  var kmin = 0xffffffffu;
  for (var i = lid; i < p.V; i += WG) {
    let z = logits[o + i] * p.invT;
    if (z > m) {
      s = s * exp(m - z) + 1.0;
      m = z;
      am = i;
    } else {
      s += exp(z - m);
    }
    kmin = min(kmin, key_of(z));
  }
  let best = wg_argmax(lid, m, am);
  let zmax = logits[o + best] * p.invT;
  let sum = wg_sum_f(lid, s * exp(m - zmax));
  let logZ = zmax + log(sum);
  var id = best;
  if (p.greedy == 0u) {
    var lo = wg_min_u(lid, kmin);
    let hi = key_of(zmax) + 1u;
    // Top-k: the largest key keeping >= topK tokens.
    if (p.topK > 0u && p.topK < p.V) {
      lo = search(lid, o, lo, hi, f32(p.topK), false, zmax);
    }
    // Top-p inside the top-k set: the largest key keeping >= topP of its mass.
    if (p.topP < 1.0) {
      let want = p.topP * probe(lid, o, lo, true, zmax).total;
      lo = search(lid, o, lo, hi, want, true, zmax);
    }
    // Gumbel-max over the kept tokens.
    let ki = select(0u, 2u * row, p.keyed != 0u);
    let rk = draw_key(p.seed, row, p.step, p.keyed != 0u, vec2<f32>(keys[ki], keys[ki + 1u]));
    var g = NEG_BIG;
    var gi = 0u;
    for (var i = lid; i < p.V; i += WG) {
      let z = logits[o + i] * p.invT;
      if (key_of(z) >= lo) {
        let v = gumbel(z, rk, i);
        if (v > g) { g = v; gi = i; }
      }
    }
    id = wg_argmax(lid, g, gi);
  }
  if (lid == 0u) {
    out[row] = id;
    out[p.B + row] = bitcast<u32>(logits[o + id] * p.invT - logZ);
  }
}
