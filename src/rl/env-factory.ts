// The run config's environment and tasks: builds math / code_exec / search_qa / agent (src/envs) or the
// story env from the `data` and `env` sections, and turns a task file's text into the task list
// (story tasks come from data.story_words, no file). A custom env (data.env_module) is built by the
// caller (node-run startServices) and passed in; the run config's extra tools are added to any env.
// Engine-only: callers read the files.
// Exercised by tests/unit/rl/rl-config.test.ts (presets) and rl-grpo.test.ts.
import { loadTasks, requireTasks, formatLoadReport } from '../data/loader';
import { SHIPPED_DATASETS } from '../data/shipped';
import type { EnvName, Task } from '../data/schemas';
import { createEnvironment, type EnvServices } from '../envs';
import { StoryEnv, storyTasks } from '../envs/story/env';
import type { Environment } from '../envs/types';
import { withTools } from '../envs/with-tools';
import { jsonlLines, parseJsonObjectLine } from '../data/jsonl';
import type { Tool } from '../tools/registry';
import type { RlConfig } from './config-validate';

/** EnvServices plus what the run config adds: the custom env (data.env_module) and extra tools (tools.http, tools.search.offer). */
export interface RlEnvServices extends EnvServices {
  custom?: Environment<Task>;
  extraTools?: Tool[];
}

/** The Python pool is needed (code tests or a python tool; a custom env gets it with env.python_tool). */
export function needsPython(cfg: RlConfig): boolean {
  if (cfg.data.env_module !== null) return cfg.env.python_tool;
  return cfg.data.env === 'code_exec' || cfg.data.env === 'agent' || (cfg.env.python_tool && cfg.data.env === 'math');
}

export function buildEnvironment(cfg: RlConfig, services: RlEnvServices): Environment<Task> {
  if (cfg.data.env_module !== null && !services.custom) throw new Error(`data.env_module ${cfg.data.env_module}: the custom env is built by startServices (src/run/rl-node-run.ts); pass its services`);
  return withTools(services.custom ?? builtInEnvironment(cfg, services), services.extraTools ?? []);
}

function builtInEnvironment(cfg: RlConfig, services: EnvServices): Environment<Task> {
  const e = cfg.env, sp = e.system_prompt ?? undefined;
  const weights = Object.keys(e.weights).length ? { weights: e.weights } : {};
  switch (cfg.data.env) {
    case 'story':
      // StoryTask is not one of the loader's task types; the env only reads its own fields.
      return new StoryEnv({ ...(sp ? { prompt: sp } : {}), ...weights }) as unknown as Environment<Task>;
    case 'math':
      return createEnvironment('math', services, { answerFormat: e.answer_format, pythonTool: e.python_tool, ...(sp ? { systemPrompt: sp } : {}), ...weights }) as Environment<Task>;
    case 'code_exec':
      return createEnvironment('code_exec', services, { pythonTool: e.python_tool, maxAttempts: e.max_attempts, attemptPenalty: e.attempt_penalty, ...(sp ? { systemPrompt: sp } : {}), ...weights }) as Environment<Task>;
    case 'search_qa':
      return createEnvironment('search_qa', services, { k: cfg.tools.search.top_k, ...(sp ? { systemPrompt: sp } : {}), ...weights }) as Environment<Task>;
    case 'agent':
      return createEnvironment('agent', services, { ...(sp ? { systemPrompt: sp } : {}), ...weights }) as Environment<Task>;
  }
}

/** The shipped file (under datasets/) of an environment's split, or null (story). */
export function shippedTaskFile(cfg: RlConfig, split: 'train' | 'eval'): string | null {
  if (cfg.data.env === 'story' || cfg.data.env_module !== null) return null;
  const d = SHIPPED_DATASETS.find((s) => s.env === cfg.data.env && s.split === split);
  return d ? `datasets/${d.file}` : null;
}

/** The shipped corpus (under datasets/) the search tool reads when data.corpus is null, or null (no search tool). */
export function shippedCorpus(env: RlConfig['data']['env']): string | null {
  return env === 'agent' ? 'datasets/agent_corpus.jsonl' : env === 'search_qa' ? 'datasets/squad_corpus.jsonl' : null;
}

/** The task file a split reads: the configured one or the shipped one (null: story). */
export function taskFile(cfg: RlConfig, split: 'train' | 'eval'): string | null {
  const configured = split === 'train' ? cfg.data.dataset : (cfg.data.eval_dataset ?? null);
  return configured ?? shippedTaskFile(cfg, split);
}

/** Tasks from a file's text (story: from story_words; the text is ignored); data.max_tasks applied. */
export function tasksFromText(cfg: RlConfig, text: string | null, file: string, log: (s: string) => void = () => {}): Task[] {
  let tasks: Task[];
  if (cfg.data.env_module !== null) {
    if (text === null) throw new Error(`data.env_module ${cfg.data.env_module} reads its tasks from data.dataset; set it to a JSONL file`);
    tasks = customTasks(text, file);
  } else if (cfg.data.env === 'story') {
    tasks = storyTasks(cfg.data.story_words, cfg.data.story_words.length, cfg.data.story_target_words) as unknown as Task[];
  } else {
    if (text === null) throw new Error(`data.env ${cfg.data.env} needs a task file; set data.dataset`);
    const r = loadTasks(cfg.data.env as EnvName, text, file);
    if (r.skipped.length || r.warnings.length) log(formatLoadReport(r) + '\n');
    tasks = requireTasks(r);
  }
  return cfg.data.max_tasks > 0 ? tasks.slice(0, cfg.data.max_tasks) : tasks;
}

/** A custom env's tasks: one JSON object per line, passed to the env as they are; task_id defaults to `line-N`. */
function customTasks(text: string, file: string): Task[] {
  const tasks = jsonlLines(text).map(({ line, text: t }) => {
    const p = parseJsonObjectLine(t);
    if (!p.ok) throw new Error(`${file}:${line}: ${p.reason}`);
    return { ...p.value, task_id: String((p.value.task_id as string | number | undefined) ?? `line-${line}`) } as unknown as Task;
  });
  if (!tasks.length) throw new Error(`${file}: no tasks (one JSON object per line)`);
  return tasks;
}
