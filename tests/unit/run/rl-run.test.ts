// Small pieces of the RL run without a GPU: rejection / reward-weighted episode weights, the
// progress line (with the zero-variance note), custom reward hooks, JSON lines with non-finite
// numbers. Run: npx vitest run tests/unit/run/rl-run.test.ts
import { describe, expect, it } from 'vitest';
import type { EpisodeResult } from '../../../src/agents/episode-tokens';
import type { EpisodeReward } from '../../../src/envs/reward';
import { composeHooks, customReward, type RolloutEndInfo } from '../../../src/rl/hooks';
import { toJsonl } from '../../../src/rl/rollout-log';
import { progressLine } from '../../../src/run/rl-run';
import { episodeWeights } from '../../../src/rl/rw-trainer';

describe('RL run pieces', () => {
  it('weights episodes for rejection sampling and reward-weighted fine-tuning', () => {
    expect(episodeWeights([0, 1, 0.5, 2], 'rejection_sampling', 1)).toEqual([0, 1, 0, 1]);
    expect(episodeWeights([0, 1, 0.5, 2], 'reward_weighted', 0.5)).toEqual([0, 0.5, 0.25, 1]);
    expect(episodeWeights([-1, -2], 'reward_weighted', -5)).toEqual([0, 0]);
  });

  it('prints a progress line that explains a zero loss', () => {
    const line = progressLine(3, 10, { reward: 0.5, reward_std: 0, loss: 0, grad_norm: 0, learning_rate: 1e-4, frac_reward_zero_std: 1, 'completions/mean_length': 12, step_time: 2 }, 2, 'loss 0, no update: every group had zero reward variance');
    console.log(line);
    expect(line).toMatch(/^step 3\/10 \[######-+\] reward 0\.500 ±0\.000 loss 0\.0000 grad 0\.000 lr 1\.0e-4 zero-std 1\.00 len 12\.0 2\.0s eta 14s\n {2}loss 0, no update/);
  });

  it('adds a custom reward part to every episode through on_rollout_end', async () => {
    const ep = (n: number) => ({ tokens: new Array<number>(n).fill(5) }) as unknown as EpisodeResult;
    const rw = (v: number): EpisodeReward => ({ final: { parts: { correctness: v }, total: v }, turns: [], return: v, parts: { correctness: v } });
    const info: RolloutEndInfo = { step: 0, tasks: [{ task_id: 't', metadata: {}, question: 'q', answer: '1' }], episodes: [ep(3), ep(5)], rewards: [rw(1), rw(0)] };
    await composeHooks(customReward('length', 0.1, (e) => e.tokens.length)).on_rollout_end(info);
    expect(info.rewards.map((r) => r.return)).toEqual([1 + 0.1 * 3, 0.1 * 5]);
    expect(info.rewards[1].parts).toEqual({ correctness: 0, length: 5 });
    await expect(composeHooks(customReward('bad', 1, () => NaN)).on_rollout_end(info)).rejects.toThrow('custom reward "bad" returned NaN');
  });

  it('writes non-finite numbers as null in JSON lines', () => {
    expect(toJsonl([{ a: NaN, b: [1, Infinity] }, { c: 2 }])).toBe('{"a":null,"b":[1,null]}\n{"c":2}\n');
    expect(toJsonl([])).toBe('');
  });

});
