// The rows of a TRL bundle: one training row per task in the conversational format TRL's
// GRPOTrainer reads (`prompt` = the environment's opening messages, reward columns passed to the
// reward functions as keyword arguments, `tools` as a JSON string of the tools' JSON schemas), the
// same row in verl's layout, and one exported rollout (prompt, completion, reward) per episode.
// Tested by tests/unit/export/export-trl-bundle.test.ts and export-trl-rewards.test.ts.
import type { ChatMessage } from '../../agents/chat-template';
import type { AgentTask, CodeTask, MathTask, SearchQaTask, Task } from '../../data/schemas';
import type { EpisodeReward } from '../../envs/reward';
import type { StoryTask } from '../../envs/story/env';
import type { RlEnvName } from '../../rl/config-schema';

/** The environments whose rewards have a Python port (every shipped one). */
export type TrlEnvName = RlEnvName;
export const TRL_ENVS: readonly TrlEnvName[] = ['math', 'code_exec', 'search_qa', 'story', 'agent'];
export function isTrlEnv(env: RlEnvName): env is TrlEnvName {
  return (TRL_ENVS as readonly string[]).includes(env);
}
import type { QwenTool } from '../../tools/qwen-tools';

/** The columns each environment's reward functions read (besides prompt and completion). */
export const REWARD_COLUMNS: Record<TrlEnvName, readonly string[]> = {
  math: ['answer'],
  code_exec: ['tests', 'test_setup_code'],
  search_qa: ['answers'],
  story: ['word', 'target_words'],
  agent: ['answer', 'family'],
};

export type Columns = Record<string, string | number | string[]>;

/** A training row: `prompt` is a list of chat messages, then the reward columns; `tools` only when the env has tools. */
export interface TrlPromptRow {
  prompt: ChatMessage[];
  task_id: string;
  tools?: string;
  [column: string]: unknown;
}

export function rewardColumns(env: TrlEnvName, task: Task | StoryTask): Columns {
  switch (env) {
    case 'math':
      return { answer: (task as MathTask).answer };
    case 'code_exec':
      return { tests: (task as CodeTask).tests, test_setup_code: (task as CodeTask).test_setup_code ?? '' };
    case 'search_qa':
      return { answers: (task as SearchQaTask).answers };
    case 'story':
      return { word: (task as StoryTask).word, target_words: (task as StoryTask).target_words };
    case 'agent':
      return { answer: (task as AgentTask).answer, family: (task as AgentTask).family };
  }
}

/** One GRPOTrainer row. `prompt` must be the env's initialMessages (no `# Tools` block: TRL's chat template adds it). */
export function trlPromptRow(env: TrlEnvName, task: Task | StoryTask, prompt: ChatMessage[], tools: QwenTool[]): TrlPromptRow {
  const row: TrlPromptRow = { prompt: prompt.map(plainMessage), task_id: task.task_id, ...rewardColumns(env, task) };
  if (tools.length) row.tools = JSON.stringify(tools);
  return row;
}

export interface VerlRow {
  data_source: string;
  prompt: ChatMessage[];
  ability: TrlEnvName;
  reward_model: { style: 'rule'; ground_truth: string };
  extra_info: Columns & { index: number; split: string; task_id: string };
}

/** verl's RL dataset row: the reward columns travel in extra_info, the main one as ground_truth. */
export function verlRow(env: TrlEnvName, row: TrlPromptRow, index: number, split: string): VerlRow {
  const cols = rewardColumnsOf(env, row);
  const truth = cols[REWARD_COLUMNS[env][0]];
  return {
    data_source: `rl_studio/${env}`,
    prompt: row.prompt,
    ability: env,
    reward_model: { style: 'rule', ground_truth: typeof truth === 'string' ? truth : JSON.stringify(truth) },
    extra_info: { ...cols, index, split, task_id: row.task_id },
  };
}

/** The reward columns of a row, checked to be what rewardColumns writes. */
function rewardColumnsOf(env: TrlEnvName, row: TrlPromptRow): Columns {
  const cols: Columns = {};
  for (const c of REWARD_COLUMNS[env]) {
    const v = row[c];
    if (typeof v !== 'string' && typeof v !== 'number' && !Array.isArray(v)) throw new Error(`row ${row.task_id}: reward column "${c}" is missing`);
    cols[c] = v as Columns[string];
  }
  return cols;
}

/** A completion message as exported: tool messages carry the sandbox's verdict `ok`. */
export type ExportedMessage = ChatMessage & { ok?: boolean };

export interface ExportedRollout extends TrlPromptRow {
  completion: ExportedMessage[];
  reward: { total: number; parts: Record<string, number> };
}

/**
 * One finished episode: the transcript after the prompt as the completion (TRL's conversational
 * format), each tool message marked with whether its call succeeded (in order, as the loop ran
 * them), the task's reward columns and our reward.
 */
export function exportRollout(
  env: TrlEnvName, task: Task | StoryTask, transcript: ChatMessage[], promptLength: number,
  toolCalls: readonly { ok: boolean }[], reward: EpisodeReward,
): ExportedRollout {
  let call = 0;
  const completion = transcript.slice(promptLength).map((m): ExportedMessage => {
    if (m.role !== 'tool') return plainMessage(m);
    const c = toolCalls[call++];
    if (!c) throw new Error(`exportRollout: task ${task.task_id} has more tool messages than tool calls (${toolCalls.length})`);
    return { ...plainMessage(m), ok: c.ok };
  });
  return {
    prompt: transcript.slice(0, promptLength).map(plainMessage), completion, task_id: task.task_id,
    ...rewardColumns(env, task), reward: { total: reward.return, parts: reward.parts },
  };
}

/** role, content, and tool_calls / name only when present (no undefined keys in the JSON). */
function plainMessage(m: ChatMessage): ChatMessage {
  const out: ChatMessage = { role: m.role, content: m.content };
  if (m.tool_calls?.length) out.tool_calls = m.tool_calls;
  if (m.name !== undefined) out.name = m.name;
  return out;
}
