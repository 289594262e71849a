// CPU reference of the SFT loss: masked cross-entropy over a batch of sequences, expressed as
// the per-token gradient dlogp that model_backward (and later the GPU backward) takes as input.
// Exercised by tests/unit/reference/reference-bwd-train.test.ts and reference-bwd-goldens.test.ts.

// B = sequences; per sequence b: logprobs [T_b - 1] (row t = log p(ids[t+1] | ids[..t]), as
// model_logprobs returns them) and mask [T_b - 1] (1 = a generated token to learn, 0 = prompt or
// tool output). loss = -sum_b sum_t mask logp / nTokens, nTokens = sum of all masks unless given.
// dlogp[b][t] = -mask[b][t] / nTokens.
/**
 * Masked cross-entropy and its gradient with respect to each log probability. For gradient
 * accumulation over micro-batches, pass the whole batch's nTokens (countTokens of all masks)
 * with each micro-batch: the per-micro-batch losses and gradients then add up to the batch's.
 */
export function masked_ce(
  logprobs: ArrayLike<number>[], masks: ArrayLike<number>[], nTokens?: number,
): { loss: number; nTokens: number; dlogp: Float32Array[] } {
  if (logprobs.length !== masks.length) throw new Error(`masked_ce: ${logprobs.length} logprob rows but ${masks.length} masks; expected one mask per sequence`);
  const n = nTokens ?? countTokens(masks);
  if (!(n > 0)) throw new Error('masked_ce: no token has a non-zero mask; a batch needs at least one trained token');
  let sum = 0;
  const dlogp = logprobs.map((lp, b) => {
    const mask = masks[b];
    if (mask.length !== lp.length) throw new Error(`masked_ce: sequence ${b} has ${lp.length} logprobs but ${mask.length} mask values; expected [T-1] each`);
    const d = new Float32Array(lp.length);
    for (let t = 0; t < lp.length; t++) {
      sum += mask[t] * lp[t];
      d[t] = mask[t] === 0 ? 0 : -mask[t] / n;
    }
    return d;
  });
  return { loss: -sum / n, nTokens: n, dlogp };
}

/** Sum of the masks over a batch: the normaliser of masked_ce. */
export function countTokens(masks: ArrayLike<number>[]): number {
  let n = 0;
  for (const m of masks) for (let t = 0; t < m.length; t++) n += m[t];
  return n;
}
