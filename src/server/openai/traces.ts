// Trace capture: every choice of every chat completion as one JSONL record with the exact token
// ids the model saw and produced, the loss mask (1 exactly on tokens this server sampled, in this
// call or an earlier call of the same rollout) and their sampling log-probs, grouped by the
// rollout id the client sends; rewards posted to /v1/rollouts/{id}/reward go to their own file.
// Layout (a run folder): OUT/traces/calls.jsonl, OUT/traces/rewards.jsonl. Read back by
// src/server/openai/trace-episodes.ts for training. Tested by tests/unit/server/serve-openai.test.ts.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '../../agents/chat-template';

export const TRACE_VERSION = 1;
export const CALLS_FILE = 'calls.jsonl';
export const REWARDS_FILE = 'rewards.jsonl';

/** Where the prompt's tokens stopped matching the stored tokens of the rollout. */
export interface Divergence {
  /** First token index where the re-tokenised history differs from what the model saw. */
  token: number;
  reason: string;
}

export interface CallRecord {
  kind: 'call';
  version: number;
  rollout_id: string;
  task_id: string | null;
  call_id: string;
  choice: number;
  created: number;
  model: string;
  temperature: number;
  top_p: number;
  /** Prompt + completion, the stop token included. */
  tokens: number[];
  /** [tokens] 1 where the token was sampled by this server (this call or an earlier one). */
  mask: number[];
  /** [tokens] sampling log-prob where mask is 1, else null. */
  logprobs: (number | null)[];
  prompt_length: number;
  finish_reason: string;
  /** The prompt continued the rollout's stored tokens (no re-tokenisation). */
  token_faithful: boolean;
  diverged: Divergence | null;
  messages: ChatMessage[];
  response: ChatMessage;
}

export interface RewardRecord {
  kind: 'reward';
  version: number;
  rollout_id: string;
  created: number;
  /** The rollout's return: the scalar sent, or the sum of the per-turn rewards. */
  reward: number;
  /** Per call (turn) in call order, when the client sent a list. */
  per_turn: number[] | null;
}

export interface TraceStoreOptions {
  /** Run folder; traces go to DIR/traces/. Null keeps them in memory only (tests of other parts). */
  dir: string | null;
  /** Rollouts kept in memory for multi-turn matching (oldest dropped first; files keep all). */
  maxRollouts?: number;
}

export class TraceStore {
  readonly dir: string | null;
  private readonly rollouts = new Map<string, CallRecord[]>();
  private readonly maxRollouts: number;
  /** Call records stored (for /health and the load script's "no lost trace" check). */
  written = 0;

  constructor(opts: TraceStoreOptions) {
    this.dir = opts.dir ? join(opts.dir, 'traces') : null;
    this.maxRollouts = opts.maxRollouts ?? 2000;
    if (this.dir) mkdirSync(this.dir, { recursive: true });
  }

  /** Calls of a rollout so far, oldest first. */
  calls(rolloutId: string): readonly CallRecord[] {
    return this.rollouts.get(rolloutId) ?? [];
  }

  add(records: CallRecord[]): void {
    if (!records.length) return;
    const id = records[0].rollout_id;
    const list = this.rollouts.get(id) ?? [];
    this.rollouts.delete(id); // re-insert: the map's order is least recently used first
    this.rollouts.set(id, list.concat(records));
    while (this.rollouts.size > this.maxRollouts) this.rollouts.delete(this.rollouts.keys().next().value as string);
    this.append(CALLS_FILE, records);
    this.written += records.length;
  }

  reward(rolloutId: string, value: number | number[]): RewardRecord {
    const perTurn = Array.isArray(value) ? value : null;
    const rec: RewardRecord = {
      kind: 'reward', version: TRACE_VERSION, rollout_id: rolloutId, created: Date.now() / 1000,
      reward: perTurn ? perTurn.reduce((a, b) => a + b, 0) : (value as number), per_turn: perTurn,
    };
    this.append(REWARDS_FILE, [rec]);
    return rec;
  }

  private append(file: string, rows: object[]): void {
    if (this.dir) appendFileSync(join(this.dir, file), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
}
