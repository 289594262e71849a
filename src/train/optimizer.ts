// The optimizer side of a training run: one typed config (AdamW hyper-parameters, global-norm
// clipping, LR schedule) validated in one place, and TrainOptimizer, which records an update on
// the GPU (GpuAdamW: grad norm, clip, AdamW with bias correction and decoupled decay, grads
// zeroed) at the schedule's learning rate (lr_at of the reference) and reads back grad_norm.
// Tested by tests/unit/train/train-step-goldens.test.ts (3 steps vs PyTorch) and train-step-overfit.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import { GpuAdamW, type OptimParam } from '../gpu/kernels/adamw';
import { ADAMW_DEFAULTS, lr_at, type LrSchedule } from '../reference/adamw';

export interface OptimizerConfig {
  /** Learning-rate schedule: constant (optional warmup) or warmup + cosine; lr_at gives each update's value. */
  schedule: LrSchedule;
  /** Adam beta1 (default 0.9). */
  beta1: number;
  /** Adam beta2 (default 0.999). */
  beta2: number;
  /** Adam epsilon (default 1e-8). */
  eps: number;
  /** Decoupled weight decay (default 0.01); full mode leaves norms and biases out. */
  weightDecay: number;
  /** Global gradient-norm clipping threshold; null turns clipping off (default 1.0, as TRL). */
  maxGradNorm: number | null;
}

export const OPTIMIZER_DEFAULTS: Omit<OptimizerConfig, 'schedule'> = { ...ADAMW_DEFAULTS, maxGradNorm: 1.0 };

/** Fills the defaults and checks every field; errors say which field and what is allowed. */
export function resolveOptimizerConfig(c: Partial<OptimizerConfig> & { schedule: LrSchedule }): OptimizerConfig {
  const r: OptimizerConfig = { ...OPTIMIZER_DEFAULTS, ...c };
  const s = r.schedule;
  const bad = (field: string, v: unknown, want: string) => new Error(`optimizer: ${field} = ${String(v)}; ${want}`);
  if (!(s.lr >= 0 && Number.isFinite(s.lr))) throw bad('schedule.lr', s.lr, 'use a finite learning rate >= 0 (LoRA: about 1e-4 to 1e-3; RL about 1e-5 to 5e-5)');
  if (s.warmupSteps !== undefined && !(Number.isInteger(s.warmupSteps) && s.warmupSteps >= 0)) throw bad('schedule.warmupSteps', s.warmupSteps, 'use an integer >= 0');
  if (s.kind === 'cosine') {
    if (!(Number.isInteger(s.totalSteps) && s.totalSteps > 0)) throw bad('schedule.totalSteps', s.totalSteps, 'use the number of optimizer updates of the run (> 0)');
    if (s.minRatio !== undefined && !(s.minRatio >= 0 && s.minRatio <= 1)) throw bad('schedule.minRatio', s.minRatio, 'use a value in [0, 1]');
  }
  for (const f of ['beta1', 'beta2'] as const) if (!(r[f] >= 0 && r[f] < 1)) throw bad(f, r[f], 'use a value in [0, 1)');
  if (!(r.eps > 0)) throw bad('eps', r.eps, 'use a value > 0 (1e-8)');
  if (!(r.weightDecay >= 0)) throw bad('weightDecay', r.weightDecay, 'use a value >= 0 (0.01; 0 turns decay off)');
  if (r.maxGradNorm !== null && !(r.maxGradNorm > 0)) throw bad('maxGradNorm', r.maxGradNorm, 'use a value > 0, or null for no clipping');
  return r;
}

export interface UpdateStats {
  /** The learning rate this update used. */
  lr: number;
  /** Global gradient norm before clipping (the `grad_norm` metric). */
  gradNorm: number;
  /** Updates done, this one included. */
  step: number;
}

export class TrainOptimizer {
  private constructor(private readonly adamw: GpuAdamW, readonly config: OptimizerConfig) {}

  static async create(rt: GpuRuntime, params: OptimParam[], config: Partial<OptimizerConfig> & { schedule: LrSchedule }): Promise<TrainOptimizer> {
    const c = resolveOptimizerConfig(config);
    const adamw = await GpuAdamW.create(rt, params, { beta1: c.beta1, beta2: c.beta2, eps: c.eps, weightDecay: c.weightDecay, maxGradNorm: c.maxGradNorm });
    return new TrainOptimizer(adamw, c);
  }

  /** Updates done so far. */
  get step(): number {
    return this.adamw.stepCount;
  }

  /** Restores the update count (checkpoint resume; moments are restored through moments()). */
  set step(n: number) {
    this.adamw.stepCount = n;
  }

  /** The learning rate of the next update. */
  get lr(): number {
    return lr_at(this.config.schedule, this.adamw.stepCount);
  }

  /**
   * Records one update with the accumulated gradients (clip, AdamW, gradients zeroed), submits it
   * and reads back the pre-clip gradient norm (one scalar readback).
   */
  async update(): Promise<UpdateStats> {
    const lr = this.lr;
    this.adamw.step(lr);
    const gradNorm = await this.adamw.readGradNorm();
    return { lr, gradNorm, step: this.adamw.stepCount };
  }

  /**
   * Records one update like update() without reading anything back: the pre-clip norm is the
   * first f32 of `gradNorm` once the caller reads it (with its other per-step figures).
   */
  record(): { lr: number; step: number; gradNorm: GPUBuffer } {
    const lr = this.lr;
    this.adamw.step(lr);
    return { lr, step: this.adamw.stepCount, gradNorm: this.adamw.gradNormBuffer };
  }

  /** Records gradients = 0 (drops what was accumulated since the last update). */
  zeroGrads(): void {
    this.adamw.zeroGrads();
  }

  /** AdamW moments of a tensor by its OptimParam name (for checkpoints). */
  moments(name: string): { m: GPUBuffer; v: GPUBuffer } {
    return this.adamw.moments(name);
  }

  dispose(): void {
    this.adamw.dispose();
  }
}
