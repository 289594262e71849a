// The `agent` environment of the shipped default agent: two task families behind one prompt and
// two tools. calculator = an arithmetic word problem (right move: run it with the python tool),
// lookup = a question on the fictional-entity corpus (right move: the search tool). The answer
// goes in <answer></answer>. Final parts: correctness (numeric match / normalised exact match),
// format (an <answer> tag), tool_use (the family's tool ran). Tested by tests/unit/tooling/agent-data.test.ts and tests/unit/export/export-trl-rewards.test.ts.
import type { ChatMessage } from '../../agents/chat-template';
import type { AgentFamily, AgentTask } from '../../data/schemas';
import { pythonTool, type PythonRunner } from '../../tools/python-tool';
import { searchTool } from '../../tools/search-tool';
import type { SearchBackend } from '../../tools/search/types';
import type { Tool } from '../../tools/registry';
import { answersMatch } from '../math/answer';
import { resolveWeights, weigh } from '../reward';
import { exactMatch } from '../search/squad-metrics';
import { extractQaAnswer } from '../search/env';
import { defaultTurnOutcome, lastAssistantText } from '../transcript';
import type { Environment, EpisodeState, RewardBreakdown, RewardWeights, TurnToolResult } from '../types';

export interface AgentEnvConfig {
  /** Search results returned per call (1 keeps the context short for the tiny model). */
  k: number;
  /** Each result's sentences sharing the most query words first (the asked fact leads the result). */
  relevant_sentences_first: boolean;
  /** Replaces the built-in system prompt when set. */
  systemPrompt?: string;
  /** Weights of correctness, format, tool_use and the per-turn tool_errors. */
  weights: RewardWeights;
}

export const defaultAgentEnvConfig: AgentEnvConfig = {
  k: 1,
  relevant_sentences_first: true,
  weights: { correctness: 1, format: 0.1, tool_use: 0.1, tool_errors: -0.1 },
};

/** The system prompt the SFT traces were written with (the shipped model expects it). */
export const AGENT_SYSTEM_PROMPT = 'Call a tool, then give the answer inside <answer></answer>.';

/** Tool descriptions as the shipped traces show them. */
export const AGENT_TOOL_DESCRIPTIONS = { python: 'Run Python code and print the result', search: 'Search the fact corpus' } as const;

/** Which tool each family needs. */
export const FAMILY_TOOL: Record<AgentFamily, 'python' | 'search'> = { calculator: 'python', lookup: 'search' };

export interface AgentEnvOptions {
  /** Runs the python tool's code (a PythonPool). */
  python: PythonRunner;
  /** The corpus search (CorpusSearch over datasets/agent_corpus.jsonl). */
  search: SearchBackend;
  config?: Partial<Omit<AgentEnvConfig, 'weights'>> & { weights?: RewardWeights };
}

export class AgentEnv implements Environment<AgentTask> {
  readonly name = 'agent';
  readonly config: AgentEnvConfig;
  readonly weights: RewardWeights;
  private readonly toolList: Tool[];

  constructor(opts: AgentEnvOptions) {
    const { weights, ...rest } = opts.config ?? {};
    this.config = { ...defaultAgentEnvConfig, ...rest, weights: resolveWeights('agent', defaultAgentEnvConfig.weights, weights) };
    this.weights = this.config.weights;
    if (!Number.isInteger(this.config.k) || this.config.k < 1 || this.config.k > 20) throw new Error(`agent: k must be an integer in [1, 20], got ${this.config.k}`);
    if (!opts.python) throw new Error('agent: a Python runner is required for the python tool; pass { python: createNodePythonPool() or createBrowserPythonPool() }');
    if (!opts.search) throw new Error('agent: a search backend is required; pass { search: new CorpusSearch(parseCorpusJsonl(datasets/agent_corpus.jsonl)) }');
    this.toolList = [
      pythonTool(opts.python, { description: AGENT_TOOL_DESCRIPTIONS.python }),
      searchTool(opts.search, { k: this.config.k, description: AGENT_TOOL_DESCRIPTIONS.search, relevantSentencesFirst: this.config.relevant_sentences_first }),
    ];
  }

  tools(): Tool[] {
    return this.toolList;
  }

  systemPrompt(_task: AgentTask): string {
    return this.config.systemPrompt ?? AGENT_SYSTEM_PROMPT;
  }

  initialMessages(task: AgentTask): ChatMessage[] {
    return [
      { role: 'system', content: this.systemPrompt(task) },
      { role: 'user', content: task.question },
    ];
  }

  onTurn(_task: AgentTask, _state: EpisodeState, assistantText: string, toolResults: TurnToolResult[]) {
    return defaultTurnOutcome(assistantText, toolResults);
  }

  /** Grades one final message given the tools that ran without error. */
  grade(task: AgentTask, finalText: string, toolsRun: readonly string[]): RewardBreakdown {
    const { value, tagged } = extractQaAnswer(finalText);
    const correct = value !== '' && (task.family === 'calculator' ? answersMatch(value, task.answer) : exactMatch(value, task.answer) === 1);
    const parts = {
      correctness: correct ? 1 : 0,
      format: tagged ? 1 : 0,
      tool_use: toolsRun.includes(FAMILY_TOOL[task.family]) ? 1 : 0,
    };
    const notes: string[] = [];
    if (!tagged) notes.push('no <answer> tag');
    if (!parts.tool_use) notes.push(`the ${FAMILY_TOOL[task.family]} tool was not used`);
    return weigh(parts, this.weights, { extracted: value, notes });
  }

  async finalReward(task: AgentTask, state: EpisodeState, transcript: ChatMessage[]): Promise<RewardBreakdown> {
    return this.grade(task, lastAssistantText(transcript), state.toolCalls.filter((c) => c.ok).map((c) => c.name));
  }
}
