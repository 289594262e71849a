// Rejection-sampling and reward-weighted fine-tuning on the policy's own episodes: collect B*G
// scored episodes, then SFT on the tokens the model produced (episode mask; prompt, tool output
// and teacher-forced text excluded). rejection_sampling keeps episodes with reward >= threshold;
// reward_weighted weights each episode's tokens by reward / best reward (rewards below threshold
// count 0). Tested by tests/unit/rl/rl-grpo.test.ts (one step of each).
import { computeAdvantages, rewardMetrics } from './advantages';
import type { Task } from '../data/schemas';
import type { Trainer } from '../train/trainer';
import { collectRollouts, partsByName, rolloutMetrics, type RolloutContext } from './rollouts';
import type { StepOutput } from './grpo-trainer';

/** Per-episode token weight: 0/1 (rejection) or reward / best (weighted); below threshold 0. */
export function episodeWeights(rewards: number[], mode: 'rejection_sampling' | 'reward_weighted', threshold: number): number[] {
  const best = Math.max(0, ...rewards);
  return rewards.map((r) => {
    if (!(r >= threshold)) return 0;
    if (mode === 'rejection_sampling') return 1;
    return best > 0 ? Math.max(0, r) / best : 0;
  });
}

export async function rwStep(ctx: RolloutContext & { trainer: Trainer }, tasks: Task[], step: number): Promise<StepOutput> {
  const { cfg, rt, trainer } = ctx;
  const mode = cfg.trainer === 'reward_weighted' ? 'reward_weighted' : 'rejection_sampling';
  const t0 = performance.now();
  const rollout = await collectRollouts(ctx, tasks, step);
  const totals = rollout.rewards.map((r) => r.return);
  const adv = computeAdvantages(totals, { groupSize: cfg.rollout.group_size, scaling: 'none' });
  const w = episodeWeights(totals, mode, cfg.rejection.threshold);
  const examples = rollout.episodes.map((e, i) => ({ ids: e.tokens, mask: Float32Array.from(e.mask.slice(1), (m) => m * w[i]) }))
    .filter((x) => x.mask.some((m) => m > 0));
  const metrics: Record<string, number> = { ...rewardMetrics(partsByName(rollout.rewards), totals, adv), ...rolloutMetrics(rollout) };
  let note: string | null = null, updated = false;
  const t1 = performance.now();
  if (!examples.length) {
    note = `no update: no episode reached rejection.threshold ${cfg.rejection.threshold} (best reward ${Math.max(...totals).toFixed(3)})`;
    Object.assign(metrics, { loss: 0, grad_norm: 0, learning_rate: trainer.optimizer.lr });
  } else {
    let loss = 0, gradNorm = 0, lr = 0;
    for (let ep = 0; ep < cfg.rejection.epochs; ep++) {
      const s = await trainer.sftStep(examples, cfg.grpo.micro_batch_size);
      loss += s.loss / cfg.rejection.epochs;
      gradNorm += s.gradNorm / cfg.rejection.epochs;
      lr = s.lr;
    }
    Object.assign(metrics, { loss, grad_norm: gradNorm, learning_rate: lr });
    updated = true;
  }
  const mem = rt.memory();
  Object.assign(metrics, {
    step_time: (performance.now() - t0) / 1000, 'perf/train_time': (performance.now() - t1) / 1000,
    'gpu/bytes_in_use': mem.inUse, 'gpu/peak_bytes': mem.peak,
  });
  return { metrics, rollout, advantages: w, updated, note };
}
