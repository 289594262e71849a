// GRPO advantages from scalar rewards grouped by prompt, as TRL's GRPOTrainer computes them:
// A = (r - group mean) / (std + 1e-4), std unbiased (torch.std, Bessel), of the group or the whole
// batch; or no division (Dr. GRPO). Flags zero-variance groups and can drop them (DAPO dynamic
// sampling). Exercised by tests/unit/grpo-reference.test.ts against the PyTorch goldens.
import { METRIC, rewardMeanName, rewardStdName, summarize } from '../metrics/names';

/** `group`: divide by the group's std; `batch`: by the whole batch's std; `none`: no division. */
export type AdvantageScaling = 'group' | 'batch' | 'none';

/** Added to the std before dividing (TRL, verl). */
export const ADVANTAGE_STD_EPS = 1e-4;
/** A std at or below this counts as zero (torch.isclose(std, 0) with its default atol). */
export const ZERO_STD_ATOL = 1e-8;

export interface AdvantageResult {
  /** [B*G] one advantage per completion, in the rewards' order. */
  advantages: Float64Array;
  /** [B] reward mean of each group. */
  groupMean: Float64Array;
  /** [B] unbiased reward std of each group (0 when G = 1). */
  groupStd: Float64Array;
  /** Unbiased reward std over the whole batch (the divisor in `batch` scaling). */
  batchStd: number;
  /** [B] 1 where the group's rewards are all equal: those completions carry no gradient. */
  zeroStd: Uint8Array;
  /** Share of groups with zero std: the `frac_reward_zero_std` metric. */
  fracRewardZeroStd: number;
  /** Completion indices kept: all, or those of groups with non-zero std when filtering. */
  kept: number[];
}

export interface AdvantageOptions {
  /** G: completions per prompt; rewards [B*G] hold group b at b*G .. b*G+G-1. */
  groupSize: number;
  scaling: AdvantageScaling;
  /** Drop the completions of zero-variance groups from `kept` (advantages are still returned for all). */
  filterZeroStd?: boolean;
}

/** Unbiased std of values[from..to) (0 for fewer than two values). */
export function unbiasedStd(values: ArrayLike<number>, from = 0, to = values.length): number {
  const n = to - from;
  if (n < 2) return 0;
  let mean = 0;
  for (let i = from; i < to; i++) mean += values[i];
  mean /= n;
  let ss = 0;
  for (let i = from; i < to; i++) ss += (values[i] - mean) ** 2;
  return Math.sqrt(ss / (n - 1));
}

/**
 * Advantages of rewards [B*G]. The mean subtracted is always the group's (TRL does the same in
 * `batch` scaling); only the divisor changes with `scaling`. Zero-std flags are per group in every
 * mode (TRL flags the batch std in `batch` mode; per group is what explains a zero loss).
 */
export function computeAdvantages(rewards: ArrayLike<number>, opts: AdvantageOptions): AdvantageResult {
  const G = opts.groupSize;
  if (!Number.isInteger(G) || G < 1) throw new Error(`computeAdvantages: groupSize must be a positive integer (completions per prompt), got ${G}`);
  if (rewards.length === 0 || rewards.length % G !== 0) {
    throw new Error(`computeAdvantages: ${rewards.length} rewards is not a non-zero multiple of groupSize ${G}; pass B*G rewards grouped by prompt`);
  }
  for (let i = 0; i < rewards.length; i++) {
    if (!Number.isFinite(rewards[i])) throw new Error(`computeAdvantages: reward ${i} is ${rewards[i]}; every completion needs a finite reward`);
  }
  const B = rewards.length / G;
  const groupMean = new Float64Array(B), groupStd = new Float64Array(B), zeroStd = new Uint8Array(B);
  for (let b = 0; b < B; b++) {
    let s = 0;
    for (let g = 0; g < G; g++) s += rewards[b * G + g];
    groupMean[b] = s / G;
    groupStd[b] = unbiasedStd(rewards, b * G, b * G + G);
    zeroStd[b] = groupStd[b] <= ZERO_STD_ATOL ? 1 : 0;
  }
  const batchStd = unbiasedStd(rewards);
  const advantages = new Float64Array(rewards.length);
  for (let i = 0; i < rewards.length; i++) {
    const b = Math.floor(i / G);
    const centred = rewards[i] - groupMean[b];
    const std = opts.scaling === 'group' ? groupStd[b] : batchStd;
    advantages[i] = opts.scaling === 'none' ? centred : centred / (std + ADVANTAGE_STD_EPS);
  }
  const kept: number[] = [];
  for (let i = 0; i < rewards.length; i++) if (!opts.filterZeroStd || !zeroStd[Math.floor(i / G)]) kept.push(i);
  let nZero = 0;
  for (let b = 0; b < B; b++) nZero += zeroStd[b];
  return { advantages, groupMean, groupStd, batchStd, zeroStd, fracRewardZeroStd: nZero / B, kept };
}

/**
 * The reward metrics of one batch: reward / reward_std of the totals, rewards/{fn}/mean|std per
 * reward function (NaN = not applicable, skipped), frac_reward_zero_std from the advantages.
 */
export function rewardMetrics(perFn: Record<string, ArrayLike<number>>, total: ArrayLike<number>, adv: AdvantageResult): Record<string, number> {
  const t = summarize(total);
  const out: Record<string, number> = {
    [METRIC.reward.name]: t.mean, [METRIC.reward_std.name]: t.std,
    [METRIC.frac_reward_zero_std.name]: adv.fracRewardZeroStd,
  };
  for (const [fn, values] of Object.entries(perFn)) {
    const s = summarize(values);
    out[rewardMeanName(fn)] = s.mean;
    out[rewardStdName(fn)] = s.std;
  }
  return out;
}
