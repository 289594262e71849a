// Hooks a training run calls around each step, for custom rewards and logging:
// on_rollout_start (before sampling), on_rollout_end (episodes and rewards; may rewrite the
// rewards, e.g. add a custom term), on_step_end (the step's metrics). Several hook sets compose
// in order. Exercised by tests/unit/rl/rl-grpo.test.ts (a custom reward term and a metrics sink).
import type { EpisodeResult } from '../agents/episode-tokens';
import type { Task } from '../data/schemas';
import type { EpisodeReward } from '../envs/reward';

export interface RolloutStartInfo {
  step: number;
  tasks: Task[];
}

export interface RolloutEndInfo {
  step: number;
  tasks: Task[];
  episodes: EpisodeResult[];
  /** One per episode, in episode order; a hook may replace entries (custom rewards). */
  rewards: EpisodeReward[];
}

export interface StepEndInfo {
  step: number;
  metrics: Record<string, number>;
}

export interface RlHooks {
  on_rollout_start?(info: RolloutStartInfo): void | Promise<void>;
  on_rollout_end?(info: RolloutEndInfo): void | Promise<void>;
  on_step_end?(info: StepEndInfo): void | Promise<void>;
}

/** One hook set calling each of `sets` in order. */
export function composeHooks(...sets: (RlHooks | undefined)[]): Required<RlHooks> {
  const list = sets.filter((s): s is RlHooks => !!s);
  return {
    async on_rollout_start(i) { for (const h of list) await h.on_rollout_start?.(i); },
    async on_rollout_end(i) { for (const h of list) await h.on_rollout_end?.(i); },
    async on_step_end(i) { for (const h of list) await h.on_step_end?.(i); },
  };
}

/** A hook adding `fn(episode, task)` as reward part `name` (weight `weight`) to every episode's return. */
export function customReward(name: string, weight: number, fn: (e: EpisodeResult, task: Task) => number): RlHooks {
  return {
    on_rollout_end(info) {
      const G = info.episodes.length / Math.max(1, info.tasks.length);
      info.rewards = info.rewards.map((r, i) => {
        const v = fn(info.episodes[i], info.tasks[Math.floor(i / G)]);
        if (!Number.isFinite(v)) throw new Error(`custom reward "${name}" returned ${v} for episode ${i}; return a finite number`);
        return { ...r, return: r.return + weight * v, parts: { ...r.parts, [name]: v } };
      });
    },
  };
}
