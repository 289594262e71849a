// Node side of an RL run (the `train` / `eval` commands and the experiment script): loads the
// model, the services the environment needs (a Pyodide pool, the search corpus or proxy, the tools
// section's HTTP tools, a custom env module), the tasks, the
// Trainer and the GPU GRPO loss from a validated RlConfig; the run folder is written by the
// recorder (src/run/recorder.ts) over NodeFsStorage (config.yaml, metrics.jsonl, rollouts.jsonl,
// checkpoints/step-N/, adapter/; folders written atomically). Resuming puts the run folder in order
// first (src/run/resume.ts, shared with the engine worker). Exercised by
// tests/unit/rl/rl-grpo.test.ts, rl-resume.test.ts, tests/unit/cli/run-kill.test.ts and the CLI.
import { existsSync, readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { Task } from '../data/schemas';
import type { Environment } from '../envs/types';
import { announceSandbox, createNodePythonPool } from '../tools/python/node-pool';
import { restoreTrainState } from '../train/trainer-state';
import { NodeFsStorage } from './node-storage';
import { recordRun } from './recorder';
import type { RunEmit } from './events';
import { prepareResume } from './resume';
import { resumePoint } from './rl-run';
import { loadCliModel, type CliModel } from '../model/node-load';
import { NodeDirSource } from '../model/io/node-source';
import type { RlConfig } from '../rl/config-validate';
import { taskFile, tasksFromText } from '../rl/env-factory';
import { startEnvServices, type RunServices } from '../rl/env-services';
import { createCustomEnvironment } from '../envs/node-custom-module';
import { createRlContext } from './rl-context';
import type { GrpoContext } from '../rl/grpo-trainer';
import type { RlHooks } from '../rl/hooks';
import type { SamplerPosition } from '../data/sampling';

export type { RunServices };

/** Starts what the environment needs (src/rl/env-services.ts) with a process pool, files read from
 * disk and data.env_module loaded as a module; the Python pool prints its isolation level (and
 * refuses a weak sandbox unless rollout.allow_weak_sandbox) before any model-written code can run. */
export async function startServices(cfg: RlConfig, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<RunServices> {
  return startEnvServices(cfg, {
    createPool: ({ allowWeakSandbox, ...settings }) => {
      announceSandbox(log, { allowWeakSandbox });
      return createNodePythonPool({ ...settings, allowWeakSandbox });
    },
    readText: async (file) => {
      if (!existsSync(file)) throw new Error('no such file');
      return readFileSync(file, 'utf8');
    },
    loadCustomEnv: async (modulePath, request) => (await createCustomEnvironment(modulePath, request)) as Environment<Task>,
  });
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
      const r = await prepareResume(st, m.model.cfg, ctx.cfg.trainer, opts.log);
      if (r.state) {
        start = resumePoint(r.state);
        restoreTrainState(m.rt, ctx.trainer, r.state);
        opts.log(`resumed from ${r.from}: step ${start.step}, ${r.state.step} optimizer updates`);
      } else {
        opts.log(`resume: no complete checkpoint in ${opts.resume} yet, starting over`);
      }
      opts.log(r.cut ? `; cut ${r.cut} log rows past it\n` : '\n');
    }
    return { ctx, tasks, model: m, start, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The run folder's writer on Node: config.yaml (the resolved config, when given), logs, checkpoints, adapter, status.json at the end. */
export function nodeRecorder(outDir: string, cfg?: RlConfig): RunEmit {
  return recordRun(new NodeFsStorage(outDir), { status: true, ...(cfg ? { configYaml: stringify(cfg), keepCheckpoints: cfg.log.keep_checkpoints } : {}) });
}
