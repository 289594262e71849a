// The GRPO objective per token and its gradient, then its scalar metrics in one tiny buffer.
// N = token rows (sequences packed one after another). Per row n with loss mask m (0: prompt,
// tool output, padding, masked truncated completion), advantage A and normaliser weight w:
//   ratio = exp(logp - old_logp);  c = clamp(ratio, 1 - eps_low, 1 + eps_high)
//   tok   = -min(ratio A, c A) + beta KL_k(logp, ref) - entropy_coef H
//   loss  = sum_n w[n] tok[n];  dlogp[n] = w (d tok / d logp);  dentropy[n] = -entropy_coef w
// The aggregation mode lives only in w (host: tokenWeights in src/reference/grpo_loss.ts):
//   token-mean m / tokens | seq-mean-token-mean m / (S len_s) | seq-mean-token-sum-norm m / (S Lmax),
// with the whole batch's counts, so micro-batches add up to the batch. One kernel, every mode.
// Entry points: grpo_token (one invocation per row) and grpo_reduce (ONE workgroup: recomputes the
// per-row terms and sums them; recomputing keeps both within the WebGPU default of 8 storage
// buffers per stage, where writing per-row terms out would need 9).
// CPU twin: grpo_loss (src/reference/grpo_loss.ts), kl_value/kl_grad (src/reference/kl.ts).
// Launcher: src/gpu/kernels/grpo.ts. Tested by tests/unit/gpu/grpo-gpu.test.ts.
// Write contract: dlogp and dentropy are overwritten (=), every row (0 on masked rows);
// metrics [8] are overwritten (=) when flags bit 2 is set, else accumulated (+=, micro-batches):
//   [loss, policy_loss, tokens, kl sum, entropy sum, low-clipped, high-clipped, region-clipped]
// (the sums after `tokens` are weighted by m: divide by `tokens` for the means).

struct Params {
  N: u32,
  flags: u32,          // bit 0: mask holds f32 bits (else u32); bit 1: entropy given; bit 2: metrics =
  kl_kind: u32,        // 0 k1, 1 k2, 2 k3
  _pad: u32,
  eps_low: f32,
  eps_high: f32,
  beta: f32,           // 0: no KL, ref_logp is not read
  entropy_coef: f32,
}

override WG: u32 = 64;         // grpo_token: invocations per workgroup
override RWG: u32 = 64;        // grpo_reduce: invocations of its single workgroup (a power of two)

// ---- inputs shared by both entry points ---------------------------------------------------------
@group(0) @binding(0) var<storage, read> logp: array<f32>;        // [N] policy log probs
@group(0) @binding(1) var<storage, read> old_logp: array<f32>;    // [N] sampling policy (= logp when mu = 1)
@group(0) @binding(2) var<storage, read> ref_logp: array<f32>;    // [N] reference policy (any [N] when beta = 0)
@group(0) @binding(3) var<storage, read> entropy: array<f32>;     // [N] (any [N] when flags bit 1 is clear)
@group(0) @binding(4) var<storage, read> mask: array<u32>;        // [N] f32 or u32 values (flags bit 0)
@group(0) @binding(5) var<storage, read> coef: array<vec2<f32>>;  // [N] (advantage, normaliser weight)

struct Terms {
  loss: f32,      // w tok
  policy: f32,    // w (tok + entropy_coef H): tok without the entropy bonus
  dlogp: f32,
  m: f32,
  kl: f32,        // m KL
  ent: f32,       // m H
  low: f32,       // m [ratio < 1 - eps_low and A < 0]
  high: f32,      // m [ratio > 1 + eps_high and A > 0]
}

fn mask_at(n: u32, flags: u32) -> f32 {
  let raw = mask[n];
  if ((flags & 1u) != 0u) { return bitcast<f32>(raw); }
  return f32(raw);
}

