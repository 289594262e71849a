// Node side of an RL run (the `train` / `eval` commands and the experiment script): loads the
// model, the services the environment needs (a Pyodide pool, the SQuAD corpus), the tasks, the
// Trainer and the GPU GRPO loss from a validated RlConfig, and writes the run folder
// (metrics.jsonl, rollouts.jsonl, checkpoints/step-N/, adapter/). Exercised by
// tests/unit/rl-grpo.test.ts and the CLI.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLAIN_TEMPLATE } from '../agents/chat-template';
import type { Task } from '../data/schemas';
import type { EnvServices } from '../envs';
import { GrpoLoss } from '../gpu/kernels/grpo';
import { NodeDirSource } from '../model/io/node-source';
import { createNodePythonPool } from '../tools/python/node-pool';
import type { PythonPool } from '../tools/python/pool';
import { CorpusSearch, parseCorpusJsonl } from '../tools/search/corpus';
import { loadTrainState } from '../train/checkpoint';
import { Trainer } from '../train/trainer';
import { writeFiles } from '../train/write-files';
import { loadCliModel, type CliModel } from '../cli/load-model';
import type { RlConfig } from './config';
import { buildEnvironment, needsPython, taskFile, tasksFromText } from './env-factory';
import type { GrpoContext } from './grpo-trainer';
import { composeHooks, type RlHooks } from './hooks';
import type { RolloutContext } from './rollouts';
import { resumePoint, type RunSink } from './run';
import { toJsonl } from './rollout-log';
import type { SamplerPosition } from '../data/sampling';

export interface RunServices {
  services: EnvServices;
  pool: PythonPool | null;
}

export async function startServices(cfg: RlConfig): Promise<RunServices> {
  const services: EnvServices = {};
  let pool: PythonPool | null = null;
  if (needsPython(cfg)) {
    pool = createNodePythonPool({ workers: cfg.rollout.python_workers, timeoutMs: cfg.rollout.tool_timeout_ms });
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

export async function loadRunModel(cfg: RlConfig, log: (s: string) => void, adapter?: string): Promise<CliModel> {
  const flags: Record<string, string | true> = { model: cfg.model.path, quant: cfg.model.quant };
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

/** Everything a training run needs, built from the config; `resume`: a checkpoint folder. */
export async function openRun(cfg: RlConfig, opts: { log: (s: string) => void; resume?: string; hooks?: RlHooks }): Promise<OpenRun> {
  const tasks = loadTasksFor(cfg, 'train', opts.log);
  const m = await loadRunModel(cfg, opts.log);
  const svc = await startServices(cfg);
  try {
    const o = cfg.optim;
    const schedule = o.schedule === 'cosine'
      ? { kind: 'cosine' as const, lr: o.lr, warmupSteps: o.warmup_steps, totalSteps: cfg.train.steps * cfg.grpo.num_iterations, minRatio: o.min_lr_ratio }
      : { kind: 'constant' as const, lr: o.lr, warmupSteps: o.warmup_steps };
    const trainer = await Trainer.create(m.rt, m.model, {
      params: cfg.lora.mode === 'full' ? { mode: 'full' } : { mode: 'lora', config: { rank: cfg.lora.rank, alpha: cfg.lora.alpha, useRslora: cfg.lora.rslora, targets: cfg.lora.targets }, seed: cfg.lora.init_seed },
      optimizer: { schedule, beta1: o.beta1, beta2: o.beta2, weightDecay: o.weight_decay, maxGradNorm: o.max_grad_norm > 0 ? o.max_grad_norm : null },
      recompute: cfg.train.recompute,
    });
    let start: OpenRun['start'];
    if (opts.resume) {
      const st = await loadTrainState(new NodeDirSource(opts.resume), m.model.cfg);
      trainer.restore({ params: st.params, adam: st.adam });
      start = resumePoint(st);
      opts.log(`resumed from ${opts.resume}: step ${start.step}, ${st.step} optimizer updates\n`);
    }
    const rc: RolloutContext = {
      cfg, rt: m.rt, model: m.model, tokenizer: m.loaded.tokenizer, env: buildEnvironment(cfg, svc.services),
      template: cfg.model.template === 'plain' ? PLAIN_TEMPLATE : undefined, hooks: composeHooks(opts.hooks),
    };
    const ctx: GrpoContext = { ...rc, trainer, loss: await GrpoLoss.create(m.rt) };
    return {
      ctx, tasks, model: m, start,
      async close() {
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
      await writeFiles(join(outDir, 'checkpoints', `step-${step}`), files);
    },
    async adapter(files) {
      await writeFiles(join(outDir, 'adapter'), files);
      log(`adapter written to ${join(outDir, 'adapter')}\n`);
    },
  };
}
