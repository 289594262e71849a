// Reward arithmetic shared by every environment: weight tables (defaults + overrides, validated
// in one place), the weighted total of a breakdown, and the episode return = the weighted
// per-turn rewards plus the weighted final reward. Tested by tests/unit/envs/env-episode.test.ts.
import type { RewardBreakdown, RewardParts, RewardWeights } from './types';

/** Defaults overridden by `overrides`; every weight must be a finite number. */
export function resolveWeights(env: string, defaults: RewardWeights, overrides: RewardWeights = {}): RewardWeights {
  const w = { ...defaults, ...overrides };
  for (const [name, v] of Object.entries(w)) {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`${env}: reward weight "${name}" must be a finite number, got ${String(v)}`);
  }
  return w;
}

/** A breakdown whose total is sum(weights[p] * parts[p]); unweighted parts count 0. */
export function weigh(parts: RewardParts, weights: RewardWeights, extra: Omit<RewardBreakdown, 'parts' | 'total'> = {}): RewardBreakdown {
  let total = 0;
  for (const [name, v] of Object.entries(parts)) {
    if (!Number.isFinite(v)) throw new Error(`reward part "${name}" is ${v}; environments must return finite numbers`);
    total += (weights[name] ?? 0) * v;
  }
  return { parts, total, ...extra };
}

export interface EpisodeReward {
  /** The end-of-episode breakdown. */
  final: RewardBreakdown;
  /** One weighted breakdown per assistant turn. */
  turns: RewardBreakdown[];
  /** What GRPO uses: sum of the turns' totals plus the final total. */
  return: number;
  /** Every part summed over turns and the end, for `rewards/{part}/mean` logs. */
  parts: RewardParts;
}

export function episodeReturn(turns: RewardBreakdown[], final: RewardBreakdown): EpisodeReward {
  const parts: RewardParts = {};
  let ret = final.total;
  for (const b of [...turns, final]) {
    for (const [k, v] of Object.entries(b.parts)) parts[k] = (parts[k] ?? 0) + v;
  }
  for (const t of turns) ret += t.total;
  return { final, turns, return: ret, parts };
}
