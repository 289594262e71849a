// Held-out evaluation, separate from training: k samples per task (greedy when k = 1 and the
// temperature is 0) through the same agent loop and environment, graded by the env. A sample is
// correct when its `correctness` part (story: `mentions`) is 1. Reports eval/accuracy (mean over
// samples), eval/pass@k (share of tasks with a correct sample), eval/reward, the tool and turn
// figures of the episodes (tools/call_frequency, tools/failure_frequency, num_turns/mean,
// eval/malformed_call_rate) and, when tasks carry a `family`, eval/accuracy/{family}.
// Tested by tests/unit/ort/ort-engine.test.ts and tests/unit/rl/rl-grpo.test.ts; run by `npm run cli -- eval`.
import type { Task } from '../data/schemas';
import type { EpisodeReward } from '../envs/reward';
import { rolloutStats } from '../agents/stats';
import type { EpisodeResult } from '../agents/episode-tokens';
import { groupAccuracyName, passAtKName } from '../metrics/names';
import { collectRollouts, type AnyRolloutContext } from './rollouts';

export function isCorrect(r: EpisodeReward): boolean {
  const v = r.final.parts.correctness ?? r.final.parts.mentions;
  return v !== undefined && v >= 1 - 1e-9;
}

export interface EvalResult {
  metrics: Record<string, number>;
  /** Per task: how many of its k samples were correct. */
  correct: number[];
  /** Every episode, task-major (task t's samples at t*k .. t*k + k - 1). */
  episodes: EpisodeResult[];
  /** Each episode's reward, in the order of `episodes`. */
  rewards: EpisodeReward[];
}

export async function evaluate(ctx: AnyRolloutContext, tasks: Task[], k: number, temperature: number, onProgress?: (done: number, total: number) => void): Promise<EvalResult> {
  const B = ctx.cfg.rollout.batch_size;
  const correct: number[] = [];
  const episodes: EpisodeResult[] = [];
  const rewards: EpisodeReward[] = [];
  let reward = 0;
  for (let i = 0; i < tasks.length; i += B) {
    const chunk = tasks.slice(i, i + B);
    // temperature 0: greedy (the agent config accepts 0 for eval).
    const r = await collectRollouts(ctx, chunk, 1_000_000 + i, { G: k, temperature });
    episodes.push(...r.episodes);
    rewards.push(...r.rewards);
    chunk.forEach((_, t) => {
      let c = 0;
      for (let s = 0; s < k; s++) {
        const rw = r.rewards[t * k + s];
        c += isCorrect(rw) ? 1 : 0;
        reward += rw.return;
      }
      correct.push(c);
    });
    onProgress?.(Math.min(tasks.length, i + B), tasks.length);
  }
  const n = Math.max(1, tasks.length);
  const metrics: Record<string, number> = {
    'eval/accuracy': correct.reduce((a, c) => a + c, 0) / (n * k),
    'eval/reward': reward / (n * k),
  };
  metrics[passAtKName(k)] = correct.filter((c) => c > 0).length / n;
  const stats = rolloutStats(episodes, { rolloutMs: 0, idleMs: 0, steps: 0 });
  for (const name of ['tools/call_frequency', 'tools/failure_frequency', 'num_turns/mean'] as const) metrics[name] = stats[name];
  metrics['eval/malformed_call_rate'] = episodes.filter((e) => e.toolCalls.some((c) => c.args === null)).length / Math.max(1, episodes.length);
  const groups = new Map<string, number[]>();
  tasks.forEach((t, i) => {
    const family = (t as { family?: unknown }).family;
    if (typeof family === 'string') groups.set(family, [...(groups.get(family) ?? []), correct[i]]);
  });
  for (const [g, cs] of groups) metrics[groupAccuracyName(g)] = cs.reduce((a, c) => a + c, 0) / (cs.length * k);
  return { metrics, correct, episodes, rewards };
}
