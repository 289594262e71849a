// The `code_exec` environment (MBPP style): the model answers with a Python solution, graded by
// running the task's asserts in the Pyodide sandbox (PythonPool.runTests) under a timeout.
// Final parts: correctness (all_pass: 1 or 0; fraction: share passed), pass_rate, format (a
// ```python block), tool_use. With maxAttempts > 1, failing tests come back as a user message
// (the agent loop appends it with loss mask 0) and the model may retry; the final part `retries`
// (attempts - 1) is weighted -attemptPenalty. Tested by tests/unit/envs/env-code.test.ts (MBPP
// references in the real sandbox) and env-code-retry.test.ts (retries through the agent loop).
import type { ChatMessage } from '../../agents/chat-template';
import type { CodeTask } from '../../data/schemas';
import { pythonTool, type PythonRunner } from '../../tools/python-tool';
import type { RunOptions, TestsResult } from '../../tools/python/types';
import type { Tool } from '../../tools/registry';
import { resolveWeights, weigh } from '../reward';
import { defaultTurnOutcome, lastAssistantText } from '../transcript';
import type { Environment, EpisodeState, RewardBreakdown, RewardWeights, TurnOutcome, TurnToolResult } from '../types';
import { extractCode } from './extract';

/** The part of PythonPool the grader needs. */
export interface TestRunner {
  runTests(code: string, tests: string[], opts?: RunOptions & { setup?: string }): Promise<TestsResult>;
}

export interface CodeEnvConfig {
  /** all_pass: correctness is 1 only when every test passes; fraction: the share that pass. */
  scoring: 'all_pass' | 'fraction';
  /** Budget of one grading run (solution + every assert), ms. */
  timeoutMs: number;
  /** Tests shown in the prompt: all (MBPP's own prompt), the first one, or none. */
  promptTests: 'all' | 'first' | 'none';
  /** Answers graded per episode: above 1, failing tests are fed back and the model may retry. */
  maxAttempts: number;
  /** With maxAttempts > 1: the final reward's `retries` part (attempts - 1) is weighted -attemptPenalty. */
  attemptPenalty: number;
  /** Offer the `python` tool to try code before answering (needs a PythonRunner). */
  pythonTool: boolean;
  /** Replaces the built-in system prompt when set. */
  systemPrompt?: string;
  /** Weights of correctness, pass_rate, format, tool_use and the per-turn tool_errors. */
  weights: RewardWeights;
}

export const defaultCodeEnvConfig: CodeEnvConfig = {
  scoring: 'all_pass',
  timeoutMs: 10_000,
  promptTests: 'all',
  maxAttempts: 1,
  attemptPenalty: 0,
  pythonTool: false,
  weights: { correctness: 1, pass_rate: 0, format: 0.1, tool_use: 0, tool_errors: -0.1 },
};

export interface CodeEnvOptions {
  /** Grades solutions (a PythonPool). */
  runner: TestRunner;
  /** Runs the `python` tool (usually the same PythonPool); required when config.pythonTool is true. */
  python?: PythonRunner;
  config?: Partial<Omit<CodeEnvConfig, 'weights'>> & { weights?: RewardWeights };
}

interface Graded {
  result: TestsResult;
  notes: string[];
}

export class CodeExecEnv implements Environment<CodeTask> {
  readonly name = 'code_exec';
  readonly config: CodeEnvConfig;
  readonly weights: RewardWeights;
  private readonly runner: TestRunner;
  private readonly toolList: Tool[];

  constructor(opts: CodeEnvOptions) {
    const { weights, ...rest } = opts.config ?? {};
    const penalty = rest.attemptPenalty ?? 0;
    if (!Number.isFinite(penalty) || penalty < 0) throw new Error(`code_exec: attemptPenalty must be a number >= 0, got ${penalty}`);
    this.config = { ...defaultCodeEnvConfig, ...rest, weights: resolveWeights('code_exec', { ...defaultCodeEnvConfig.weights, retries: -penalty }, weights) };
    this.weights = this.config.weights;
    const c = this.config;
    if (c.scoring !== 'all_pass' && c.scoring !== 'fraction') throw new Error(`code_exec: scoring must be all_pass or fraction, got "${c.scoring}"`);
    if (!['all', 'first', 'none'].includes(c.promptTests)) throw new Error(`code_exec: promptTests must be all, first or none, got "${c.promptTests}"`);
    if (!Number.isInteger(c.timeoutMs) || c.timeoutMs < 1) throw new Error(`code_exec: timeoutMs must be a positive integer, got ${c.timeoutMs}`);
    if (!Number.isInteger(c.maxAttempts) || c.maxAttempts < 1) throw new Error(`code_exec: maxAttempts must be an integer >= 1, got ${c.maxAttempts}`);
    if (!opts.runner) throw new Error('code_exec: a test runner is required; pass { runner: pythonPool }');
    if (c.pythonTool && !opts.python) throw new Error('code_exec: pythonTool is on but no python runner was given; pass { python: pool } or set pythonTool: false');
    this.runner = opts.runner;
    this.toolList = c.pythonTool && opts.python ? [pythonTool(opts.python, { description: 'Run Python code (stdout is returned) to try out your solution' })] : [];
  }

