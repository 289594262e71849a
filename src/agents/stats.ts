// Batch statistics of a rollout under the project's metric names (anchors.md section 3, TRL
// definitions: call frequency = calls per episode, failure frequency = failed calls per call),
// plus perf/ figures such as the share of rollout time the GPU sat idle waiting for tools.
// Built by loop.ts; checked in tests/unit/agents/agent-turns.test.ts and agent-gpu.test.ts.
import type { EpisodeResult } from './episode-tokens';

export interface RolloutStats {
  'tools/call_frequency': number;
  'tools/failure_frequency': number;
  'num_turns/mean': number;
  'num_turns/max': number;
  /** Share of episodes cut by a token limit. */
  'completions/clipped_ratio': number;
  /** Tokens sampled by the policy (mask 1) over the batch. */
  'perf/tokens_generated': number;
  'perf/tokens_per_s': number;
  /** Wall time with no slot able to step because every live episode waited on a tool, over the rollout time. */
  'perf/gpu_idle_fraction': number;
  'perf/gpu_idle_s': number;
  'perf/rollout_s': number;
  /** Forward steps taken (each steps every slot that had tokens to append). */
  'perf/steps': number;
}

export function rolloutStats(episodes: EpisodeResult[], timing: { rolloutMs: number; idleMs: number; steps: number }): RolloutStats {
  const n = Math.max(1, episodes.length);
  const calls = episodes.reduce((s, e) => s + e.toolCalls.length, 0);
  const failures = episodes.reduce((s, e) => s + e.toolCalls.filter((c) => !c.ok).length, 0);
  const turns = episodes.map((e) => e.turns);
  const generated = episodes.reduce((s, e) => s + e.mask.reduce<number>((a, m) => a + m, 0), 0);
  const seconds = timing.rolloutMs / 1000;
  return {
    'tools/call_frequency': calls / n,
    'tools/failure_frequency': calls ? failures / calls : 0,
    'num_turns/mean': turns.reduce((a, b) => a + b, 0) / n,
    'num_turns/max': turns.length ? Math.max(...turns) : 0,
    'completions/clipped_ratio': episodes.filter((e) => e.truncated).length / n,
    'perf/tokens_generated': generated,
    'perf/tokens_per_s': seconds > 0 ? generated / seconds : 0,
    'perf/gpu_idle_fraction': timing.rolloutMs > 0 ? timing.idleMs / timing.rolloutMs : 0,
    'perf/gpu_idle_s': timing.idleMs / 1000,
    'perf/rollout_s': seconds,
    'perf/steps': timing.steps,
  };
}
