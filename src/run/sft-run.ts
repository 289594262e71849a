// The SFT loop shared by the CLI (`npm run cli -- sft`) and the browser: one typed config
// (defaults, validation, errors that say what to do), data -> seeded batches -> Trainer.sftStep
// -> metrics (TRL names) -> periodic checkpoints (TrainState files) -> export (PEFT adapter, or a
// Hugging Face model folder in full mode). Resumable exactly from a checkpoint. Reports through
// RunEvent (src/run/events.ts); files travel in checkpoint / finished events as name -> bytes maps
// and the recorder (src/run/recorder.ts) writes them.
// Tested by tests/unit/train/sft-resume.test.ts, sft-export.test.ts, sft-cli.test.ts and tests/e2e/sft.spec.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from '../model/gpu/model';
import type { QuantMode } from '../model/gpu/upload';
import type { Tokenizer } from '../model/tokenizer';
import { PROJECTIONS, type LoraWeights, type ModelConfig, type Projection } from '../model/types';
import type { FixedMetricName } from '../metrics/names';
import { saveTrainState, type TrainState } from '../train/checkpoint';
import { SftBatcher, type DataCursor } from '../train/batches';
import type { SftDataset } from '../train/data';
import { planTraining, type MemoryPlan } from '../train/memory-plan';
import { exportHfModel, exportPeftAdapter, tokenizerFilesOf, type ExportFiles } from '../train/peft-export';
import { Trainer, type TrainerConfig } from '../train/trainer';
import type { RunControl } from '../train/run-control';
import type { MetricsRow, RunEmit } from './events';
import { failureMessage } from './failure';
import { checkpointPath } from './layout';
import { captureTrainState, restoreTrainState, trainerParamsOf } from '../train/trainer-state';
import { FNV_OFFSET, fnvMix, hex32 } from '../util/fnv';

export interface SftConfig {
  /** 'lora': an adapter over the frozen base (f32 or NF4); 'full': every weight (f32 model). */
  mode: 'lora' | 'full';
  /** LoRA rank R (default 16). */
  rank: number;
  /** LoRA alpha; scaling alpha / R (default 2 R). */
  alpha: number;
  /** rsLoRA scaling alpha / sqrt(R) (default false). */
  useRslora: boolean;
  /** Projections with an adapter (default all seven). */
  targets: Projection[];
  /** Peak learning rate (default 2e-4 LoRA, 1e-5 full). */
  lr: number;
  /** Optimizer updates of the whole run (default one epoch: ceil(examples / batchSize)). */
  steps: number;
  /** B: examples per update (default 8, at most the dataset). */
  batchSize: number;
  /** Examples per forward/backward call; gradients accumulate over the batch (default B). */
  microBatch: number;
  /** Reshuffle the examples every epoch (default true). */
  shuffle: boolean;
  /** Global gradient-norm clipping; null = off (default 1.0). */
  clip: number | null;
  /** Decoupled AdamW weight decay (default 0, as TRL's SFTConfig). */
  weightDecay: number;
  /** Learning-rate schedule after warmup (default cosine to 0 at `steps`). */
  schedule: 'constant' | 'cosine';
  /** Linear warmup updates from 0 (default 0). */
  warmup: number;
  /** Seed of the data order and of the fresh adapter's A (default 0). */
  seed: number;
  /** Recompute each layer's activations in the backward: less memory, about 30% more time (default false). */
  recompute: boolean;
  /** Longest example in tokens; longer ones are truncated (default min(512, max_position_embeddings)). */
  maxLength: number;
  /** Checkpoint every N updates (0 = only at the end; default 0). */
  saveEvery: number;
}

export type SftConfigInput = Partial<Omit<SftConfig, 'clip'>> & { clip?: number | null };

export const SFT_DEFAULTS = {
  mode: 'lora', rank: 16, useRslora: false, targets: [...PROJECTIONS], batchSize: 8, shuffle: true, clip: 1.0, weightDecay: 0,
  schedule: 'cosine', warmup: 0, seed: 0, recompute: false, saveEvery: 0,
} as const;

