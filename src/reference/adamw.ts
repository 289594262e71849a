// CPU reference of the optimizer side of training: AdamW as torch.optim.AdamW computes it
// (decoupled weight decay, bias correction), global gradient-norm clipping as
// torch.nn.utils.clip_grad_norm_ and learning-rate schedules as Hugging Face's (the seeded LoRA
// init is in lora.ts). Exercised by tests/unit/reference/reference-bwd-train.test.ts and reference-bwd-goldens.test.ts.

/** AdamW hyper-parameters; the defaults are torch's (and TRL's) except where noted. */
export interface AdamWConfig {
  /** Learning rate of this step (from lr_at when a schedule is used). */
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Decoupled: p -= lr * weightDecay * p before the Adam update (torch AdamW default 0.01). */
  weightDecay: number;
}
export const ADAMW_DEFAULTS: Omit<AdamWConfig, 'lr'> = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01 };

/** Moments per parameter name and the number of steps taken (t of the bias correction). */
export interface AdamWState {
  step: number;
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
}
export const adamw_state = (): AdamWState => ({ step: 0, m: new Map(), v: new Map() });

/** One trainable tensor and its gradient (same length). */
export interface ParamGrad {
  name: string;
  param: Float32Array;
  grad: Float32Array;
}

/**
 * One AdamW step over every tensor, in place, in torch's order of operations:
 * p *= 1 - lr wd; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
 * p -= (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps), t counting from 1.
 */
export function adamw_step(items: ParamGrad[], state: AdamWState, hp: AdamWConfig): void {
  state.step++;
  const t = state.step;
  const bc1 = 1 - Math.pow(hp.beta1, t);
  const bc2sqrt = Math.sqrt(1 - Math.pow(hp.beta2, t));
  const stepSize = hp.lr / bc1;
  for (const { name, param, grad } of items) {
    if (param.length !== grad.length) throw new Error(`adamw_step: ${name} has ${param.length} values but its gradient ${grad.length}`);
    let m = state.m.get(name), v = state.v.get(name);
    if (!m || !v) {
      if (t !== 1) throw new Error(`adamw_step: ${name} has no moments at step ${t}; the set of parameters must not change`);
      m = new Float32Array(param.length);
      v = new Float32Array(param.length);
      state.m.set(name, m);
      state.v.set(name, v);
    }
    for (let i = 0; i < param.length; i++) {
      const g = grad[i];
      param[i] *= 1 - hp.lr * hp.weightDecay;
      m[i] = hp.beta1 * m[i] + (1 - hp.beta1) * g;
      v[i] = hp.beta2 * v[i] + (1 - hp.beta2) * g * g;
      param[i] -= (stepSize * m[i]) / (Math.sqrt(v[i]) / bc2sqrt + hp.eps);
    }
  }
}

/**
 * Global L2-norm clipping over all gradients, in place, as clip_grad_norm_: with norm the
 * pre-clip norm, every gradient is multiplied by min(1, maxNorm / (norm + 1e-6)).
 * Returns the pre-clip norm (the `grad_norm` metric).
 */
export function clip_grad_norm(grads: Float32Array[], maxNorm: number): number {
  let ss = 0;
  for (const g of grads) for (let i = 0; i < g.length; i++) ss += g[i] * g[i];
  const norm = Math.sqrt(ss);
  const coef = Math.min(1, maxNorm / (norm + 1e-6));
  if (coef < 1) for (const g of grads) for (let i = 0; i < g.length; i++) g[i] *= coef;
  return norm;
}

/** constant: lr after an optional linear warmup; cosine: warmup, then cosine decay to minRatio * lr. */
export type LrSchedule =
  | { kind: 'constant'; lr: number; warmupSteps?: number }
  | { kind: 'cosine'; lr: number; warmupSteps?: number; totalSteps: number; minRatio?: number };

/**
 * Learning rate for the optimizer update that follows `step` completed updates (0-based, as HF
 * LambdaLR): warmup is step / warmupSteps (so the very first update has lr 0, as in HF), then
 * cosine: minRatio + (1 - minRatio) * 0.5 (1 + cos(pi p)), p = (step - warmup) / (total - warmup)
 * clamped to [0, 1] (HF's curve would rise again after totalSteps; ours stays at the floor).
 */
export function lr_at(s: LrSchedule, step: number): number {
  const warmup = s.warmupSteps ?? 0;
  if (step < warmup) return (s.lr * step) / Math.max(1, warmup);
  if (s.kind === 'constant') return s.lr;
  const p = Math.min(1, Math.max(0, (step - warmup) / Math.max(1, s.totalSteps - warmup)));
  const minRatio = s.minRatio ?? 0;
  return s.lr * (minRatio + (1 - minRatio) * 0.5 * (1 + Math.cos(Math.PI * p)));
}
