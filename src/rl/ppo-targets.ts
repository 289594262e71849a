// PPO's CPU bookkeeping between the rollout pass and the updates: per-turn rewards from the env's
// breakdown placed on the loss rows (placeTurnRewards), GAE(gamma, lambda) over the trained rows
// with the rollout's values (gae_forward), then the advantages whitened over the batch's trained
// rows. Everything is from reference/ppo.ts; tested by tests/unit/rl/ppo-step.test.ts.
import type { EpisodeReward } from '../envs/reward';
import { gae_forward, placeTurnRewards } from '../reference/ppo';

export interface PpoTargetConfig {
  gamma: number;
  lambda: number;
  whiten: boolean;
}

export interface PpoTargets {
  /** Per sequence [T-1]: the advantage of each row (0 on masked rows). */
  advantages: Float32Array[];
  /** Per sequence [T-1]: the value head's targets (advantage before whitening + value). */
  returns: Float32Array[];
  /** Per sequence [T-1]: the rewards as placed. */
  rewards: Float32Array[];
}

/** Runs of mask 1 in a sequence's rows: one per assistant turn. */
function turnCount(mask: ArrayLike<number>): number {
  let n = 0;
  for (let t = 0; t < mask.length; t++) if (mask[t] !== 0 && (t + 1 === mask.length || mask[t + 1] === 0)) n++;
  return n;
}

/**
 * One reward per assistant turn: each turn's own total where the env scored turns (as many as
 * runs of mask 1), and the end-of-episode total added to the last turn; otherwise the whole
 * return on the last turn.
 */
export function turnRewards(mask: ArrayLike<number>, r: EpisodeReward): number[] {
  const k = turnCount(mask);
  if (k === 0) return [];
  const out = new Array<number>(k).fill(0);
  if (r.turns.length === k) {
    r.turns.forEach((b, i) => (out[i] = b.total));
    out[k - 1] += r.final.total;
  } else out[k - 1] = r.return;
  return out;
}

export function ppoTargets(masks: Float32Array[], values: Float32Array[], rewards: EpisodeReward[], cfg: PpoTargetConfig): PpoTargets {
  const offsets = [0];
  masks.forEach((m, s) => offsets.push(offsets[s] + m.length));
  const N = offsets[masks.length];
  const cat = (xs: ArrayLike<number>[]) => { const o = new Float64Array(N); xs.forEach((x, s) => o.set(x, offsets[s])); return o; };
  const mask = cat(masks), vals = cat(values);
  const r = placeTurnRewards(mask, offsets, masks.map((m, s) => turnRewards(m, rewards[s])));
  const g = gae_forward(r, vals, mask, offsets, cfg.gamma, cfg.lambda);
  const adv = g.advantages;
  if (cfg.whiten) {
    let n = 0, sum = 0, sq = 0;
    for (let i = 0; i < N; i++) if (mask[i]) { n++; sum += adv[i]; }
    const mean = n ? sum / n : 0;
    for (let i = 0; i < N; i++) if (mask[i]) sq += (adv[i] - mean) ** 2;
    const std = n > 1 ? Math.sqrt(sq / (n - 1)) : 0;
    for (let i = 0; i < N; i++) adv[i] = mask[i] ? (adv[i] - mean) / (std + 1e-8) : 0;
  }
  const split = (a: Float64Array) => masks.map((_, s) => Float32Array.from(a.subarray(offsets[s], offsets[s + 1])));
  return { advantages: split(adv), returns: split(g.returns), rewards: split(r) };
}
