// The optimizer on the GPU (shaders/adamw.wgsl) over a list of flat f32 parameter buffers: global
// gradient norm reduced on the GPU, clip coefficient computed on the GPU (clip_grad_norm), AdamW
// with bias correction and decoupled weight decay (adamw_step), gradients zeroed. Nothing is read
// back during a step; readGradNorm() fetches the norm for logging. CPU twins: src/reference/adamw.ts.
// Tested by tests/unit/gpu/adamw-kernel.test.ts (3 steps against adamw_step / clip_grad_norm, both
// norm reduction shapes).
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { ADAMW_DEFAULTS } from '../../reference/adamw';
import { isCpuAdapter, type AdapterReport } from '../device';

const WG = 256;

/**
 * The gradient-norm reduction's shape (sumsq and grad_norm): workgroup size and elements per
 * invocation (shaders/adamw.wgsl WG, PER); one partial per WG * PER elements. A CPU adapter gets
 * 4 x 64 (SwiftShader switches context at every workgroup barrier: the 256-wide tree took 1.8 ms
 * for 24.5K gradients), a GPU 256 x 8.
 */
export function normShape(r: AdapterReport): { wg: number; per: number } {
  return isCpuAdapter(r) ? { wg: 4, per: 64 } : { wg: WG, per: 8 };
}

/** Gradients per grad-norm partial on this adapter (normShape's wg x per; the memory plan's gradNormChunk). */
export function normChunk(r: AdapterReport): number {
  const { wg, per } = normShape(r);
  return wg * per;
}

/** One trainable tensor: its values and its gradient, `size` f32 each. */
export interface OptimParam {
  name: string;
  param: GPUBuffer;
  grad: GPUBuffer;
  size: number;
  /** Overrides the config's weight decay (0 for norms and biases, as HF Trainer groups them). */
  weightDecay?: number;
}

export interface GpuAdamWConfig {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** Global-norm clipping threshold; null or <= 0 turns clipping off. */
  maxGradNorm: number | null;
}

interface Slot extends OptimParam {
  m: GPUBuffer;
  v: GPUBuffer;
  /** First partial of this tensor. */
  offset: number;
  chunks: number;
}

export class GpuAdamW {
  /** Updates taken (t of the bias correction). */
  stepCount = 0;
  /** [2] f32: the pre-clip gradient norm and the clip coefficient of the last recorded step. */
  readonly stats: GPUBuffer;
  private readonly partials: GPUBuffer;
  private readonly totalChunks: number;
  private readonly u = new Uint32Array(12);
  private readonly uf = new Float32Array(this.u.buffer);

  private constructor(private readonly rt: GpuRuntime, private readonly slots: Slot[], readonly config: GpuAdamWConfig,
    private readonly k: Record<'sumsq' | 'norm' | 'adamw' | 'fill', Kernel>) {
    this.totalChunks = slots.reduce((s, p) => s + p.chunks, 0);
    this.partials = rt.storage(Math.max(16, this.totalChunks * 4), 'adamw grad-norm partials');
    this.stats = rt.storage(16, 'adamw stats (norm, clip coef)');
    for (const s of slots) {
      this.fill(s.m, s.size);
      this.fill(s.v, s.size);
    }
  }

  /**
   * Allocates zeroed moments for every tensor (recorded into the current step). `shape`: the norm
   * reduction's (default: this adapter's, normShape).
   */
  static async create(rt: GpuRuntime, params: OptimParam[], config: Partial<GpuAdamWConfig> = {}, shape = normShape(rt.report)): Promise<GpuAdamW> {
    const chunk = shape.wg * shape.per; // normChunk for the default shape
    const names = new Set<string>();
    let offset = 0;
    const slots: Slot[] = [];
    for (const p of params) {
      if (names.has(p.name)) throw new ShapeError('adamw', 'distinct parameter names', `"${p.name}" twice`);
      names.add(p.name);
      for (const [what, b] of [['param', p.param], ['grad', p.grad]] as const) {
        if (b.size < p.size * 4) throw new ShapeError('adamw', `${p.name} ${what} of [${p.size}] f32 (${p.size * 4} bytes)`, `${b.size} bytes (${b.label})`);
      }
      const chunks = Math.ceil(p.size / chunk);
      slots.push({ ...p, offset, chunks, m: rt.storage(p.size * 4, `${p.name} adam m`), v: rt.storage(p.size * 4, `${p.name} adam v`) });
      offset += chunks;
    }
    const kern = (entry: string, overrides: Record<string, number> = { WG }) => rt.kernel({ shader: 'adamw', entry, overrides });
    const reduce = { WG: shape.wg, PER: shape.per };
    const [sumsq, norm, adamw, fill] = await Promise.all([kern('sumsq', reduce), kern('grad_norm', reduce), kern('adamw'), kern('fill')]);
    const cfg: GpuAdamWConfig = { ...ADAMW_DEFAULTS, maxGradNorm: null, ...config };
    return new GpuAdamW(rt, slots, cfg, { sumsq, norm, adamw, fill });
  }

