// Advantages from scalar rewards grouped by prompt. GRPO as TRL computes them: (r - group mean) /
// (std + 1e-4), std unbiased (torch.std), of the group or the batch, or no division (Dr. GRPO);
// RLOO: r minus the mean of the other G-1 rewards; REINFORCE++: batch-normalised (optionally
// after a group baseline). Flags zero-variance groups and can drop them (DAPO dynamic sampling).
// Checked against PyTorch goldens by tests/unit/reference/grpo-reference.test.ts and ppo-reference.test.ts.
import { METRIC, rewardMeanName, rewardStdName, summarize } from '../metrics/names';

/** `group`: divide by the group's std; `batch`: by the whole batch's std; `none`: no division. */
export type AdvantageScaling = 'group' | 'batch' | 'none';

/**
 * `grpo`: group mean subtracted, divided as `scaling` says; `rloo`: r_i - mean of the other G-1
 * rewards of its group (= G/(G-1) (r_i - group mean)); `reinforce_pp`: (r - batch mean) / (batch
 * std + 1e-4), REINFORCE++ with its global normalisation; `reinforce_pp_baseline`: group mean
 * subtracted first, then normalised by the batch std of the result (OpenRLHF's variant). Every
 * statistic is per completion; `scaling` applies to `grpo` only.
 */
export type AdvantageEstimator = 'grpo' | 'rloo' | 'reinforce_pp' | 'reinforce_pp_baseline';
export const ADVANTAGE_ESTIMATORS: readonly AdvantageEstimator[] = ['grpo', 'rloo', 'reinforce_pp', 'reinforce_pp_baseline'];

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
  /** Default `grpo`. */
  estimator?: AdvantageEstimator;
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
  const advantages = estimate(rewards, groupMean, groupStd, batchStd, opts);
  const kept: number[] = [];
  for (let i = 0; i < rewards.length; i++) if (!opts.filterZeroStd || !zeroStd[Math.floor(i / G)]) kept.push(i);
  let nZero = 0;
  for (let b = 0; b < B; b++) nZero += zeroStd[b];
  return { advantages, groupMean, groupStd, batchStd, zeroStd, fracRewardZeroStd: nZero / B, kept };
}

function estimate(rewards: ArrayLike<number>, groupMean: Float64Array, groupStd: Float64Array, batchStd: number, opts: AdvantageOptions): Float64Array {
  const G = opts.groupSize, n = rewards.length;
  const out = new Float64Array(n);
  const estimator = opts.estimator ?? 'grpo';
  switch (estimator) {
    case 'grpo':
      for (let i = 0; i < n; i++) {
        const b = Math.floor(i / G);
        const std = opts.scaling === 'group' ? groupStd[b] : batchStd;
        out[i] = opts.scaling === 'none' ? rewards[i] - groupMean[b] : (rewards[i] - groupMean[b]) / (std + ADVANTAGE_STD_EPS);
      }
      return out;
    case 'rloo':
      if (G < 2) throw new Error(`computeAdvantages: rloo needs groupSize >= 2 (the baseline is the other completions of the group), got ${G}`);
      for (let i = 0; i < n; i++) {
        const b = Math.floor(i / G);
        const others = (groupMean[b] * G - rewards[i]) / (G - 1);
        out[i] = rewards[i] - others;
      }
      return out;
    case 'reinforce_pp': {
      let mean = 0;
      for (let i = 0; i < n; i++) mean += rewards[i];
      mean /= n;
      for (let i = 0; i < n; i++) out[i] = (rewards[i] - mean) / (batchStd + ADVANTAGE_STD_EPS);
      return out;
    }
    case 'reinforce_pp_baseline': {
      for (let i = 0; i < n; i++) out[i] = rewards[i] - groupMean[Math.floor(i / G)];
      let mean = 0;
      for (let i = 0; i < n; i++) mean += out[i];
      mean /= n;
      const std = unbiasedStd(out);
      for (let i = 0; i < n; i++) out[i] = (out[i] - mean) / (std + ADVANTAGE_STD_EPS);
      return out;
    }
    default:
      throw new Error(`computeAdvantages: unknown estimator "${String(estimator)}"; use one of ${ADVANTAGE_ESTIMATORS.join(', ')}`);
  }
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
