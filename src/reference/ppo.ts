// CPU reference of PPO's math for multi-turn episodes (plain loops, float64): per-turn rewards
// placed on the last trained token of each assistant turn, GAE over the trained tokens (prompt
// and tool-output rows are skipped, not zeros in the chain), and the clipped value loss with its
// gradient. The policy loss is grpo_loss with rowAdvantages (src/reference/grpo_loss.ts).
// Checked against PyTorch goldens by tests/unit/reference/ppo-reference.test.ts (scripts/make_ppo_goldens.py).
//
// Shapes: N rows (tokens of all sequences, concatenated), S sequences, offsets [S+1].

/**
 * [N] per-token rewards: turnRewards[s][k] goes on the last row of the k-th run of mask = 1 in
 * sequence s (one run per assistant turn; tool output between turns has mask 0). A sequence
 * whose mask is all 0 (e.g. a masked truncated completion) takes no reward.
 */
export function placeTurnRewards(mask: ArrayLike<number>, offsets: ArrayLike<number>, turnRewards: ArrayLike<number>[]): Float64Array {
  const S = offsets.length - 1;
  if (turnRewards.length !== S) throw new Error(`placeTurnRewards: ${turnRewards.length} reward lists for ${S} sequences; pass one list (one reward per assistant turn) per sequence`);
  const out = new Float64Array(offsets[S]);
  for (let s = 0; s < S; s++) {
    const ends: number[] = [];
    for (let n = offsets[s]; n < offsets[s + 1]; n++) {
      const last = n + 1 === offsets[s + 1] || mask[n + 1] === 0;
      if (mask[n] !== 0 && last) ends.push(n);
    }
    if (ends.length === 0) continue;
    if (ends.length !== turnRewards[s].length) {
      throw new Error(`placeTurnRewards: sequence ${s} has ${ends.length} assistant turns (runs of mask 1) but ${turnRewards[s].length} turn rewards`);
    }
    ends.forEach((n, k) => (out[n] = turnRewards[s][k]));
  }
  return out;
}

export interface GaeResult {
  /** [N] advantages (0 on masked rows). */
  advantages: Float64Array;
  /** [N] returns = advantages + values, the value head's targets (0 on masked rows). */
  returns: Float64Array;
}

/**
 * GAE(gamma, lambda) over each sequence's trained rows, last to first: delta = r_t + gamma V_next
 * - V_t, A_t = delta + gamma lambda A_next, with V_next = A_next = 0 after the last trained row.
 * Masked rows are skipped: the next trained row is the next step of the chain.
 */
export function gae_forward(rewards: ArrayLike<number>, values: ArrayLike<number>, mask: ArrayLike<number>, offsets: ArrayLike<number>, gamma: number, lambda: number): GaeResult {
  const N = rewards.length;
  if (values.length !== N || mask.length !== N || offsets[offsets.length - 1] !== N) {
    throw new Error(`gae_forward: rewards [${N}], values [${values.length}], mask [${mask.length}] and offsets (to ${offsets[offsets.length - 1]}) must describe the same N rows`);
  }
  if (!(gamma >= 0 && gamma <= 1) || !(lambda >= 0 && lambda <= 1)) throw new Error(`gae_forward: gamma (${gamma}) and lambda (${lambda}) must be in [0, 1]`);
  const advantages = new Float64Array(N), returns = new Float64Array(N);
  for (let s = 0; s + 1 < offsets.length; s++) {
    let nextValue = 0, nextAdv = 0;
    for (let n = offsets[s + 1] - 1; n >= offsets[s]; n--) {
      if (mask[n] === 0) continue;
      const delta = rewards[n] + gamma * nextValue - values[n];
      const a = delta + gamma * lambda * nextAdv;
      advantages[n] = a;
      returns[n] = a + values[n];
      nextValue = values[n];
      nextAdv = a;
    }
  }
  return { advantages, returns };
}

export interface ValueLossResult {
  /** sum over masked rows of 0.5 max((v - R)^2, (v_clip - R)^2), divided by `tokens`. */
  loss: number;
  /** Share of masked rows where the clipped term is the larger (vf_clipfrac). */
  clipFrac: number;
}

/** v_clip = old + clamp(v - old, -clip, clip); token-mean over `tokens` (default: the mask's sum). */
export function value_loss_forward(values: ArrayLike<number>, oldValues: ArrayLike<number>, returns: ArrayLike<number>, mask: ArrayLike<number>, clip: number, tokens?: number): ValueLossResult {
  const D = tokens ?? maskSum(mask);
  let loss = 0, clipped = 0, count = 0;
  for (let n = 0; n < values.length; n++) {
    if (mask[n] === 0) continue;
    const v = values[n], vc = clipValue(v, oldValues[n], clip);
    const a = (v - returns[n]) ** 2, b = (vc - returns[n]) ** 2;
    loss += mask[n] * 0.5 * Math.max(a, b);
    clipped += mask[n] * (b > a ? 1 : 0);
    count += mask[n];
  }
  return { loss: D > 0 ? loss / D : 0, clipFrac: count > 0 ? clipped / count : 0 };
}

/** [N] d loss / d values (overwritten; 0 on masked rows). */
export function value_loss_backward(values: ArrayLike<number>, oldValues: ArrayLike<number>, returns: ArrayLike<number>, mask: ArrayLike<number>, clip: number, tokens?: number): Float64Array {
  const D = tokens ?? maskSum(mask);
  const dvalues = new Float64Array(values.length);
  if (!(D > 0)) return dvalues;
  for (let n = 0; n < values.length; n++) {
    if (mask[n] === 0) continue;
    const v = values[n], old = oldValues[n], vc = clipValue(v, old, clip);
    const a = (v - returns[n]) ** 2, b = (vc - returns[n]) ** 2;
    // The larger term carries the gradient; v_clip moves with v only inside the clip range.
    const inside = Math.abs(v - old) < clip;
    const d = a >= b ? v - returns[n] : inside ? vc - returns[n] : 0;
    dvalues[n] = (mask[n] * d) / D;
  }
  return dvalues;
}

function clipValue(v: number, old: number, clip: number): number {
  return old + Math.min(Math.max(v - old, -clip), clip);
}

function maskSum(mask: ArrayLike<number>): number {
  let s = 0;
  for (let n = 0; n < mask.length; n++) s += mask[n];
  return s;
}
