// Loads the GRPO goldens (tests/fixtures/goldens/rl_goldens.json, scripts/make_rl_goldens.py) and
// flattens the ragged per-sequence arrays into packed token rows [N] with sequence offsets [S+1].
// Used by grpo-reference.test.ts and grpo-gpu.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveGrpoLoss, type GrpoLossConfig, type LossAggregation } from '../../../src/reference/grpo_loss';
import type { KlEstimator } from '../../../src/reference/kl';
import type { AdvantageScaling } from '../../../src/rl/advantages';

export interface GoldenCase {
  aggregation: LossAggregation;
  kl: KlEstimator | null;
  beta: number;
  entropy_coef: number;
  old_is_logp: boolean;
  loss: number;
  metrics: Record<string, number>;
  dlogp: number[][];
  dentropy: number[][];
}

export interface MicroCase {
  aggregation: LossAggregation;
  kl: KlEstimator;
  beta: number;
  entropy_coef: number;
  micro_batches: [number, number][];
  loss: number;
  dlogp: number[][];
  dentropy: number[][];
}

export interface RlGoldens {
  magic: string;
  version: number;
  regenerate: string;
  config: { group_size: number; epsilon_low: number; epsilon_high: number; beta: number; max_completion_length: number };
  batch: {
    rewards: number[];
    prompt_rows: number[];
    truncated: boolean[];
    logp: number[][]; old_logp: number[][]; ref_logp: number[][]; entropy: number[][];
    mask: number[][]; loss_mask: number[][];
  };
  advantages: Record<AdvantageScaling, { advantages: number[]; group_std: number[]; zero_std: number[]; frac_reward_zero_std: number; kept_when_filtered: number[] }>;
  cases: GoldenCase[];
  micro: MicroCase[];
}

export function loadRlGoldens(): RlGoldens {
  const g = JSON.parse(readFileSync(join(__dirname, '../../fixtures/goldens/rl_goldens.json'), 'utf8')) as RlGoldens;
  if (g.magic !== 'rlstudio-rl-goldens' || g.version !== 1) {
    throw new Error(`rl_goldens.json: magic ${g.magic} version ${g.version}; regenerate with ${g.regenerate}`);
  }
  return g;
}

/** Ragged rows [S][T_s] -> flat [N] (f64). */
export function flat(rows: number[][]): Float64Array {
  return Float64Array.from(rows.flat());
}

/** [S+1] row offsets of ragged rows. */
export function offsetsOf(rows: number[][]): Uint32Array {
  const o = new Uint32Array(rows.length + 1);
  rows.forEach((r, s) => { o[s + 1] = o[s] + r.length; });
  return o;
}

/** The loss config of a golden case. */
export function caseConfig(g: RlGoldens, c: { aggregation: LossAggregation; kl: KlEstimator | null; beta: number; entropy_coef: number }): GrpoLossConfig {
  return resolveGrpoLoss({
    epsilonLow: g.config.epsilon_low, epsilonHigh: g.config.epsilon_high, beta: c.beta,
    klEstimator: c.kl ?? 'k3', entropyCoef: c.entropy_coef, aggregation: c.aggregation,
    maxCompletionLength: g.config.max_completion_length,
  });
}

/** max |a - b| / max |b| (b the float64 golden); maxAbsDiff when b is all zero. */
export function relDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`relDiff: lengths differ (${a.length} vs ${b.length})`);
  let d = 0, s = 0;
  for (let i = 0; i < a.length; i++) {
    d = Math.max(d, Math.abs(a[i] - b[i]));
    s = Math.max(s, Math.abs(b[i]));
  }
  return s > 0 ? d / s : d;
}