// KL_k(logp, ref) and its derivative in logp; d = ref - logp.
fn kl_term(kind: u32, d: f32) -> vec2<f32> {
  if (kind == 0u) { return vec2<f32>(-d, 1.0); }
  if (kind == 1u) { return vec2<f32>(0.5 * d * d, -d); }
  let e = exp(d);
  // exp(d) - d - 1 cancels in f32 for small d: use its series there (error < 1e-8 relative).
  let series = d * d * (0.5 + d * (1.0 / 6.0 + d * (1.0 / 24.0 + d * (1.0 / 120.0 + d / 720.0))));
  let v = select(e - d - 1.0, series, abs(d) < 0.125);
  return vec2<f32>(v, 1.0 - e);
}

fn token_terms(n: u32, p: Params) -> Terms {
  var t = Terms(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  let m = mask_at(n, p.flags);
  if (m == 0.0) { return t; }   // padding may hold anything: never read into the result
  let lp = logp[n];
  let A = coef[n].x;
  let w = coef[n].y;
  let lo = 1.0 - p.eps_low;
  let hi = 1.0 + p.eps_high;
  let ratio = exp(lp - old_logp[n]);
  let s1 = ratio * A;
  let s2 = clamp(ratio, lo, hi) * A;
  var tok = -min(s1, s2);
  var d = select(0.0, -s1, s1 <= s2);   // the gradient flows through the unclipped term when it is the min
  if (p.beta > 0.0) {
    let k = kl_term(p.kl_kind, ref_logp[n] - lp);
    tok += p.beta * k.x;
    d += p.beta * k.y;
    t.kl = m * k.x;
  }
  var H = 0.0;
  if ((p.flags & 2u) != 0u) { H = entropy[n]; }
  t.policy = w * tok;
  t.loss = w * (tok - p.entropy_coef * H);
  t.dlogp = w * d;
  t.m = m;
  t.ent = m * H;
  t.low = select(0.0, m, ratio < lo && A < 0.0);
  t.high = select(0.0, m, ratio > hi && A > 0.0);
  return t;
}

// ---- grpo_token: the upstream gradients of the backward ------------------------------------------
@group(0) @binding(6) var<storage, read_write> dlogp: array<f32>;     // [N] (=)
@group(0) @binding(7) var<storage, read_write> dentropy: array<f32>;  // [N] (=)
@group(0) @binding(8) var<uniform> pt: Params;

@compute @workgroup_size(WG)
fn grpo_token(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) li: u32) {
  let n = (wid.y * nwg.x + wid.x) * WG + li;   // a second grid dimension past 65535 workgroups
  if (n >= pt.N) { return; }
  let t = token_terms(n, pt);
  dlogp[n] = t.dlogp;
  dentropy[n] = select(0.0, -pt.entropy_coef * coef[n].y, t.m != 0.0);
}

// ---- grpo_reduce: the eight metric sums, in a fixed order (deterministic) -------------------------
@group(0) @binding(6) var<storage, read_write> metrics: array<f32>;   // [8] (= or +=, flags bit 2)
@group(0) @binding(7) var<uniform> pr: Params;

var<workgroup> part: array<array<f32, 8>, RWG>;

@compute @workgroup_size(RWG)
fn grpo_reduce(@builtin(local_invocation_index) li: u32) {
  var acc = array<f32, 8>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  for (var n = li; n < pr.N; n += RWG) {
    let t = token_terms(n, pr);
    acc[0] += t.loss;
    acc[1] += t.policy;
    acc[2] += t.m;
    acc[3] += t.kl;
    acc[4] += t.ent;
    acc[5] += t.low;
    acc[6] += t.high;
    acc[7] += max(t.low, t.high);   // region: clipped on either side (never both)
  }
  part[li] = acc;
  workgroupBarrier();
  for (var s = RWG / 2u; s > 0u; s >>= 1u) {
    if (li < s) {
      for (var k = 0u; k < 8u; k++) { part[li][k] += part[li + s][k]; }
    }
    workgroupBarrier();
  }
  if (li < 8u) {
    if ((pr.flags & 4u) != 0u) { metrics[li] = part[0][li]; } else { metrics[li] += part[0][li]; }
  }
}
