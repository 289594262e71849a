// Online training while serving (`serve --online`): rewarded rollouts are collected; every
// `batch` of them the server pauses admission, lets in-flight requests finish on the adapter that
// sampled them, runs one trace-training update (trace-train.ts, the same code as train-traces) on
// the LoRA adapter being served (the trainer's tensors ARE the served adapter, so the next request
// reads the updated weights: the hot swap), writes metrics.jsonl, adapter/ and checkpoints/step-N/
// (the newest keepCheckpoints kept, as every trainer) into the run folder, then resumes. With
// `served` (the served GpuModel) requests decode on the adapter merged into the weights
// (GpuModel.mergeLora): merged at mergeServed(), unmerged while an update runs, merged again after
// it. Tested by tests/unit/server/serve-online.test.ts.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { GpuRuntime } from '../../gpu/runtime';
import type { GrpoLoss } from '../../gpu/kernels/grpo';
import type { ModelConfig } from '../../model/types';
import { modelShape, saveTrainState, TRAIN_STATE_VERSION } from '../../train/checkpoint';
import { exportPeftAdapter } from '../../train/peft-export';
import type { Trainer } from '../../train/trainer';
import { writeFilesAtomic } from '../../train/write-files';
import { NodeFsStorage } from '../../run/node-storage';
import { pruneCheckpoints } from '../../run/run-folder';
import { episodesOfRollout, type TraceEpisode } from './trace-episodes';
import { trainOnTraces, type TraceTrainOptions } from './trace-train';
import type { CallRecord } from './traces';

export interface OnlineOptions {
  /** Rewarded rollouts per update. */
  batch: number;
  /** Run folder (metrics.jsonl, adapter/, checkpoints/step-N/). */
  outDir: string;
  /** base_model_name_or_path of the written adapter. */
  baseModelName: string;
  modelCfg: ModelConfig;
  /** Write a checkpoint every N updates (0: none; adapter/ is rewritten after every update). */
  checkpointEvery: number;
  /** Keep the newest N checkpoints/step-M/ folders, older ones removed once a new one is complete
   * (log.keep_checkpoints of the run config; 0: keep all). */
  keepCheckpoints: number;
  train: TraceTrainOptions;
  /**
   * The served model, whose adapter is the trainer's: decoded with the adapter merged between
   * updates (a no-op where GpuModel.mergeLora declines: NF4, large models).
   */
  served?: MergeableModel;
}

/** What OnlineTrainer needs of the served GpuModel. */
export interface MergeableModel {
  mergeLora(): Promise<boolean>;
  unmergeLora(): void;
}

export interface OnlineStatus {
  object: 'train.status';
  /** Updates done (each `train.steps` optimizer steps over one batch). */
  updates: number;
  optimizer_steps: number;
  /** Rewarded rollouts waiting for the next update. */
  rollouts_pending: number;
  rollouts_trained: number;
  /** Batches dropped because the update could not run (e.g. every advantage 0), with the last reason. */
  batches_skipped: number;
  last_error: string | null;
  batch: number;
  /** An update is draining requests or training now. */
  training: boolean;
  last_metrics: Record<string, number> | null;
}

