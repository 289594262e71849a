// Node side of an RL run (the `train` / `eval` commands and the experiment script): loads the
// model, the services the environment needs (a Pyodide pool, the search corpus or proxy, the tools
// section's HTTP tools, a custom env module), the tasks, the
// Trainer and the GPU GRPO loss from a validated RlConfig; the run folder is written by the
// recorder (src/run/recorder.ts) over NodeFsStorage (config.yaml, metrics.jsonl, rollouts.jsonl,
// checkpoints/step-N/, adapter/; folders written atomically). Resuming puts the run folder in order
// first (run-folder.ts). Exercised by
// tests/unit/rl/rl-grpo.test.ts, rl-resume.test.ts, tests/unit/cli/run-kill.test.ts and the CLI.
import { existsSync, readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { Task } from '../data/schemas';
import type { EnvServices } from '../envs';
import { announceSandbox, createNodePythonPool } from '../tools/python/node-pool';
import type { PythonPool } from '../tools/python/pool';
import { CorpusSearch, parseCorpusJsonl } from '../tools/search/corpus';
import { cutJsonl, recoverCheckpoint, rlSlots } from '../train/run-folder';
import { restoreTrainState } from '../train/trainer-state';
import { NodeFsStorage } from '../run/node-storage';
import { recordRun } from '../run/recorder';
import type { RunEmit } from '../run/events';
import { METRICS_FILE, ROLLOUTS_FILE } from '../run/layout';
import { loadCliModel, type CliModel } from '../model/node-load';
import { NodeDirSource } from '../model/io/node-source';
import type { RlConfig } from './config-validate';
import { needsPython, shippedCorpus, taskFile, tasksFromText, type RlEnvServices } from './env-factory';
import { connectSearchProxy, extraTools, needsSearch, poolSettings } from './tools-config';
import { createCustomEnvironment } from '../envs/node-custom-module';
import type { SearchBackend } from '../tools/search/types';
import { createRlContext } from '../run/rl-context';
import type { GrpoContext } from './grpo-trainer';
import type { RlHooks } from './hooks';
import { resumePoint } from './run';
import type { SamplerPosition } from '../data/sampling';

export interface RunServices {
  services: RlEnvServices;
  pool: PythonPool | null;
}

/** Starts what the environment needs; the Python pool prints its isolation level (and refuses a
 * weak sandbox unless rollout.allow_weak_sandbox) before any model-written code can run. The
 * tools section adds the proxy search backend, the HTTP tools and loads data.env_module. */
export async function startServices(cfg: RlConfig, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<RunServices> {
  const services: RlEnvServices = {};
  let pool: PythonPool | null = null;
  if (needsPython(cfg)) {
    const allowWeakSandbox = cfg.rollout.allow_weak_sandbox;
    announceSandbox(log, { allowWeakSandbox });
    pool = createNodePythonPool({ ...poolSettings(cfg), allowWeakSandbox });
    await pool.ready();
    services.python = pool;
  }
  try {
    if (needsSearch(cfg)) services.search = await searchBackend(cfg);
    services.extraTools = extraTools(cfg, services.search ?? null);
    if (cfg.data.env_module !== null) {
      const e = cfg.env, base: EnvServices = { ...(services.python ? { python: services.python } : {}), ...(services.search ? { search: services.search } : {}) };
      services.custom = await createCustomEnvironment(cfg.data.env_module, { services: base, weights: e.weights, ...(e.system_prompt !== null ? { systemPrompt: e.system_prompt } : {}) });
    }
  } catch (err) {
    await pool?.close();
    throw err;
  }
  return { services, pool };
}

/** tools.search: the running proxy (proxy mode) or the corpus file (tools.search.corpus, data.corpus, the shipped one). */
async function searchBackend(cfg: RlConfig): Promise<SearchBackend> {
  if (cfg.tools.search.mode === 'proxy') return connectSearchProxy(cfg);
  const file = cfg.tools.search.corpus ?? cfg.data.corpus ?? (cfg.data.env_module === null ? shippedCorpus(cfg.data.env) : null) ?? shippedCorpus('search_qa');
  if (!file || !existsSync(file)) throw new Error(`tools.search: the corpus ${file ?? '(none)'} does not exist; set tools.search.corpus to a corpus JSONL`);
  return new CorpusSearch(parseCorpusJsonl(readFileSync(file, 'utf8'), file));
}

export function loadTasksFor(cfg: RlConfig, split: 'train' | 'eval', log: (s: string) => void): Task[] {
  const file = taskFile(cfg, split);
  if (file && !existsSync(file)) throw new Error(`${split} tasks: ${file} does not exist (data.${split === 'train' ? 'dataset' : 'eval_dataset'})`);
  return tasksFromText(cfg, file ? readFileSync(file, 'utf8') : null, file ?? 'story', log);
}

export async function loadRunModel(cfg: RlConfig, log: (s: string) => void, adapter?: string, opts: { tune?: boolean } = {}): Promise<CliModel> {
  const flags: Record<string, string | true> = { model: cfg.model.path, quant: cfg.model.quant, tune: String(opts.tune ?? true) };
  if (cfg.model.tokenizer) flags.tokenizer = cfg.model.tokenizer;
  if (cfg.model.quant_embeddings) flags['quant-embeddings'] = true;
  if (adapter) flags.adapter = adapter;
  return loadCliModel({ positionals: [], flags, all: {} }, log);
}

export interface OpenRun {
  ctx: GrpoContext;
  tasks: Task[];
  model: CliModel;
  start?: { step: number; sampler: SamplerPosition; numTokens: number };
  close(): Promise<void>;
}

export interface OpenRunOptions {
  log: (s: string) => void;
  /** Continue the run in this folder from its newest complete checkpoint (logs cut to it); from step 0 when it has none. */
  resume?: string;
  hooks?: RlHooks;
  /** Time kernel variants at load (default true). */
  tune?: boolean;
}

/** Everything a training run needs, built from the config. */
export async function openRun(cfg: RlConfig, opts: OpenRunOptions): Promise<OpenRun> {
  const tasks = loadTasksFor(cfg, 'train', opts.log);
  const m = await loadRunModel(cfg, opts.log, undefined, { tune: opts.tune });
  const svc = await startServices(cfg);
  let ctx: GrpoContext;
  try {
    ctx = await createRlContext(cfg, { rt: m.rt, model: m.model, tokenizer: m.loaded.tokenizer }, svc.services, opts.hooks,
      { openDir: (dir) => new NodeDirSource(dir), log: opts.log });
  } catch (e) {
    m.model.dispose();
    await svc.pool?.close();
    throw e;
  }
  const close = async () => {
    ctx.reference?.dispose();
    await ctx.trainer.dispose();
    m.model.dispose();
    await svc.pool?.close();
  };
  try {
    let start: OpenRun['start'];
    if (opts.resume) {
      const st = new NodeFsStorage(opts.resume);
      const found = await recoverCheckpoint(st, await rlSlots(st), m.model.cfg, (x) => resumePoint(x).step, opts.log);
      const step = found?.step ?? 0;
      const cut = (await cutJsonl(st, METRICS_FILE, step)) + (await cutJsonl(st, ROLLOUTS_FILE, step));
      if (found) {
        restoreTrainState(m.rt, ctx.trainer, found.state);
        start = resumePoint(found.state);
        opts.log(`resumed from ${st.where(found.dir)}: step ${start.step}, ${found.state.step} optimizer updates`);
      } else {
        opts.log(`resume: no complete checkpoint in ${opts.resume} yet, starting over`);
      }
      opts.log(cut ? `; cut ${cut} log rows past it\n` : '\n');
    }
    return { ctx, tasks, model: m, start, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The run folder's writer on Node: config.yaml (the resolved config, when given), logs, checkpoints, adapter. */
export function nodeRecorder(outDir: string, cfg?: RlConfig): RunEmit {
  return recordRun(new NodeFsStorage(outDir), cfg ? { configYaml: stringify(cfg) } : {});
}
