// The `search_qa` environment (SQuAD style): the model searches (the offline BM25 corpus or the
// web, through one `search` tool) and answers inside <answer>...</answer>. Final parts:
// correctness (F1 or EM, configurable), em and f1 (SQuAD v1.1 definitions, max over the gold
// answers), format (an <answer> tag), tool_use (a search ran). Tested by tests/unit/envs/env-search.test.ts.
import type { ChatMessage } from '../../agents/chat-template';
import type { SearchQaTask } from '../../data/schemas';
import { searchTool } from '../../tools/search-tool';
import type { SearchBackend } from '../../tools/search/types';
import type { Tool } from '../../tools/registry';
import { resolveWeights, weigh } from '../reward';
import { defaultTurnOutcome, lastAssistantText, stripToolCalls } from '../transcript';
import type { Environment, EpisodeState, RewardBreakdown, RewardWeights, TurnToolResult } from '../types';
import { exactMatch, f1Score, maxOverGolds } from './squad-metrics';

export interface SearchQaEnvConfig {
  /** Which score is `correctness`: token F1 or exact match (both are always logged as f1 / em). */
  correctness: 'f1' | 'em';
  /** Results returned per search call. */
  k: number;
  /** tool_use part: "searched" gives 1 when at least one search ran, "off" leaves the part out. */
  toolUse: 'searched' | 'off';
  /** Replaces the built-in system prompt when set. */
  systemPrompt?: string;
  /** Weights of correctness, em, f1, format, tool_use and the per-turn tool_errors. */
  weights: RewardWeights;
}

export const defaultSearchQaEnvConfig: SearchQaEnvConfig = {
  correctness: 'f1',
  k: 3,
  toolUse: 'searched',
  weights: { correctness: 1, em: 0, f1: 0, format: 0.1, tool_use: 0.1, tool_errors: -0.1 },
};

export interface SearchQaEnvOptions {
  /** CorpusSearch over datasets/squad_corpus.jsonl, or the web through the proxy client. */
  backend: SearchBackend;
  config?: Partial<Omit<SearchQaEnvConfig, 'weights'>> & { weights?: RewardWeights };
}

/** The graded answer: the last <answer>...</answer>, else "the answer is X" / "Answer: X", else the whole message. */
export function extractQaAnswer(message: string): { value: string; tagged: boolean } {
  const text = stripToolCalls(message);
  const tags = [...text.matchAll(/<answer>([\s\S]*?)<\/answer>/gi)];
  if (tags.length) return { value: tags[tags.length - 1][1].trim(), tagged: true };
  const said = [...text.matchAll(/\banswer\s*(?:is|:)\s*:?\s*([^\n]+)/gi)];
  if (said.length) return { value: said[said.length - 1][1].trim().replace(/\.$/, ''), tagged: false };
  return { value: text.trim(), tagged: false };
}

export class SearchQaEnv implements Environment<SearchQaTask> {
  readonly name = 'search_qa';
  readonly config: SearchQaEnvConfig;
  readonly weights: RewardWeights;
  private readonly toolList: Tool[];

  constructor(opts: SearchQaEnvOptions) {
    const { weights, ...rest } = opts.config ?? {};
    this.config = { ...defaultSearchQaEnvConfig, ...rest, weights: resolveWeights('search_qa', defaultSearchQaEnvConfig.weights, weights) };
    this.weights = this.config.weights;
    const c = this.config;
    if (c.correctness !== 'f1' && c.correctness !== 'em') throw new Error(`search_qa: correctness must be f1 or em, got "${c.correctness}"`);
    if (c.toolUse !== 'searched' && c.toolUse !== 'off') throw new Error(`search_qa: toolUse must be searched or off, got "${c.toolUse}"`);
    if (!Number.isInteger(c.k) || c.k < 1 || c.k > 20) throw new Error(`search_qa: k must be an integer in [1, 20], got ${c.k}`);
    if (!opts.backend) throw new Error('search_qa: a search backend is required; pass { backend: new CorpusSearch(docs) } or the web client');
    this.toolList = [searchTool(opts.backend, { k: c.k })];
  }

  tools(): Tool[] {
    return this.toolList;
  }

  systemPrompt(_task: SearchQaTask): string {
    if (this.config.systemPrompt !== undefined) return this.config.systemPrompt;
    return 'Answer the question. Use the search tool to find the facts you need, then give a short answer (a few words, no sentence) inside <answer></answer>.';
  }

  initialMessages(task: SearchQaTask): ChatMessage[] {
    return [
      { role: 'system', content: this.systemPrompt(task) },
      { role: 'user', content: task.question },
    ];
  }

  onTurn(_task: SearchQaTask, _state: EpisodeState, assistantText: string, toolResults: TurnToolResult[]) {
    return defaultTurnOutcome(assistantText, toolResults);
  }

  /** Grades one final message given how many searches ran. */
  grade(task: SearchQaTask, finalText: string, searches: number): RewardBreakdown {
    const { value, tagged } = extractQaAnswer(finalText);
    const em = value ? maxOverGolds(exactMatch, value, task.answers) : 0;
    const f1 = value ? maxOverGolds(f1Score, value, task.answers) : 0;
    const parts: Record<string, number> = { correctness: this.config.correctness === 'em' ? em : f1, em, f1, format: tagged ? 1 : 0 };
    if (this.config.toolUse === 'searched') parts.tool_use = searches > 0 ? 1 : 0;
    const notes = value ? [] : ['empty answer'];
    if (!tagged) notes.push('no <answer> tag');
    return weigh(parts, this.weights, { extracted: value, notes });
  }

  async finalReward(task: SearchQaTask, state: EpisodeState, transcript: ChatMessage[]): Promise<RewardBreakdown> {
    const searches = state.toolCalls.filter((c) => c.name === 'search' && c.ok).length;
    return this.grade(task, lastAssistantText(transcript), searches);
  }
}
