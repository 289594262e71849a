// The run config's environment and tasks: builds math / code_exec / search_qa / agent (src/envs) or the
// story env from the `data` and `env` sections, and turns a task file's text into the task list
// (story tasks come from data.story_words, no file). Engine-only: callers read the files.
// Exercised by tests/unit/rl/rl-config.test.ts (presets) and rl-grpo.test.ts.
import { loadTasks, requireTasks, formatLoadReport } from '../data/loader';
import { SHIPPED_DATASETS } from '../data/shipped';
import type { EnvName, Task } from '../data/schemas';
import { createEnvironment, type EnvServices } from '../envs';
import { StoryEnv, storyTasks } from '../envs/story/env';
import type { Environment } from '../envs/types';
import type { RlConfig } from './config-validate';

/** The Python pool is needed (code tests or a python tool). */
export function needsPython(cfg: RlConfig): boolean {
  return cfg.data.env === 'code_exec' || cfg.data.env === 'agent' || (cfg.env.python_tool && cfg.data.env === 'math');
}

export function buildEnvironment(cfg: RlConfig, services: EnvServices): Environment<Task> {
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
      return createEnvironment('search_qa', services, { ...(sp ? { systemPrompt: sp } : {}), ...weights }) as Environment<Task>;
    case 'agent':
      return createEnvironment('agent', services, { ...(sp ? { systemPrompt: sp } : {}), ...weights }) as Environment<Task>;
  }
}

/** The shipped file (under datasets/) of an environment's split, or null (story). */
export function shippedTaskFile(cfg: RlConfig, split: 'train' | 'eval'): string | null {
  if (cfg.data.env === 'story') return null;
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
  if (cfg.data.env === 'story') {
    tasks = storyTasks(cfg.data.story_words, cfg.data.story_words.length, cfg.data.story_target_words) as unknown as Task[];
  } else {
    if (text === null) throw new Error(`data.env ${cfg.data.env} needs a task file; set data.dataset`);
    const r = loadTasks(cfg.data.env as EnvName, text, file);
    if (r.skipped.length || r.warnings.length) log(formatLoadReport(r) + '\n');
    tasks = requireTasks(r);
  }
  return cfg.data.max_tasks > 0 ? tasks.slice(0, cfg.data.max_tasks) : tasks;
}
