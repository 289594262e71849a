// CPU reference for per-token log probabilities and entropies from logits (log-softmax, then
// pick the target; entropy = -sum p log p). Plain loops, the twin of the WGSL logprobs kernel.
// Exercised by tests/unit/reference/reference-ops.test.ts, reference-model.test.ts and (backward, finite
// differences) reference-bwd-ops.test.ts.

// N = rows (tokens), V = vocab size
// logits [N, V], targets [N] -> logprobs [N], entropy [N]
/** log p(targets[n]) under softmax(logits[n]) and the entropy of that distribution. */
export function logprobs_forward(logits: Float32Array, targets: ArrayLike<number>, N: number, V: number): { logprobs: Float32Array; entropy: Float32Array } {
  if (logits.length !== N * V) throw new Error(`logprobs_forward: logits has ${logits.length} values, expected [N, V] = [${N}, ${V}]`);
  if (targets.length !== N) throw new Error(`logprobs_forward: targets has ${targets.length} values, expected [N] = [${N}]`);
  const logprobs = new Float32Array(N);
  const entropy = new Float32Array(N);
  for (let n = 0; n < N; n++) {
    const o = n * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) if (logits[o + v] > max) max = logits[o + v];
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] - max);
    const lse = max + Math.log(sum);
    let ent = 0;
    for (let v = 0; v < V; v++) {
      const lp = logits[o + v] - lse;
      ent -= Math.exp(lp) * lp;
    }
    const t = targets[n];
    if (!Number.isInteger(t) || t < 0 || t >= V) throw new Error(`logprobs_forward: target ${t} outside [0, ${V})`);
    logprobs[n] = logits[o + t] - lse;
    entropy[n] = ent;
  }
  return { logprobs, entropy };
}

// dlogp [N], dentropy [N] or null, logits [N, V], targets [N] -> dlogits [N, V]
// With p = softmax(logits[n]), t = targets[n], H = entropy[n]:
//   d logp / d z[v] = [v = t] - p[v],   d H / d z[v] = -p[v] (log p[v] + H)
//   dlogits[n, v] = dlogp[n] ([v = t] - p[v]) - dentropy[n] p[v] (log p[v] + H)
// Write contract: dlogits is a new array (=). This is where every loss enters the model: SFT
// hands dlogp = -mask / n_tokens (src/reference/loss.ts), GRPO its per-token policy gradient.
/** Backward of logprobs_forward, from per-token gradients of the log probabilities (and entropies). */
export function logprobs_backward(
  dlogp: Float32Array, dentropy: Float32Array | null, logits: Float32Array, targets: ArrayLike<number>, N: number, V: number,
): Float32Array {
  if (logits.length !== N * V) throw new Error(`logprobs_backward: logits has ${logits.length} values, expected [N, V] = [${N}, ${V}]`);
  if (targets.length !== N) throw new Error(`logprobs_backward: targets has ${targets.length} values, expected [N] = [${N}]`);
  if (dlogp.length !== N) throw new Error(`logprobs_backward: dlogp has ${dlogp.length} values, expected [N] = [${N}]`);
  if (dentropy && dentropy.length !== N) throw new Error(`logprobs_backward: dentropy has ${dentropy.length} values, expected [N] = [${N}]`);
  const dlogits = new Float32Array(N * V);
  const lp = new Float64Array(V);
  for (let n = 0; n < N; n++) {
    const o = n * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) if (logits[o + v] > max) max = logits[o + v];
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] - max);
    const lse = max + Math.log(sum);
    let H = 0;
    for (let v = 0; v < V; v++) {
      lp[v] = logits[o + v] - lse;
      H -= Math.exp(lp[v]) * lp[v];
    }
    const t = targets[n];
    if (!Number.isInteger(t) || t < 0 || t >= V) throw new Error(`logprobs_backward: target ${t} outside [0, ${V})`);
    const g = dlogp[n], ge = dentropy ? dentropy[n] : 0;
    for (let v = 0; v < V; v++) {
      const p = Math.exp(lp[v]);
      dlogits[o + v] = g * ((v === t ? 1 : 0) - p) - ge * p * (lp[v] + H);
    }
  }
  return dlogits;
}
