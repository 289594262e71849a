// An environment with more tools: the run config's extra tools (tools.http, tools.search.offer)
// offered beside the environment's own, everything else delegated unchanged. Used by
// src/rl/env-factory.ts; tested by tests/unit/rl/rl-tools-config.test.ts (through a GRPO step).
import type { Task } from '../data/schemas';
import type { Tool } from '../tools/registry';
import type { Environment } from './types';

export function withTools<T extends Task>(env: Environment<T>, extra: Tool[]): Environment<T> {
  if (!extra.length) return env;
  const own = env.tools().map((t) => t.name);
  const clash = extra.find((t) => own.includes(t.name));
  if (clash) throw new Error(`tool "${clash.name}" of the run config clashes with environment ${env.name}'s own tool; rename it in tools.http`);
  // A prototype-linked view keeps the env's methods (and their `this`) and its onTurn when it has one.
  const view = Object.create(env) as Environment<T>;
  view.tools = () => [...env.tools(), ...extra];
  return view;
}