  /** Records the global gradient norm and clip coefficient into `stats`. */
  recordGradNorm(): void {
    for (const s of this.slots) {
      const { x, y } = this.grid(s.chunks);
      this.u.set([s.size, s.offset, x, 0]);
      this.rt.dispatch(this.k.sumsq, [s.grad, this.partials], this.u.subarray(0, 4), { x, y });
    }
    this.u.set([this.totalChunks, 0, 0, 0]);
    this.uf[1] = this.config.maxGradNorm ?? 0;
    this.rt.dispatch(this.k.norm, [this.partials, this.stats], this.u.subarray(0, 4), { x: 1 });
  }

  /**
   * Records one optimizer update at learning rate `lr`: norm and clip coefficient, AdamW on every
   * tensor with the clipped gradient, then the gradients zeroed (unless zeroGrads is false).
   */
  step(lr: number, zeroGrads = true): void {
    this.recordGradNorm();
    this.stepCount++;
    const { beta1, beta2, eps, weightDecay } = this.config;
    const t = this.stepCount;
    const stepSize = lr / (1 - Math.pow(beta1, t));
    const bc2sqrt = Math.sqrt(1 - Math.pow(beta2, t));
    for (const s of this.slots) {
      const { x, y } = this.grid(Math.ceil(s.size / WG));
      this.u.set([s.size, x * WG, zeroGrads ? 1 : 0, 0]);
      this.uf.set([lr, beta1, beta2, eps, s.weightDecay ?? weightDecay, stepSize, bc2sqrt, 0], 4);
      this.rt.dispatch(this.k.adamw, [this.stats, s.grad, s.param, s.m, s.v], this.u, { x, y });
    }
  }

  /** Records gradients = 0 (before accumulating the first micro-batch). */
  zeroGrads(): void {
    for (const s of this.slots) this.fill(s.grad, s.size);
  }

  /** The buffer whose first f32 is the last recorded step's pre-clip norm (for a batched readback). */
  get gradNormBuffer(): GPUBuffer {
    return this.stats;
  }

  /** Reads back the pre-clip norm of the last recorded step (the `grad_norm` metric). */
  async readGradNorm(): Promise<number> {
    return (await this.rt.readF32(this.stats, 1))[0];
  }

  /** The moment buffers of a tensor (for checkpoints). */
  moments(name: string): { m: GPUBuffer; v: GPUBuffer } {
    const s = this.slots.find((x) => x.name === name);
    if (!s) throw new Error(`adamw: no parameter named "${name}"`);
    return { m: s.m, v: s.v };
  }

  /** Releases the moments and scratch (not the parameters or gradients). */
  dispose(): void {
    for (const s of this.slots) this.rt.release(s.m, s.v);
    this.rt.release(this.partials, this.stats);
  }

  private fill(buf: GPUBuffer, n: number): void {
    const { x, y } = this.grid(Math.ceil(n / WG));
    this.u.set([n, x * WG, 0, 0]);
    this.rt.dispatch(this.k.fill, [buf], this.u.subarray(0, 4), { x, y });
  }

  private grid(groups: number): { x: number; y: number } {
    const x = Math.min(Math.max(1, groups), this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    return { x, y: Math.ceil(groups / x) };
  }
}
