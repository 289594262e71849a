// The services an RL environment needs (a Python pool for code tests and the python tool, a BM25
// corpus for the search tool), started from the run config on either side: Node passes a process
// pool and a file reader (src/rl/node-run.ts startServices), the engine worker a Web Worker pool
// and a fetch of the served datasets/ (src/workers/engine/services.ts). Exercised by
// tests/unit/rl/shipped-corpus.test.ts and tests/e2e/run-worker.spec.ts (agent preset in the worker).
import type { EnvServices } from '../envs';
import type { PythonPool } from '../tools/python/pool';
import { CorpusSearch, parseCorpusJsonl } from '../tools/search/corpus';
import type { RlConfig } from './config-validate';
import { needsPython, shippedCorpus } from './env-factory';

export interface RunServices {
  services: EnvServices;
  pool: PythonPool | null;
}

/** What the env's pool gets from the config (rollout.python_workers, tool_timeout_ms, allow_weak_sandbox). */
export interface PoolSettings {
  workers: number;
  timeoutMs: number;
  allowWeakSandbox: boolean;
}

/** How one side makes the services: its own Python pool and its own way to read a corpus file. */
export interface ServiceMakers {
  /** A pool for model-written code; may refuse (throw) when its sandbox is too weak. */
  createPool(settings: PoolSettings): PythonPool;
  /** The text of a corpus file named as in the config (data.corpus, or datasets/<shipped>.jsonl). */
  readText(file: string): Promise<string>;
}

/** The search envs' corpus file: data.corpus, else the shipped one; null when the env has no search tool. */
export function corpusFile(cfg: RlConfig): string | null {
  if (cfg.data.env !== 'search_qa' && cfg.data.env !== 'agent') return null;
  return cfg.data.corpus ?? shippedCorpus(cfg.data.env);
}

/** Starts what the environment needs (the pool is ready before this returns); closes the pool when the corpus fails. */
export async function startEnvServices(cfg: RlConfig, make: ServiceMakers): Promise<RunServices> {
  const services: EnvServices = {};
  let pool: PythonPool | null = null;
  try {
    if (needsPython(cfg)) {
      const r = cfg.rollout;
      pool = make.createPool({ workers: r.python_workers, timeoutMs: r.tool_timeout_ms, allowWeakSandbox: r.allow_weak_sandbox });
      await pool.ready();
      services.python = pool;
    }
    const file = corpusFile(cfg);
    if (file) services.search = new CorpusSearch(parseCorpusJsonl(await make.readText(file), file));
  } catch (e) {
    await pool?.close();
    throw e;
  }
  return { services, pool };
}
