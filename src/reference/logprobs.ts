// CPU reference for per-token log probabilities and entropies from logits (log-softmax, then
// pick the target; entropy = -sum p log p). Plain loops, the twin of the WGSL logprobs kernel.
// Exercised by tests/unit/reference-ops.test.ts and reference-model.test.ts.

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