/** Fills the defaults and checks every field against the model and the dataset size. */
export function resolveSftConfig(c: SftConfigInput, ctx: { examples: number; cfg: ModelConfig }): SftConfig {
  const mode = c.mode ?? SFT_DEFAULTS.mode;
  const rank = c.rank ?? SFT_DEFAULTS.rank;
  const batchSize = Math.min(c.batchSize ?? SFT_DEFAULTS.batchSize, Math.max(1, ctx.examples));
  const r: SftConfig = {
    mode, rank, alpha: c.alpha ?? 2 * rank, useRslora: c.useRslora ?? SFT_DEFAULTS.useRslora, targets: [...(c.targets ?? SFT_DEFAULTS.targets)],
    lr: c.lr ?? (mode === 'lora' ? 2e-4 : 1e-5), steps: c.steps ?? Math.ceil(ctx.examples / batchSize), batchSize,
    microBatch: Math.min(c.microBatch ?? batchSize, batchSize), shuffle: c.shuffle ?? SFT_DEFAULTS.shuffle,
    clip: c.clip === undefined ? SFT_DEFAULTS.clip : c.clip === 0 ? null : c.clip, weightDecay: c.weightDecay ?? SFT_DEFAULTS.weightDecay,
    schedule: c.schedule ?? SFT_DEFAULTS.schedule, warmup: c.warmup ?? SFT_DEFAULTS.warmup, seed: c.seed ?? SFT_DEFAULTS.seed,
    recompute: c.recompute ?? SFT_DEFAULTS.recompute, maxLength: c.maxLength ?? Math.min(512, ctx.cfg.maxPositions), saveEvery: c.saveEvery ?? SFT_DEFAULTS.saveEvery,
  };
  const bad = (field: string, v: unknown, want: string) => new Error(`sft: ${field} = ${JSON.stringify(v)}; ${want}`);
  const posInt = (v: number) => Number.isInteger(v) && v > 0;
  if (r.mode !== 'lora' && r.mode !== 'full') throw bad('mode', r.mode, 'use "lora" or "full"');
  if (!posInt(r.rank)) throw bad('rank', r.rank, 'use a positive integer (8-32 is usual)');
  if (!(r.alpha > 0)) throw bad('alpha', r.alpha, 'use a number > 0 (2 x rank is usual)');
  if (!r.targets.length || r.targets.some((p) => !PROJECTIONS.includes(p))) throw bad('targets', r.targets, `use projections among ${PROJECTIONS.join(',')}`);
  if (!(r.lr > 0 && Number.isFinite(r.lr))) throw bad('lr', r.lr, 'use a learning rate > 0 (LoRA 1e-4 to 5e-4, full 1e-5)');
  if (ctx.examples < 1) throw new Error('sft: the dataset has no usable example; see the skipped-line report');
  if (!posInt(r.steps)) throw bad('steps', r.steps, 'use a positive number of optimizer updates');
  if (!posInt(c.batchSize ?? 1)) throw bad('batchSize', c.batchSize, 'use a positive integer');
  if (!posInt(r.microBatch)) throw bad('microBatch', r.microBatch, 'use a positive integer <= batchSize');
  if (r.clip !== null && !(r.clip > 0)) throw bad('clip', r.clip, 'use a norm > 0, or 0 to turn clipping off');
  if (!(r.weightDecay >= 0)) throw bad('weightDecay', r.weightDecay, 'use a value >= 0');
  if (r.schedule !== 'constant' && r.schedule !== 'cosine') throw bad('schedule', r.schedule, 'use "constant" or "cosine"');
  if (!(Number.isInteger(r.warmup) && r.warmup >= 0)) throw bad('warmup', r.warmup, 'use an integer >= 0');
  if (!Number.isInteger(r.seed)) throw bad('seed', r.seed, 'use an integer');
  if (!(Number.isInteger(r.maxLength) && r.maxLength >= 2 && r.maxLength <= ctx.cfg.maxPositions)) {
    throw bad('maxLength', r.maxLength, `use an integer in [2, ${ctx.cfg.maxPositions}] (max_position_embeddings)`);
  }
  if (!(Number.isInteger(r.saveEvery) && r.saveEvery >= 0)) throw bad('saveEvery', r.saveEvery, 'use an integer >= 0 (0: only at the end)');
  return r;
}

/** A fingerprint of the tokenized data (FNV-1a over ids and masks), so a resume can check it sees the same examples. */
export function dataHash(ds: SftDataset): string {
  let h = FNV_OFFSET;
  const mix = (x: number) => { h = fnvMix(fnvMix(h, x & 0xffff), x >>> 16); };
  for (const e of ds.examples) {
    mix(e.ids.length);
    for (const id of e.ids) mix(id);
    for (const m of e.mask) mix(m);
  }
  return hex32(h);
}