export class OnlineTrainer {
  private readonly pending = new Map<string, TraceEpisode[]>();
  private readonly trainedIds = new Set<string>();
  private updates = 0;
  private skipped = 0;
  private lastError: string | null = null;
  private last: Record<string, number> | null = null;
  /** Requests being served on the current adapter. */
  private leases = 0;
  private paused = false;
  private resumeWaiters: (() => void)[] = [];
  private drained: (() => void) | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly rt: GpuRuntime, private readonly trainer: Trainer, private readonly loss: GrpoLoss,
    readonly opts: OnlineOptions, private readonly log: (line: string) => void) {
    if (!(Number.isInteger(opts.batch) && opts.batch >= 1)) throw new Error(`--online-batch must be a positive integer, got ${opts.batch}`);
    mkdirSync(opts.outDir, { recursive: true });
  }

  /**
   * Held by a request from before it is scheduled until its response (log-probs included) is
   * built: an update waits until none is held, and new requests wait while it runs.
   */
  async acquire(): Promise<void> {
    while (this.paused) await new Promise<void>((resolve) => this.resumeWaiters.push(resolve));
    this.leases++;
  }

  release(): void {
    this.leases--;
    if (this.leases === 0) this.drained?.();
  }

  /** A reward for a rollout: its episodes join the next batch (a repeated report replaces the pending one). */
  reward(rolloutId: string, calls: readonly CallRecord[], reward: number): 'pending' | 'already_trained' | 'no_calls' {
    if (this.trainedIds.has(rolloutId)) return 'already_trained';
    const episodes = episodesOfRollout(calls, reward).map((e) => e.episode);
    if (!episodes.length) return 'no_calls';
    this.pending.set(rolloutId, episodes);
    if (this.pending.size >= this.opts.batch) this.running ??= this.run().finally(() => { this.running = null; });
    return 'pending';
  }

  status(): OnlineStatus {
    return {
      object: 'train.status', updates: this.updates, optimizer_steps: this.trainer.optimizer.step, rollouts_pending: this.pending.size,
      rollouts_trained: this.trainedIds.size, batches_skipped: this.skipped, last_error: this.lastError, batch: this.opts.batch,
      training: this.paused, last_metrics: this.last,
    };
  }

  /** Serve on the adapter merged into the weights (call once the trainer's adapter is attached). */
  async mergeServed(): Promise<boolean> {
    return (await this.opts.served?.mergeLora()) ?? false;
  }

  /** Resolves when no update is running or due (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    while (this.pending.size >= this.opts.batch) {
      this.paused = true;
      try {
        if (this.leases > 0) await new Promise<void>((resolve) => { this.drained = resolve; });
        this.drained = null;
        // The adapter changes: train on the separate path, serve a fresh merge afterwards.
        this.opts.served?.unmergeLora();
        try {
          await this.update();
        } finally {
          await this.mergeServed();
        }
      } finally {
        this.paused = false;
        const w = this.resumeWaiters;
        this.resumeWaiters = [];
        for (const resume of w) resume();
      }
    }
  }

  /** One update on the oldest `batch` rewarded rollouts. */
  private async update(): Promise<void> {
    const ids = [...this.pending.keys()].slice(0, this.opts.batch);
    const episodes = ids.flatMap((id) => this.pending.get(id)!);
    for (const id of ids) {
      this.pending.delete(id);
      this.trainedIds.add(id);
    }
    const n = this.updates + 1, t0 = performance.now();
    let history: Record<string, number>[];
    try {
      history = await trainOnTraces(this.rt, this.trainer, this.loss, episodes, this.opts.train, (l) => this.log(`online update ${n}: ${l}`));
    } catch (e) {
      this.skipped++;
      this.lastError = (e as Error).message;
      this.log(`online update ${n} skipped (${ids.length} rollouts dropped): ${this.lastError}`);
      return;
    }
    this.updates = n;
    const base = this.trainer.optimizer.step - history.length;
    const rows = history.map((h) => ({ ...h, step: base + h.step, update: n, rollouts: ids.length, step_time: (performance.now() - t0) / 1000 / history.length }));
    this.last = rows[rows.length - 1];
    appendFileSync(join(this.opts.outDir, 'metrics.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const lora = await this.trainer.exportLora();
    await writeFilesAtomic(join(this.opts.outDir, 'adapter'), exportPeftAdapter(lora, this.opts.modelCfg, { baseModelName: this.opts.baseModelName }));
    if (this.opts.checkpointEvery > 0 && n % this.opts.checkpointEvery === 0) await this.checkpoint(n);
    this.log(`online update ${n}: ${ids.length} rollouts, reward ${this.last.reward.toFixed(3)}, adapter ${join(this.opts.outDir, 'adapter')} now served`);
  }

  /** checkpoints/step-N/ (N = optimizer steps): the TrainState, as `train` writes it. */
  private async checkpoint(update: number): Promise<void> {
    const st = await this.trainer.state();
    const t = this.trainer.optimizer.step;
    const lora = this.trainer.trainable.mode === 'lora' ? this.trainer.trainable.params.config : undefined;
    const files = saveTrainState({
      version: TRAIN_STATE_VERSION, mode: this.trainer.trainable.mode,
      config: { online: { batch: this.opts.batch, update, trainer: this.opts.train.trainer, steps: this.opts.train.steps } },
      step: t, schedule: { step: t, lr: this.trainer.optimizer.lr }, rng: { data: { seed: 0, epoch: 0, position: 0 }, loraInitSeed: 0 },
      ...(lora ? { lora } : {}), model: modelShape(this.opts.modelCfg), params: st.params, adam: st.adam, ...(this.last ? { metrics: [this.last] } : {}),
    });
    await writeFilesAtomic(join(this.opts.outDir, 'checkpoints', `step-${t}`), files);
    const gone = await pruneCheckpoints(new NodeFsStorage(this.opts.outDir), this.opts.keepCheckpoints, t);
    if (gone.length) this.log(`online: removed ${gone.join(', ')} (keeping the newest ${this.opts.keepCheckpoints})`);
  }
}
