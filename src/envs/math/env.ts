// The `math` environment (GSM8K style): the model reasons, may run Python through the optional
// `python` tool, and ends with its answer in the configured format. Final reward parts:
// correctness (1 when the extracted number equals the reference), format (1 when the expected
// format holds the answer), tool_use (1 when a tool call ran). Tested by tests/unit/envs/env-math.test.ts.
import type { ChatMessage } from '../../agents/chat-template';
import type { MathTask } from '../../data/schemas';
import { pythonTool, type PythonRunner } from '../../tools/python-tool';
import type { Tool } from '../../tools/registry';
import { resolveWeights, weigh } from '../reward';
import { defaultTurnOutcome, lastAssistantText, stripToolCalls } from '../transcript';
import type { Environment, EpisodeState, RewardBreakdown, RewardWeights, TurnToolResult } from '../types';
import { answersMatch, extractForm, extractMathAnswer, type AnswerForm } from './answer';

export interface MathEnvConfig {
  /** The answer format the prompt asks for and the format part rewards: boxed (\boxed{X}), hash (#### X), answer_is ("The answer is X"). */
  answerFormat: Exclude<AnswerForm, 'last_number'>;
  /** Grade only the expected format (true), or fall back through every form in ANSWER_ORDER (false). */
  strict: boolean;
  /** Offer the `python` tool (needs a PythonRunner). */
  pythonTool: boolean;
  /** Relative tolerance of the numeric comparison. */
  tolerance: number;
  /** Replaces the built-in system prompt when set. */
  systemPrompt?: string;
  /** Weights of correctness, format, tool_use and the per-turn tool_errors. */
  weights: RewardWeights;
}

export const defaultMathEnvConfig: MathEnvConfig = {
  answerFormat: 'boxed',
  strict: false,
  pythonTool: false,
  tolerance: 1e-12,
  weights: { correctness: 1, format: 0.1, tool_use: 0, tool_errors: -0.1 },
};

const FORMAT_HINT: Record<MathEnvConfig['answerFormat'], string> = {
  boxed: 'put the final answer, a number only, inside \\boxed{}',
  hash: 'write the final answer, a number only, on the last line as "#### <answer>"',
  answer_is: 'end with "The answer is <number>."',
};

export interface MathEnvOptions {
  /** Runs the `python` tool's code (a PythonPool); required when config.pythonTool is true. */
  python?: PythonRunner;
  config?: Partial<Omit<MathEnvConfig, 'weights'>> & { weights?: RewardWeights };
}

export class MathEnv implements Environment<MathTask> {
  readonly name = 'math';
  readonly config: MathEnvConfig;
  readonly weights: RewardWeights;
  private readonly toolList: Tool[];

  constructor(opts: MathEnvOptions = {}) {
    const { weights, ...rest } = opts.config ?? {};
    this.config = { ...defaultMathEnvConfig, ...rest, weights: resolveWeights('math', defaultMathEnvConfig.weights, weights) };
    this.weights = this.config.weights;
    if (!(this.config.answerFormat in FORMAT_HINT)) throw new Error(`math: answerFormat must be boxed, hash or answer_is, got "${this.config.answerFormat}"`);
    if (!(this.config.tolerance >= 0)) throw new Error(`math: tolerance must be >= 0, got ${this.config.tolerance}`);
    if (this.config.pythonTool && !opts.python) throw new Error('math: pythonTool is on but no python runner was given; pass { python: pool } or set pythonTool: false');
    this.toolList = this.config.pythonTool && opts.python ? [pythonTool(opts.python, { description: 'Run Python code (stdout is returned); use print() to see results' })] : [];
  }

  tools(): Tool[] {
    return this.toolList;
  }

  systemPrompt(_task: MathTask): string {
    if (this.config.systemPrompt !== undefined) return this.config.systemPrompt;
    const tool = this.toolList.length ? ' You may run Python with the python tool to check arithmetic.' : '';
    return `You are a careful math assistant. Solve the problem step by step, then ${FORMAT_HINT[this.config.answerFormat]}.${tool}`;
  }

  initialMessages(task: MathTask): ChatMessage[] {
    return [
      { role: 'system', content: this.systemPrompt(task) },
      { role: 'user', content: task.question },
    ];
  }

  onTurn(_task: MathTask, _state: EpisodeState, assistantText: string, toolResults: TurnToolResult[]) {
    return defaultTurnOutcome(assistantText, toolResults);
  }

  /** Grades one final message (what finalReward does with the transcript's last assistant turn). */
  grade(task: MathTask, finalText: string, toolCallsOk: number): RewardBreakdown {
    const text = stripToolCalls(finalText);
    const expected = this.config.answerFormat;
    const got = extractMathAnswer(text, this.config.strict ? expected : undefined);
    const notes: string[] = [];
    if (!got) notes.push(this.config.strict ? `no answer in the expected ${expected} format` : 'no answer found');
    const correct = got !== null && answersMatch(got.value, task.answer, this.config.tolerance);
    const inFormat = extractForm(text, expected);
    if (got && got.form !== expected) notes.push(`answer read from the ${got.form} form, not ${expected}`);
    const parts = {
      correctness: correct ? 1 : 0,
      format: inFormat !== null && inFormat !== '' ? 1 : 0,
      tool_use: toolCallsOk > 0 ? 1 : 0,
    };
    return weigh(parts, this.weights, { ...(got ? { extracted: got.value } : {}), notes });
  }

  async finalReward(task: MathTask, state: EpisodeState, transcript: ChatMessage[]): Promise<RewardBreakdown> {
    return this.grade(task, lastAssistantText(transcript), state.toolCalls.filter((c) => c.ok).length);
  }
}