/** One logged update: the step and metric values under their vocabulary names. */
export type SftMetrics = { step: number } & Partial<Record<FixedMetricName, number>>;

/** The progress line printed per update. */
export function formatStep(m: SftMetrics, total: number): string {
  const f = (v: number | undefined, d = 4) => (v === undefined ? '-' : v.toFixed(d));
  return `step ${m.step}/${total}  loss ${f(m.loss)}  grad_norm ${f(m.grad_norm)}  learning_rate ${(m.learning_rate ?? 0).toExponential(2)}  tokens/s ${f(m['perf/train_tokens_per_s'], 1)}`;
}

/**
 * The memory plan of a run before the model is loaded: the run's own first updates (at most 32,
 * from `cursor` when resuming) replayed with their real sequence lengths, SftRun's pool trim and
 * the checkpoints (every saveEvery updates and at the end, when the run writes them).
 */
export function planSftRun(cfg: ModelConfig, c: SftConfig, data: SftDataset, m: {
  quant: QuantMode; quantEmbeddings: boolean; maxRows?: number; chunkRows?: number; lora?: { rank: number; targets: Projection[] };
  /** Resuming: the checkpoint's data cursor and step. */
  cursor?: DataCursor; startStep?: number;
}): MemoryPlan {
  const start = m.startStep ?? 0;
  const lens = data.examples.map((e) => e.ids.length);
  const batcher = new SftBatcher(lens.length, { batchSize: c.batchSize, seed: c.seed, shuffle: c.shuffle }, m.cursor);
  const updates = Array.from({ length: Math.max(1, Math.min(32, c.steps - start)) }, () => batcher.next().indices.map((i) => lens[i]));
  return planTraining(cfg, {
    mode: c.mode, quant: m.quant, quantEmbeddings: m.quantEmbeddings, lora: c.mode === 'lora' ? m.lora ?? { rank: c.rank, targets: c.targets } : undefined,
    batchSize: c.batchSize, microBatch: c.microBatch, seqLen: Math.max(...lens), recompute: c.recompute, maxRows: m.maxRows, chunkRows: m.chunkRows,
    updates, trimAfterUpdate: true,
    checkpointAfter: updates.map((_, i) => i + 1).filter((k) => k + start === c.steps || (c.saveEvery > 0 && (k + start) % c.saveEvery === 0)),
  });
}

export interface SftRunOptions {
  config: SftConfig;
  data: SftDataset;
  /** base_model_name_or_path of the exported adapter. */
  baseModelName: string;
  /** Its files go into a full-mode export (none without it). */
  tokenizer?: Tokenizer | null;
  /** LoRA mode: start from this adapter (its rank, alpha and targets win over the config's). */
  adapter?: LoraWeights | null;
  /** Continue a run exactly (loadTrainState(src, cfg)); its config wins except steps and saveEvery. */
  resume?: TrainState | null;
  /** The folder `resume` was read from (prepareResume's dir; default checkpoints/step-N of its step). */
  resumedFrom?: string | null;
  /** Names the run in the `started` event (the CLI: its run folder). */
  runId?: string;
  /** The memory plan reported in `started` (planSftRun). */
  plan?: MemoryPlan | null;
}

const METRICS_TAIL = 1000;

export class SftRun {
  private readonly metrics: SftMetrics[];
  private numTokens: number;

