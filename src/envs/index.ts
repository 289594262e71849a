// The built-in environments by name, and what each needs: math (an optional Python runner for
// its tool), code_exec (a Python pool to grade with), search_qa (a search backend), agent (both). The agent
// loop, CLI and UI build environments here. Tested by tests/unit/envs/env-episode.test.ts.
import type { EnvName, TaskByEnv } from '../data/schemas';
import type { PythonRunner } from '../tools/python-tool';
import type { SearchBackend } from '../tools/search/types';
import { AgentEnv, type AgentEnvOptions } from './agent/env';
import { CodeExecEnv, type CodeEnvOptions, type TestRunner } from './code/env';
import { MathEnv, type MathEnvOptions } from './math/env';
import { SearchQaEnv, type SearchQaEnvOptions } from './search/env';
import type { Environment } from './types';

export type { Environment, EpisodeState, RewardBreakdown, RewardParts, RewardWeights, TurnOutcome, TurnToolResult } from './types';
export { createEpisodeState, finishEpisode, stepEnvironment } from './episode-steps';
export type { EpisodeReward } from './reward';
export { envRollout, type EnvRollout } from './rollout';
export { MathEnv, CodeExecEnv, SearchQaEnv, AgentEnv };

/** Services the built-ins use; a PythonPool is both a PythonRunner and a TestRunner. */
export interface EnvServices {
  python?: PythonRunner & TestRunner;
  search?: SearchBackend;
}

export interface EnvConfigByName {
  math: MathEnvOptions['config'];
  code_exec: CodeEnvOptions['config'];
  search_qa: SearchQaEnvOptions['config'];
  agent: AgentEnvOptions['config'];
}

export function createEnvironment<E extends EnvName>(name: E, services: EnvServices, config?: EnvConfigByName[E]): Environment<TaskByEnv[E]> {
  switch (name) {
    case 'math':
      return new MathEnv({ python: services.python, config: config as EnvConfigByName['math'] }) as unknown as Environment<TaskByEnv[E]>;
    case 'code_exec':
      if (!services.python) throw new Error('code_exec needs a Python pool to run the tests: pass { python: createNodePythonPool() or createBrowserPythonPool() }');
      return new CodeExecEnv({ runner: services.python, python: services.python, config: config as EnvConfigByName['code_exec'] }) as unknown as Environment<TaskByEnv[E]>;
    case 'search_qa':
      if (!services.search) throw new Error('search_qa needs a search backend: pass { search: new CorpusSearch(parseCorpusJsonl(text)) } or the web client');
      return new SearchQaEnv({ backend: services.search, config: config as EnvConfigByName['search_qa'] }) as unknown as Environment<TaskByEnv[E]>;
    case 'agent':
      if (!services.python || !services.search) throw new Error('agent needs a Python pool and a search backend: pass { python: createNodePythonPool(), search: new CorpusSearch(parseCorpusJsonl(text of datasets/agent_corpus.jsonl)) }');
      return new AgentEnv({ python: services.python, search: services.search, config: config as EnvConfigByName['agent'] }) as unknown as Environment<TaskByEnv[E]>;
    default:
      throw new Error(`unknown environment "${String(name)}"; built-ins: math, code_exec, search_qa, agent`);
  }
}
