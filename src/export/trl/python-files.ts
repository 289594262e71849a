// Node side of the bundle's Python sources: where they live (src/export/trl/python/) and their
// text, read from disk so they stay real .py files that python3 runs and py_compile checks.
// Used by the export-trl command; the folder is exercised by tests/unit/export/export-trl-*.test.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PYTHON_DIR = fileURLToPath(new URL('./python/', import.meta.url));

/** The files every bundle carries, whatever the environment. */
export const COMMON_PY = ['rl_common.py', 'tools.py', 'train_grpo.py', 'verl_reward.py'] as const;

/** The reward file of each environment, plus what it needs beside rl_common.py. */
export const REWARD_PY = {
  math: ['reward_math.py'],
  code_exec: ['reward_code_exec.py', 'code_runner.py'],
  search_qa: ['reward_search_qa.py'],
  story: ['reward_story.py'],
  agent: ['reward_agent.py', 'reward_math.py', 'reward_search_qa.py'],
} as const;

export function readPython(name: string): string {
  return readFileSync(new URL(`./python/${name}`, import.meta.url), 'utf8');
}