  private constructor(private readonly rt: GpuRuntime, readonly trainer: Trainer, readonly config: SftConfig, private readonly opts: SftRunOptions, private readonly batcher: SftBatcher) {
    this.metrics = (opts.resume?.metrics ?? []).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)) as SftMetrics);
    this.numTokens = this.metrics.at(-1)?.num_tokens ?? 0;
  }

  /** Builds the trainer (fresh, from an adapter, or restored from a checkpoint) and the batcher. */
  static async create(rt: GpuRuntime, model: GpuModel, opts: SftRunOptions): Promise<SftRun> {
    const { data, resume } = opts;
    // The adapter trained is the loaded one's shape (or the checkpoint's), whatever the config said.
    const shape = resume?.lora ?? (opts.config.mode === 'lora' ? opts.adapter?.config : undefined);
    const c: SftConfig = shape ? { ...opts.config, rank: shape.rank, alpha: shape.alpha, useRslora: shape.useRslora, targets: [...shape.targets] } : opts.config;
    const cfg = model.cfg;
    const longest = Math.max(...data.examples.map((e) => e.ids.length));
    if (longest > model.maxRows) throw new Error(`sft: an example has ${longest} tokens but the model was loaded with maxRows ${model.maxRows}; lower maxLength or load with a larger maxRows`);
    if (resume) {
      const saved = resume.config as { data?: { hash?: string }; mode?: string };
      if (saved.data?.hash && saved.data.hash !== dataHash(data)) {
        throw new Error(`sft: the data differs from the checkpoint's (fingerprint ${dataHash(data)}, checkpoint ${saved.data.hash}); resume with the same data file, maxLength and tokenizer`);
      }
      if (resume.mode !== c.mode) throw new Error(`sft: the checkpoint is a ${resume.mode} run; resume it with mode ${resume.mode}`);
    }
    let params: TrainerConfig['params'];
    if (resume) params = trainerParamsOf(resume, cfg);
    else if (c.mode === 'full') params = { mode: 'full' };
    else if (opts.adapter) params = { mode: 'lora', adapter: opts.adapter };
    else params = { mode: 'lora', config: { rank: c.rank, alpha: c.alpha, useRslora: c.useRslora, targets: c.targets }, seed: c.seed };
    const schedule = c.schedule === 'cosine' ? { kind: 'cosine' as const, lr: c.lr, warmupSteps: c.warmup, totalSteps: c.steps } : { kind: 'constant' as const, lr: c.lr, warmupSteps: c.warmup };
    const trainer = await Trainer.create(rt, model, { params, optimizer: { schedule, maxGradNorm: c.clip, weightDecay: c.weightDecay }, recompute: c.recompute });
    try {
      if (resume) restoreTrainState(rt, trainer, resume);
      const batcher = new SftBatcher(data.examples.length, { batchSize: c.batchSize, seed: c.seed, shuffle: c.shuffle }, resume?.rng.data);
      return new SftRun(rt, trainer, c, opts, batcher);
    } catch (e) {
      await trainer.dispose();
      throw e;
    }
  }

  /** Updates done (a resumed run starts at the checkpoint's). */
  get step(): number {
    return this.trainer.optimizer.step;
  }

  get done(): boolean {
    return this.step >= this.config.steps;
  }

  /** Every update logged so far (a resumed run includes the checkpoint's tail). */
  get history(): readonly SftMetrics[] {
    return this.metrics;
  }

  /** One optimizer update on the next batch. */
  async trainStep(): Promise<SftMetrics> {
    const t0 = performance.now();
    const batch = this.batcher.next();
    const examples = batch.indices.map((i) => this.opts.data.examples[i]);
    const s = await this.trainer.sftStep(examples, this.config.microBatch);
    const secs = (performance.now() - t0) / 1000;
    const tokens = examples.reduce((n, e) => n + e.ids.length, 0);
    this.numTokens += tokens;
    const m: SftMetrics = {
      step: s.step, loss: s.loss, grad_norm: s.gradNorm, learning_rate: s.lr, 'perf/train_tokens_per_s': tokens / secs,
      num_tokens: this.numTokens, step_time: secs,
    };
    // Passes of other lengths leave buffers of other sizes in the pool (activations regrown, KV
    // caches per longest sequence); drop them once they exceed 1/8 of what is allocated.
    const mem = this.rt.memory();
    if (mem.allocated - mem.inUse > mem.allocated / 8) this.rt.pool.trim();
    this.metrics.push(m);
    if (this.metrics.length > METRICS_TAIL) this.metrics.splice(0, this.metrics.length - METRICS_TAIL);
    return m;
  }

  /**
   * Trains until `untilStep` (default config.steps), reporting every update through `emit`
   * (started, metrics, progress; checkpoint every saveEvery updates, at `untilStep`, when `control`
   * asks (checkpointNow) and before it stops the loop; finished with the export once config.steps
   * are done; cancelled / failed). Waits while `control` is paused. Without `emit` nothing is
   * checkpointed or exported (tests driving the loop step by step).
   */
  async run(emit?: RunEmit, untilStep = this.config.steps, control?: RunControl): Promise<SftMetrics[]> {
    const out: SftMetrics[] = [];
    const until = Math.min(untilStep, this.config.steps);
    const first = this.step;
    let saved = -1, lastCheckpoint: string | null = this.opts.resume ? this.opts.resumedFrom ?? checkpointPath(first) : null;
    const t0 = performance.now();
    const save = async () => {
      if (!emit || saved === this.step) return;
      const path = checkpointPath(this.step);
      await emit({ kind: 'checkpoint', step: this.step, path, files: await this.checkpoint() });
      saved = this.step;
      lastCheckpoint = path;
    };
    await emit?.({ kind: 'started', runId: this.opts.runId ?? '', trainer: 'sft', plan: this.opts.plan ?? null, totalSteps: this.config.steps, startStep: first });
    try {
      while (this.step < until) {
        if (control && (await control.beforeStep()) === 'stopping') {
          await save();
          // As an RL run: Stop keeps what was trained (the Export panel and Playground read it).
          const x = emit && this.step > first ? await this.exportFiles() : null;
          await emit?.({ kind: 'cancelled', step: this.step, lastCheckpoint, export: x ? { path: x.folder, files: x.files } : null });
          return out;
        }
        const m = await this.trainStep();
        out.push(m);
        if (emit) {
          await emit({ kind: 'metrics', row: m as MetricsRow });
          const elapsedMs = performance.now() - t0;
          await emit({ kind: 'progress', step: this.step, total: this.config.steps, elapsedMs, etaMs: Math.max(0, ((this.config.steps - this.step) * elapsedMs) / (this.step - first)) });
        }
        const every = this.config.saveEvery;
        const asked = control?.takeCheckpointRequest() ?? false;
        if (asked || this.step === until || (every > 0 && this.step % every === 0)) await save();
      }
      if (emit && this.done) {
        const x = await this.exportFiles();
        await emit({ kind: 'finished', step: this.step, export: { path: x.folder, files: x.files } });
      }
    } catch (e) {
      await emit?.({ kind: 'failed', step: this.step, message: await failureMessage(e, this.rt), lastCheckpoint });
      throw e;
    }
    return out;
  }

  /** The run's TrainState as a checkpoint (state.json + state.safetensors). */
  async checkpointState(): Promise<TrainState> {
    const { data, baseModelName } = this.opts;
    return captureTrainState(this.trainer, {
      config: { kind: 'sft', ...this.config, baseModel: baseModelName, data: { file: data.file, examples: data.examples.length, tokens: data.tokens, hash: dataHash(data) } },
      rng: { data: this.batcher.cursor, loraInitSeed: this.config.seed },
      metrics: this.metrics,
    });
  }

  async checkpoint(): Promise<ExportFiles> {
    return saveTrainState(await this.checkpointState());
  }

  /** What was trained, as files: `adapter` (PEFT) in LoRA mode, `model` (HF folder with tokenizer) in full mode. */
  async exportFiles(): Promise<{ folder: 'adapter' | 'model'; files: ExportFiles }> {
    const cfg = this.trainer.model.cfg;
    if (this.trainer.trainable.mode === 'lora') {
      return { folder: 'adapter', files: exportPeftAdapter(await this.trainer.exportLora(), cfg, { baseModelName: this.opts.baseModelName }) };
    }
    return { folder: 'model', files: exportHfModel(cfg, await this.trainer.exportFull(), this.opts.tokenizer ? tokenizerFilesOf(this.opts.tokenizer) : undefined) };
  }

  async dispose(): Promise<void> {
    await this.trainer.dispose();
  }
}

/** The config a resumed run uses: the checkpoint's, with a new total of steps / save interval when given. */
export function resumeConfig(state: TrainState, overrides: { steps?: number; saveEvery?: number }, ctx: { examples: number; cfg: ModelConfig }): SftConfig {
  const saved = state.config as SftConfigInput & { kind?: string };
  if (saved.kind !== 'sft') throw new Error(`sft: the checkpoint was written by a ${JSON.stringify(saved.kind)} run, not SFT`);
  const known = Object.fromEntries(Object.entries(saved).filter(([k]) => k in SFT_KEYS)) as SftConfigInput;
  return resolveSftConfig({ ...known, ...(overrides.steps !== undefined ? { steps: overrides.steps } : {}), ...(overrides.saveEvery !== undefined ? { saveEvery: overrides.saveEvery } : {}) }, ctx);
}

const SFT_KEYS: Record<keyof SftConfig, true> = {
  mode: true, rank: true, alpha: true, useRslora: true, targets: true, lr: true, steps: true, batchSize: true, microBatch: true, shuffle: true,
  clip: true, weightDecay: true, schedule: true, warmup: true, seed: true, recompute: true, maxLength: true, saveEvery: true,
};
