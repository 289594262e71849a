// The services an RL environment needs, started from the run config on either side: a Python pool
// for code tests and the python tool, a search backend (the BM25 corpus or a running search proxy,
// tools.search), the extra tools of the `tools:` section and the custom env of data.env_module.
// Node passes a process pool, a file reader and a module loader (src/run/rl-node-run.ts startServices);
// the engine worker a Web Worker pool and a fetch of the served datasets/ (src/workers/engine/services.ts),
// and no module loader (a custom env module is CLI-only). Exercised by tests/unit/rl/shipped-corpus.test.ts,
// tests/unit/rl/rl-tools-config.test.ts, rl-custom-env.test.ts and tests/e2e/run-worker.spec.ts.
import type { EnvServices } from '../envs';
import type { Environment } from '../envs/types';
import type { Task } from '../data/schemas';
import type { PythonPool } from '../tools/python/pool';
import { CorpusSearch, parseCorpusJsonl } from '../tools/search/corpus';
import type { SearchBackend } from '../tools/search/types';
import type { RlConfig } from './config-validate';
import { needsPython, shippedCorpus, type RlEnvServices } from './env-factory';
import { connectSearchProxy, extraTools, needsSearch, poolSettings } from './tools-config';

export interface RunServices {
  services: RlEnvServices;
  pool: PythonPool | null;
}

/** What the env's pool gets from the config (tools.python, else rollout.python_workers / tool_timeout_ms; allow_weak_sandbox). */
export interface PoolSettings {
  workers: number;
  timeoutMs: number;
  maxMemoryBytes: number;
  maxOutputBytes: number;
  allowWeakSandbox: boolean;
}

/** What a custom env module's factory is given. */
export interface CustomEnvRequest {
  services: EnvServices;
  weights: Record<string, number>;
  systemPrompt?: string;
}

/** How one side makes the services: its own Python pool, its own way to read a corpus file, and (Node) to load an env module. */
export interface ServiceMakers {
  /** A pool for model-written code; may refuse (throw) when its sandbox is too weak. */
  createPool(settings: PoolSettings): PythonPool;
  /** The text of a corpus file named as in the config (tools.search.corpus, data.corpus, or datasets/<shipped>.jsonl). */
  readText(file: string): Promise<string>;
  /** Builds the env of data.env_module; absent where modules cannot be loaded (the browser). */
  loadCustomEnv?(modulePath: string, request: CustomEnvRequest): Promise<Environment<Task>>;
}

/** The corpus file the search backend reads in corpus mode, or null (no search, or proxy mode). */
export function corpusFile(cfg: RlConfig): string | null {
  if (!needsSearch(cfg) || cfg.tools.search.mode === 'proxy') return null;
  return cfg.tools.search.corpus ?? cfg.data.corpus ?? (cfg.data.env_module === null ? shippedCorpus(cfg.data.env) : null) ?? shippedCorpus('search_qa');
}

/** The config fields that decide which services start (two configs with the same key share them). */
export function servicesKey(cfg: RlConfig): string {
  const { env, env_module, corpus } = cfg.data;
  const r = cfg.rollout;
  return JSON.stringify([env, env_module, corpus, cfg.env, cfg.tools, r.python_workers, r.tool_timeout_ms, r.allow_weak_sandbox]);
}

async function searchBackend(cfg: RlConfig, make: ServiceMakers): Promise<SearchBackend> {
  if (cfg.tools.search.mode === 'proxy') return connectSearchProxy(cfg);
  const file = corpusFile(cfg);
  if (!file) throw new Error('tools.search: no corpus to search; set tools.search.corpus to a corpus JSONL');
  let text: string;
  try {
    text = await make.readText(file);
  } catch (e) {
    throw new Error(`tools.search: the corpus ${file} cannot be read (${(e as Error).message}); set tools.search.corpus (or data.corpus) to a corpus JSONL`);
  }
  return new CorpusSearch(parseCorpusJsonl(text, file));
}

/** Starts what the environment needs (the pool is ready before this returns); closes the pool when anything after it fails. */
export async function startEnvServices(cfg: RlConfig, make: ServiceMakers): Promise<RunServices> {
  const services: RlEnvServices = {};
  let pool: PythonPool | null = null;
  try {
    if (cfg.data.env_module !== null && !make.loadCustomEnv) {
      throw new Error(`data.env_module ${cfg.data.env_module}: a custom env module loads only in the CLI (\`npm run cli -- train\`); remove data.env_module to run here`);
    }
    if (needsPython(cfg)) {
      pool = make.createPool({ ...poolSettings(cfg), allowWeakSandbox: cfg.rollout.allow_weak_sandbox });
      await pool.ready();
      services.python = pool;
    }
    if (needsSearch(cfg)) services.search = await searchBackend(cfg, make);
    services.extraTools = extraTools(cfg, services.search ?? null);
    if (cfg.data.env_module !== null && make.loadCustomEnv) {
      const e = cfg.env;
      const base: EnvServices = { ...(services.python ? { python: services.python } : {}), ...(services.search ? { search: services.search } : {}) };
      services.custom = await make.loadCustomEnv(cfg.data.env_module, { services: base, weights: e.weights, ...(e.system_prompt !== null ? { systemPrompt: e.system_prompt } : {}) });
    }
  } catch (e) {
    await pool?.close();
    throw e;
  }
  return { services, pool };
}
