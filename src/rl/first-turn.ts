// The first input of an episode as a run of a config feeds it to the model: the environment the
// config builds for a task file's schema (its system prompt, its tools as env.python_tool, the
// search tool, tools.http and tools.search.offer decide), the chat template model.template picks
// (plain_no_tools leaves the tool list out), then rollout.prefill. It goes through the rollout's
// own renderer (rolloutRenderer) and the loop's opening (TurnRenderer.opening), not a copy of them.
// Used by the Datasets panel's token preview; tested by tests/unit/rl/first-turn.test.ts.
import { templateChoice } from '../agents/chat-template';
import { rolloutRenderer } from '../agents/gpu-rollout';
import type { EnvName, Task } from '../data/schemas';
import { envRollout } from '../envs/rollout';
import { promptOnlyServices } from '../envs/prompt-services';
import type { Environment } from '../envs/types';
import type { Tokenizer } from '../model/tokenizer';
import type { RlConfig } from './config-validate';
import { buildEnvironment } from './env-factory';
import { extraTools } from './tools-config';

/** One task's first input: every id the model reads before it writes, and where the tool list stands. */
export interface FirstTurn {
  /** Prompt then the forced prefill ids, as the loop appends them (all context, mask 0). */
  ids: number[];
  /** Of which the prefill (rollout.prefill) is the last `prefillLength`. */
  prefillLength: number;
}

/** The tools a run of `cfg` offers and whether the prompt lists them. */
export interface ToolListing {
  names: string[];
  /** False when model.template is plain_no_tools (the tools exist, the prompt does not show them). */
  listed: boolean;
}

/** `cfg` with the environment of a task file's schema (its other fields kept); built for prompts only, no tool runs. */
export function promptEnvironment(cfg: RlConfig, env: EnvName): { cfg: RlConfig; env: Environment<Task> } {
  const c: RlConfig = { ...cfg, data: { ...cfg.data, env, env_module: null } };
  const services = promptOnlyServices('The token preview', 'Start a run to use the tools');
  return { cfg: c, env: buildEnvironment(c, { ...services, extraTools: extraTools(c, services.search) }) };
}

/** Each task's first input under `cfg` (what collectRollouts feeds the engine for it), and the tools. */
export function firstTurns(cfg: RlConfig, env: Environment<Task>, tokenizer: Tokenizer, tasks: Task[], eosTokenIds: readonly number[] = []): { turns: FirstTurn[]; tools: ToolListing } {
  const er = envRollout(env, tasks, 1);
  const renderer = rolloutRenderer(tokenizer, er.registry, { ...templateChoice(cfg.model.template), eosTokenIds });
  const prefill = cfg.rollout.prefill ?? undefined;
  const turns = er.prompts.map((p) => {
    const o = renderer.opening(p.messages, prefill);
    return { ids: [...o.prompt, ...o.forced], prefillLength: o.forced.length };
  });
  const names = renderer.tools.map((t) => t.function.name);
  return { turns, tools: { names, listed: names.length > 0 && (!renderer.plain || renderer.listTools) } };
}
