// Node side of an RL run (the `train` / `eval` commands and the experiment script): loads the
// model, the services the environment needs (a Pyodide pool, the SQuAD corpus), the tasks, the
// Trainer and the GPU GRPO loss from a validated RlConfig, and writes the run folder
// (metrics.jsonl, rollouts.jsonl, checkpoints/step-N/, adapter/; folders written atomically).
// Resuming puts the run folder in order first (run-folder.ts). Exercised by
// tests/unit/rl/rl-grpo.test.ts, rl-resume.test.ts, run-kill.test.ts and the CLI.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLAIN_TEMPLATE } from '../agents/chat-template';
import type { Task } from '../data/schemas';
import type { EnvServices } from '../envs';
import { GrpoLoss } from '../gpu/kernels/grpo';
import { announceSandbox, createNodePythonPool } from '../tools/python/node-pool';
import type { PythonPool } from '../tools/python/pool';
import { CorpusSearch, parseCorpusJsonl } from '../tools/search/corpus';
import { cutJsonl, recoverCheckpoint, rlSlots } from '../train/run-folder';
import { Trainer } from '../train/trainer';
import { rlTrainerConfigOf } from '../run/trainer-settings';
import { restoreTrainState } from '../train/trainer-state';
import { writeFilesAtomic } from '../train/write-files';
import { loadCliModel, type CliModel } from '../model/node-load';
import type { RlConfig } from './config-validate';
import { buildEnvironment, needsPython, taskFile, tasksFromText } from './env-factory';
import type { GrpoContext } from './grpo-trainer';
import { composeHooks, type RlHooks } from './hooks';
import type { RolloutContext } from './rollouts';
import { resumePoint, type RunSink } from './run';
import { toJsonl } from './rollout-log';
import type { SamplerPosition } from '../data/sampling';
import { NodeDirSource } from '../model/io/node-source';
import { readStartPolicy, referenceFor, withStartAdapter } from './policy-setup';

export interface RunServices {
  services: EnvServices;
  pool: PythonPool | null;
}

/** Starts what the environment needs; the Python pool prints its isolation level (and refuses a
 * weak sandbox unless rollout.allow_weak_sandbox) before any model-written code can run. */
export async function startServices(cfg: RlConfig, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<RunServices> {
  const services: EnvServices = {};
  let pool: PythonPool | null = null;
  if (needsPython(cfg)) {
    const allowWeakSandbox = cfg.rollout.allow_weak_sandbox;
    announceSandbox(log, { allowWeakSandbox });
    pool = createNodePythonPool({ workers: cfg.rollout.python_workers, timeoutMs: cfg.rollout.tool_timeout_ms, allowWeakSandbox });
    await pool.ready();
    services.python = pool;
  }
  if (cfg.data.env === 'search_qa' || cfg.data.env === 'agent') {
    const file = cfg.data.corpus ?? (cfg.data.env === 'agent' ? 'datasets/agent_corpus.jsonl' : 'datasets/squad_corpus.jsonl');
    services.search = new CorpusSearch(parseCorpusJsonl(readFileSync(file, 'utf8'), file));
  }
  return { services, pool };
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
export async function openRun(fileCfg: RlConfig, opts: OpenRunOptions): Promise<OpenRun> {
  const tasks = loadTasksFor(fileCfg, 'train', opts.log);
  const m = await loadRunModel(fileCfg, opts.log, undefined, { tune: opts.tune });
  const svc = await startServices(fileCfg);
  try {
    const policy = await readStartPolicy(fileCfg, m.model.cfg, (dir) => new NodeDirSource(dir));
    const cfg = policy.cfg;
    const trainer = await Trainer.create(m.rt, m.model, withStartAdapter(rlTrainerConfigOf(cfg), policy));
    const reference = referenceFor(m.rt, trainer, cfg, opts.log);
    let start: OpenRun['start'];
    if (opts.resume) {
      const found = await recoverCheckpoint(await rlSlots(opts.resume), m.model.cfg, (st) => resumePoint(st).step, opts.log);
      const step = found?.step ?? 0;
      const cut = (await cutJsonl(join(opts.resume, 'metrics.jsonl'), step)) + (await cutJsonl(join(opts.resume, 'rollouts.jsonl'), step));
      if (found) {
        restoreTrainState(m.rt, trainer, found.state);
        start = resumePoint(found.state);
        opts.log(`resumed from ${found.dir}: step ${start.step}, ${found.state.step} optimizer updates`);
      } else {
        opts.log(`resume: no complete checkpoint in ${opts.resume} yet, starting over`);
      }
      opts.log(cut ? `; cut ${cut} log rows past it\n` : '\n');
    }
    const rc: RolloutContext = {
      cfg, rt: m.rt, model: m.model, tokenizer: m.loaded.tokenizer, env: buildEnvironment(cfg, svc.services),
      template: cfg.model.template === 'plain' ? PLAIN_TEMPLATE : undefined, hooks: composeHooks(opts.hooks),
    };
    const ctx: GrpoContext = { ...rc, trainer, loss: await GrpoLoss.create(m.rt), reference };
    return {
      ctx, tasks, model: m, start,
      async close() {
        reference?.dispose();
        await trainer.dispose();
        m.model.dispose();
        await svc.pool?.close();
      },
    };
  } catch (e) {
    m.model.dispose();
    await svc.pool?.close();
    throw e;
  }
}

/** Writes the run folder: metrics.jsonl, rollouts.jsonl, checkpoints/step-N/, adapter/. */
export function nodeSink(outDir: string, log: (s: string) => void): RunSink {
  mkdirSync(outDir, { recursive: true });
  return {
    log: (line) => log(line + '\n'),
    metrics: (row) => appendFileSync(join(outDir, 'metrics.jsonl'), toJsonl([row])),
    rollouts: (rows) => appendFileSync(join(outDir, 'rollouts.jsonl'), toJsonl(rows)),
    async checkpoint(step, files) {
      await writeFilesAtomic(join(outDir, 'checkpoints', `step-${step}`), files);
    },
    async adapter(files) {
      await writeFilesAtomic(join(outDir, 'adapter'), files);
      log(`adapter written to ${join(outDir, 'adapter')}\n`);
    },
    async model(files) {
      await writeFilesAtomic(join(outDir, 'model'), files);
      log(`model written to ${join(outDir, 'model')} (Hugging Face folder)\n`);
    },
  };
}
