// The agent loop's one typed config: defaults, one doc line per field, validation in one place
// with errors that say what to set. Read by loop.ts (runEpisodes) and gpu-rollout.ts; tested
// through tests/unit/agents/agent-turns.test.ts (validation) and the rollout tests.
import type { SamplingParams } from '../reference/sampling';

export type TruncateSide = 'left' | 'middle' | 'right';

export interface AgentLoopConfig {
  /** 'async': every episode has a slot and keeps generating while others wait on tools; 'sync': one episode at a time (debugging). */
  mode: 'async' | 'sync';
  /** G: episodes sampled per prompt (episode index = prompt * G + sample). */
  samplesPerPrompt: number;
  /** Assistant turns per episode; a turn that still calls tools after the last ends with finishReason 'max_turns'. */
  maxTurns: number;
  /** Tokens per episode, prompt included (the KV cache is sized by it); reaching it truncates the episode. */
  maxTokens: number;
  /** Tokens the model may generate in one assistant turn; reaching it without a stop id truncates the episode. */
  maxTokensPerTurn: number;
  /** Budget of one tool response's content in tokens (verl: 256); the cut marker comes on top. */
  toolResponseMaxTokens: number;
  /** What a long tool response keeps: 'left' its beginning, 'right' its end, 'middle' both ends. */
  toolResponseTruncateSide: TruncateSide;
  /** Per-call timeout in milliseconds: the call is aborted and the model reads a timeout error. */
  toolTimeoutMs: number;
  /** Sampling temperature (0: greedy). */
  temperature: number;
  /** Top-k (0: off). */
  topK: number;
  /** Top-p (1: off). */
  topP: number;
  /** Sampling seed (u32); the step counter of the rollout is the sampler's other counter. */
  seed: number;
  /** Ids that end an assistant turn; empty: the tokenizer's and the model's EOS ids. */
  stopTokenIds: number[];
  /** Episode ids given to tools are `${episodeIdPrefix}-${episodeIndex}` (per-episode tool state). */
  episodeIdPrefix: string;
}

export const DEFAULT_AGENT_CONFIG: AgentLoopConfig = {
  mode: 'async',
  samplesPerPrompt: 1,
  maxTurns: 5,
  maxTokens: 2048,
  maxTokensPerTurn: 512,
  toolResponseMaxTokens: 256,
  toolResponseTruncateSide: 'middle',
  toolTimeoutMs: 10_000,
  temperature: 1,
  topK: 0,
  topP: 1,
  seed: 0,
  stopTokenIds: [],
  episodeIdPrefix: 'ep',
};

/** Defaults filled in and every field checked; throws naming the field and what to set. */
export function resolveAgentConfig(partial: Partial<AgentLoopConfig> = {}): AgentLoopConfig {
  const c: AgentLoopConfig = { ...DEFAULT_AGENT_CONFIG, ...partial };
  const bad = (field: keyof AgentLoopConfig, want: string): never => {
    throw new Error(`agent config: ${field} is ${JSON.stringify(c[field])}; set it to ${want}`);
  };
  const posInt = (field: keyof AgentLoopConfig) => {
    const v = c[field];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) bad(field, 'an integer >= 1');
  };
  if (c.mode !== 'async' && c.mode !== 'sync') bad('mode', '"async" or "sync"');
  (['samplesPerPrompt', 'maxTurns', 'maxTokens', 'maxTokensPerTurn', 'toolResponseMaxTokens'] as const).forEach(posInt);
  if (!['left', 'middle', 'right'].includes(c.toolResponseTruncateSide)) bad('toolResponseTruncateSide', '"left", "middle" or "right"');
  if (!(c.toolTimeoutMs > 0)) bad('toolTimeoutMs', 'a positive number of milliseconds');
  if (!(c.temperature >= 0) || !Number.isFinite(c.temperature)) bad('temperature', 'a number >= 0 (0: greedy)');
  if (!Number.isInteger(c.topK) || c.topK < 0) bad('topK', 'an integer >= 0 (0: off)');
  if (!(c.topP > 0 && c.topP <= 1)) bad('topP', 'a number in (0, 1] (1: off)');
  if (!Number.isInteger(c.seed) || c.seed < 0 || c.seed > 0xffffffff) bad('seed', 'a u32');
  if (!c.stopTokenIds.every((t) => Number.isInteger(t) && t >= 0)) bad('stopTokenIds', 'token ids (integers >= 0)');
  return c;
}

/** The sampler's parameters for rollout step `step`. */
export function samplingAt(c: AgentLoopConfig, step: number): SamplingParams {
  return { temperature: c.temperature, topK: c.topK, topP: c.topP, seed: c.seed >>> 0, step: step >>> 0 };
}