  tools(): Tool[] {
    return this.toolList;
  }

  systemPrompt(_task: CodeTask): string {
    if (this.config.systemPrompt !== undefined) return this.config.systemPrompt;
    const tool = this.toolList.length ? ' You may run code with the python tool before answering.' : '';
    return `You are an expert Python programmer. Solve the task and reply with the complete solution in one \`\`\`python code block.${tool}`;
  }

  userPrompt(task: CodeTask): string {
    const shown = this.config.promptTests === 'all' ? task.tests : this.config.promptTests === 'first' ? task.tests.slice(0, 1) : [];
    let s = task.prompt;
    if (shown.length) s += `\nYour code should pass these tests:\n\n${shown.join('\n')}`;
    if (task.starter_code.trim()) s += `\n\nStart from:\n\`\`\`python\n${task.starter_code.replace(/\s+$/, '')}\n\`\`\``;
    return s;
  }

  initialMessages(task: CodeTask): ChatMessage[] {
    return [
      { role: 'system', content: this.systemPrompt(task) },
      { role: 'user', content: this.userPrompt(task) },
    ];
  }

  async onTurn(task: CodeTask, state: EpisodeState, assistantText: string, toolResults: TurnToolResult[]): Promise<TurnOutcome> {
    const base = defaultTurnOutcome(assistantText, toolResults);
    if (!base.done || this.config.maxAttempts === 1) return base;
    const attempts = ((state.data.attempts as number | undefined) ?? 0) + 1;
    state.data.attempts = attempts;
    if (attempts >= this.config.maxAttempts) return base;
    const { result } = await this.run(task, extractCode(assistantText).code, state);
    if (result.passed === result.total) return base;
    const failed = result.asserts.filter((a) => !a.passed).map((a) => `${a.test}\n  -> ${a.error ?? 'failed'}`);
    const content = `Your solution passed ${result.passed} of ${result.total} tests.${result.solutionOk ? '' : ` It failed to run: ${result.run.errorType}: ${result.run.errorMessage}.`}\nFailing:\n${failed.join('\n')}\nFix the code and answer again with the complete solution.`;
    return { ...base, done: false, feedback: [{ role: 'user', content }] };
  }

  /** Runs the task's tests on `code` (solution, then test_setup_code, then each assert); cached per episode. */
  async run(task: CodeTask, code: string, state?: EpisodeState): Promise<Graded> {
    const cache = (state?.data.testRuns as Map<string, Graded> | undefined) ?? new Map<string, Graded>();
    if (state) state.data.testRuns = cache;
    const hit = cache.get(code);
    if (hit) return hit;
    // MBPP's setup code uses names the solution defines, so it runs after the solution.
    const program = task.test_setup_code ? `${code}\n${task.test_setup_code}\n` : code;
    const result = await this.runner.runTests(program, task.tests, { timeoutMs: this.config.timeoutMs, signal: state?.signal });
    const notes: string[] = [];
    if (!result.solutionOk) notes.push(`solution failed to run: ${result.run.errorType}: ${result.run.errorMessage ?? ''}`.trim());
    else if (result.run.errorType) notes.push(`tests stopped: ${result.run.errorType}: ${result.run.errorMessage ?? ''}`.trim());
    const graded = { result, notes };
    cache.set(code, graded);
    return graded;
  }

  /** Grades one final message (what finalReward does with the transcript's last assistant turn). */
  async grade(task: CodeTask, finalText: string, toolCallsOk: number, state?: EpisodeState): Promise<RewardBreakdown> {
    const { code, source } = extractCode(finalText);
    const format = source === 'python' ? 1 : 0;
    const tool_use = toolCallsOk > 0 ? 1 : 0;
    if (!code.trim()) {
      return weigh({ correctness: 0, pass_rate: 0, format, tool_use }, this.weights, { extracted: '', notes: ['no code in the final message'] });
    }
    const { result, notes: runNotes } = await this.run(task, code, state);
    const pass_rate = result.total ? result.passed / result.total : 0;
    const correctness = this.config.scoring === 'all_pass' ? (result.passed === result.total ? 1 : 0) : pass_rate;
    const notes = [...runNotes, `${result.passed}/${result.total} tests passed`];
    return weigh({ correctness, pass_rate, format, tool_use }, this.weights, { extracted: code, notes });
  }

  async finalReward(task: CodeTask, state: EpisodeState, transcript: ChatMessage[]): Promise<RewardBreakdown> {
    const b = await this.grade(task, lastAssistantText(transcript), state.toolCalls.filter((c) => c.ok).length, state);
    if (this.config.maxAttempts === 1) return b;
    const retries = Math.max(0, ((state.data.attempts as number | undefined) ?? 1) - 1);
    return weigh({ ...b.parts, retries }, this.weights, { ...(b.extracted !== undefined ? { extracted: b.extracted } : {}), notes: [...(b.notes ?? []), `answered ${retries + 1} time(s)`] });
  }
}
