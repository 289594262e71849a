// The run folder's JSON-lines logs: metrics.jsonl (one object per step: step + every metric)
// and rollouts.jsonl (one line per episode: step, prompt index, sample, tokens, mask, sampling
// log-probs, tool calls, reward parts and total, advantage, finish reason, text, and the chat
// messages as the agent loop saw them: TRL's conversational shape). Non-finite numbers are
// written as null. No file access here (the browser uses it too). Exercised by
// tests/unit/rl/rollout-log.test.ts and tests/unit/rl/rl-grpo.test.ts (files read back).
import type { ChatMessage, ToolCall } from '../agents/chat-template';
import type { EpisodeResult } from '../agents/episode-tokens';
import type { EpisodeReward } from '../envs/reward';

/** One message of the episode (OpenAI / TRL conversational: system, user, assistant with tool_calls, tool). */
export interface RolloutMessage {
  role: ChatMessage['role'];
  content: string;
  tool_calls?: ToolCall[];
  /** role tool: the tool's name. */
  name?: string;
}

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
  /** The non-system messages flattened as `role: content` lines. */
  text: string;
  /** The conversation (system prompt first). Optional when reading: logs written before it have only `text`. */
  messages?: RolloutMessage[];
}

/** A message as the log keeps it: only the fields the chat format defines, tool calls copied. */
function rolloutMessage(m: ChatMessage): RolloutMessage {
  return {
    role: m.role, content: m.content,
    ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ type: 'function' as const, function: { name: c.function.name, arguments: c.function.arguments } })) } : {}),
    ...(m.name !== undefined ? { name: m.name } : {}),
  };
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
    messages: e.messages.map(rolloutMessage),
  };
}

/** Rows as JSON lines (non-finite numbers as null), ending with a newline; '' for no rows. */
export function toJsonl(rows: unknown[]): string {
  if (!rows.length) return '';
  return rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))).join('\n') + '\n';
}
