// One episode's growing token sequence, kept as data: every token with its id, its loss mask (1
// only when the policy sampled it) and its sampling log-prob (NaN for prompt, teacher-forced and
// tool tokens); plus the tokens decided but not yet fed to the model. No GPU here: loop.ts drives
// it, tests/unit/agents/agent-turns.test.ts checks it against the chat template's rendering.
import type { ChatMessage } from './chat-template';

export type FinishReason = 'answer' | 'max_turns' | 'max_tokens' | 'error';

export interface ToolCallRecord {
  /** Assistant turn (1-based) that made the call. */
  turn: number;
  /** The tool's name ('' when the block could not be read). */
  name: string;
  /** The parsed arguments (null when the block did not parse). */
  args: Record<string, unknown> | null;
  ok: boolean;
  error?: string;
  latencyMs: number;
  /** Cut by the registry's character cap or by the loop's token budget. */
  truncated: boolean;
}

/** What a rollout hands to the trainer (style item 11: the RL invariants live in the data). */
export interface EpisodeResult {
  /** Index in the batch: prompt * G + sample. */
  index: number;
  promptIndex: number;
  sampleIndex: number;
  /** The id tools saw (per-episode state such as the Python namespace). */
  id: string;
  tokens: number[];
  mask: (0 | 1)[];
  /** Sampling log-prob of each token; NaN where mask is 0. */
  logprobs: number[];
  promptLength: number;
  /** Assistant turns taken. */
  turns: number;
  toolCalls: ToolCallRecord[];
  /** The last assistant turn's text (special tokens removed). */
  finalText: string;
  finishReason: FinishReason;
  /** The episode hit a token limit before its natural end. */
  truncated: boolean;
  error?: string;
  /** The conversation, for logs and the UI. */
  messages: ChatMessage[];
}

export class EpisodeTrace {
  readonly tokens: number[] = [];
  readonly mask: (0 | 1)[] = [];
  readonly logprobs: number[] = [];
  /** Start of the current assistant turn in `tokens`. */
  turnStart = 0;
  private pending: number[] = [];

  get length(): number {
    return this.tokens.length;
  }

  /** Tokens the policy did not produce (prompt, tool responses, template glue, prefills). */
  appendContext(ids: number[]): void {
    for (const id of ids) this.push(id, 0, NaN);
  }

  /** A token the policy sampled. */
  appendSampled(id: number, logprob: number): void {
    this.push(id, 1, logprob);
  }

  /** The next assistant turn starts after the tokens so far. */
  startTurn(): void {
    this.turnStart = this.tokens.length;
  }

  /** Tokens of the current assistant turn. */
  turnTokens(): number[] {
    return this.tokens.slice(this.turnStart);
  }

  /** Tokens the model has not seen yet (fed in the slot's next step). */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  takePending(): number[] {
    const p = this.pending;
    this.pending = [];
    return p;
  }

  private push(id: number, m: 0 | 1, lp: number): void {
    this.tokens.push(id);
    this.mask.push(m);
    this.logprobs.push(lp);
    this.pending.push(id);
  }
}
