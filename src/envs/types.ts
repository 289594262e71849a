// The interface every RL environment implements (math, code_exec, search_qa and user-written ones)
// and the reward types the trainer logs. An episode: reset = initialMessages(task) (+ tools() into
// the episode's ToolRegistry), step = onTurn(...) after each assistant turn and its tool calls,
// reward = finalReward(...) at the end. The agent loop drives it through src/envs/episode-steps.ts.
// Exercised by tests/unit/envs/env-*.test.ts; documented with a worked example in docs/envs.md.
import type { ChatMessage } from '../agents/chat-template';
import type { Tool, ToolCallResult } from '../tools/registry';
import type { Task } from '../data/schemas';

/**
 * Named reward components of one turn or of the episode's end, each a number (usually in [0, 1];
 * penalties may be negative). Built-in names: `correctness`, `format`, `tool_use`, and per turn
 * `tool_errors`. Parts with weight 0 are still logged (e.g. `em` and `f1` of search_qa).
 */
export type RewardParts = Record<string, number>;

/** Weight of each part in the total; parts without a weight count 0 (logged only). */
export type RewardWeights = Record<string, number>;

export interface RewardBreakdown {
  parts: RewardParts;
  /** sum over parts of weights[part] * parts[part]. */
  total: number;
  /** What was graded (the extracted answer or code), for logs and the UI. */
  extracted?: string;
  /** Why a part scored as it did (e.g. "SyntaxError: invalid syntax", "no \\boxed{} answer"). */
  notes?: string[];
}

/**
 * One tool-call block of a turn as the agent loop ran it: the registry's result plus the call.
 * Same shape as src/agents/loop.ts `ToolResult`, so the loop's hook passes its results as they are.
 */
export interface TurnToolResult extends ToolCallResult {
  /** The tool's name ('' when the block could not be read). */
  name: string;
  /** The parsed arguments; null when the block did not parse (malformed JSON, no closing tag). */
  args: Record<string, unknown> | null;
}

/**
 * Per-episode bookkeeping shared by the loop and the environment. The loop creates it with
 * createEpisodeState() and episode-steps.ts updates it; environments may keep their own data in `data`.
 */
export interface EpisodeState {
  episodeId: string;
  /** Assistant turns seen so far (1 after the first onTurn). */
  turn: number;
  /** Every tool-call block of the episode, in order (malformed ones included, args null). */
  toolCalls: TurnToolResult[];
  /** Malformed <tool_call> blocks (not JSON, no name, unclosed) seen so far. */
  malformedCalls: number;
  /** Weighted per-turn rewards, one per turn (empty parts when the env gives none). */
  turnRewards: RewardBreakdown[];
  /** Cancels sandbox runs and searches made for this episode. */
  signal?: AbortSignal;
  /** Free space for the environment (e.g. code_exec caches test runs here). */
  data: Record<string, unknown>;
}

/** What a turn may return: a per-turn reward, the end of the episode, messages to append. */
export interface TurnOutcome {
  reward?: RewardParts;
  /** End the episode now (the loop also ends it at its own limits). */
  done?: boolean;
  /** Messages to append before the next assistant turn (e.g. failing tests as a user message). */
  feedback?: ChatMessage[];
}

export interface Environment<T extends Task = Task> {
  /** Registry name, e.g. "math". */
  readonly name: string;
  /** Weights of the reward parts (per-turn and final parts share one table). */
  readonly weights: RewardWeights;
  /** Tools to register into the episode's ToolRegistry (may be empty). */
  tools(): Tool[];
  /** The system message text for this task, without the `# Tools` block (the registry appends it). */
  systemPrompt(task: T): string;
  /** reset: the conversation the first assistant turn continues (system + user). */
  initialMessages(task: T): ChatMessage[];
  /** step: called after each assistant turn, once its tool calls have run. */
  onTurn?(task: T, state: EpisodeState, assistantText: string, toolResults: TurnToolResult[]): Promise<TurnOutcome> | TurnOutcome;
  /** reward: the end-of-episode reward from the whole transcript (initial messages included). */
  finalReward(task: T, state: EpisodeState, transcript: ChatMessage[]): Promise<RewardBreakdown>;
}
