// A user-written environment named by module path (`data.env_module: ./my_env.ts`), loaded in Node:
// .ts/.mts through tsx's tsImport, .js/.mjs by plain import. The module default-exports a factory
// `(ctx: CustomEnvContext) => Environment | Promise<Environment>` (docs/envs.md); anything else is
// refused with an error naming the file and what it must export. Node-only (node:path, node:url, tsx).
// Tested by tests/unit/rl/rl-custom-env.test.ts (a fixture module in tests/fixtures/envs/, one GRPO step).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EnvServices } from './index';
import type { Environment, RewardWeights } from './types';

/** What the factory receives. */
export interface CustomEnvContext {
  /** The Python pool (when env.python_tool) and the search backend (when tools.search.offer), as the built-ins get them. */
  services: EnvServices;
  /** env.system_prompt, when set. */
  systemPrompt?: string;
  /** env.weights, when set (empty: the env's own). */
  weights: RewardWeights;
  /** The module's absolute path (to read files beside it). */
  file: string;
}

export type CustomEnvFactory = (ctx: CustomEnvContext) => Environment | Promise<Environment>;

const SHAPE = 'a default export `(ctx) => Environment` (or an async one) whose result has name, weights, tools(), systemPrompt(task), initialMessages(task) and finalReward(task, state, transcript); see docs/envs.md';
const METHODS = ['tools', 'systemPrompt', 'initialMessages', 'finalReward'] as const;

/** Imports the module and returns its factory; throws naming the file when it is missing or exports something else. */
export async function loadCustomEnvFactory(modulePath: string, cwd = process.cwd()): Promise<{ factory: CustomEnvFactory; file: string }> {
  const file = resolve(cwd, modulePath);
  if (!existsSync(file)) throw new Error(`data.env_module: ${file} does not exist; give a .ts or .js file (relative to ${cwd}) with ${SHAPE}`);
  let mod: Record<string, unknown>;
  try {
    mod = /\.[mc]?tsx?$/.test(file)
      ? ((await (await import('tsx/esm/api')).tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>)
      : ((await import(pathToFileURL(file).href)) as Record<string, unknown>);
  } catch (e) {
    throw new Error(`data.env_module: ${file} failed to load: ${(e as Error).message}`);
  }
  const factory = mod.default;
  if (typeof factory !== 'function') {
    const has = Object.keys(mod).filter((k) => k !== '__esModule');
    throw new Error(`data.env_module: ${file} must have ${SHAPE}; its default export is ${describe(factory)}${has.length ? ` (exports: ${has.join(', ')})` : ''}`);
  }
  return { factory: factory as CustomEnvFactory, file };
}

/** Builds the environment and checks it has the interface's members. */
export async function createCustomEnvironment(modulePath: string, ctx: Omit<CustomEnvContext, 'file'>, cwd?: string): Promise<Environment> {
  const { factory, file } = await loadCustomEnvFactory(modulePath, cwd);
  let env: unknown;
  try {
    env = await factory({ ...ctx, file });
  } catch (e) {
    throw new Error(`data.env_module: ${file}: its default export threw: ${(e as Error).message}`);
  }
  const o = env as Record<string, unknown> | null;
  const missing = [
    ...(typeof o?.name === 'string' && o.name ? [] : ['name (a string)']),
    ...(typeof o?.weights === 'object' && o.weights !== null ? [] : ['weights (a mapping)']),
    ...METHODS.filter((m) => typeof o?.[m] !== 'function').map((m) => `${m}()`),
  ];
  if (missing.length) throw new Error(`data.env_module: ${file}: the default export returned ${describe(env)}, which lacks ${missing.join(', ')}; it must return an Environment (${SHAPE})`);
  return env as Environment;
}

function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : `an object with keys ${Object.keys(v).join(', ') || '(none)'}`;
  return `a ${typeof v}`;
}
