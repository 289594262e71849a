// The run folder's JSON-lines logs: metrics.jsonl (one object per step: step + every metric)
// and rollouts.jsonl (one line per episode: step, prompt index, sample, tokens, mask, sampling
// log-probs, tool calls, reward parts and total, advantage, finish reason, text). Non-finite
// numbers are written as null. No file access here (the browser uses it too). Exercised by tests/unit/rl/rl-grpo.test.ts (files read back).
import type { EpisodeResult } from '../agents/episode-tokens';
import type { EpisodeReward } from '../envs/reward';

export interface RolloutRecord {
  step: number;
  prompt_index: number;
  sample: number;
  task_id: string;
  tokens: number[];
  mask: number[];
  logprobs: (number | null)[];
  tool_calls: { turn: number; name: string; args: Record<string, unknown> | null; ok: boolean; error?: string; latency_ms: number; truncated: boolean }[];
  reward: { total: number; parts: Record<string, number>; final: Record<string, number>; turns: number[] };
  advantage: number | null;
  finish_reason: string;
  /** Why the episode ended with finish_reason error. */
  error?: string;
  truncated: boolean;
  num_turns: number;
  text: string;
}

const fin = (v: number): number | null => (Number.isFinite(v) ? v : null);

export function rolloutRecord(step: number, e: EpisodeResult, r: EpisodeReward, advantage: number | null, taskId: string): RolloutRecord {
  return {
    step, prompt_index: e.promptIndex, sample: e.sampleIndex, task_id: taskId,
    tokens: e.tokens, mask: e.mask, logprobs: e.logprobs.map(fin),
    tool_calls: e.toolCalls.map((c) => ({ turn: c.turn, name: c.name, args: c.args, ok: c.ok, ...(c.error ? { error: c.error } : {}), latency_ms: c.latencyMs, truncated: c.truncated })),
    reward: { total: r.return, parts: r.parts, final: r.final.parts, turns: r.turns.map((t) => t.total) },
    advantage: advantage === null ? null : fin(advantage),
    finish_reason: e.finishReason, ...(e.error ? { error: e.error } : {}), truncated: e.truncated, num_turns: e.turns,
    text: e.messages.filter((m) => m.role !== 'system').map((m) => `${m.role}: ${m.content}`).join('\n'),
  };
}

/** Rows as JSON lines (non-finite numbers as null), ending with a newline; '' for no rows. */
export function toJsonl(rows: unknown[]): string {
  if (!rows.length) return '';
  return rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))).join('\n') + '\n';
}
