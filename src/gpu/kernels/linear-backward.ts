// Backward launcher mirroring Linear (same LinearSpec): dX (=|+=) dY W (+ the LoRA path), LoRA
// dA/dB (+=) per segment, full-mode dW/dbias (+=), with W f32 or NF4 read in place
// (shaders/linear_bwd.wgsl; X A^T is recomputed with the forward kernel of shaders/linear.wgsl).
// A fused SwiGLU layer is differentiated in two steps: SwiGluBackward gives dGU [M, 2I], then this.
// CPU twins: linear_backward, lora_backward (src/reference/linear.ts). Tested by tests/unit/bwd-a-linear.test.ts.
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import type { LinearLora, LinearSpec } from './linear';

/** rb: register-blocked (CPU adapters such as SwiftShader); tiled: workgroup-memory tiles (GPUs). */
export type BackwardVariant = 'rb' | 'tiled';

export interface LinearGrads {
  /** [M, K] input gradient; null when nobody needs it. Overwritten unless `accumulate`. */
  dX?: GPUBuffer | null;
  /** dX += instead of = (the residual stream's gradient). */
  accumulate?: boolean;
  /** LoRA gradients (+=): dA [S*R, K] and dB [NW, R], stacked like LinearLora.A / .B. */
  lora?: { dA: GPUBuffer; dB: GPUBuffer } | null;
  /** Full mode (+=): dW [NW, K] (f32 weight only), dbias [NW] when the layer has a bias. */
  full?: { dW: GPUBuffer; dbias?: GPUBuffer | null } | null;
  /** X A^T [M, S*R] as the forward computed it; default: recomputed here. */
  xa?: GPUBuffer;
}

const RB_WG = 4;
type KernelName = 'dx' | 'dxF32' | 'dw' | 'dyb' | 'db' | 'bias' | 'xa';
const MAX_GROUPS = 65535;

/** The variant before tuning: rb on CPU adapters, tiled elsewhere (as Linear's defaults). */
export function defaultBackwardVariant(rt: GpuRuntime): BackwardVariant {
  const cpu = rt.report.isFallback || /swiftshader|llvmpipe|lavapipe/i.test(rt.report.architecture + rt.report.description);
  return cpu ? 'rb' : 'tiled';
}

export class LinearBackward {
  /** Include the LoRA path in dX (the forward ran with LoRA on). Default: true when spec.lora. */
  loraEnabled: boolean;
  readonly NW: number;
  private readonly u = new Uint32Array(12);
  private readonly uf = new Float32Array(this.u.buffer);
  private readonly dummy: GPUBuffer;
  private xaScratch: GPUBuffer | null = null;
  private dybScratch: GPUBuffer | null = null;

  private constructor(private readonly rt: GpuRuntime, readonly spec: LinearSpec, readonly variant: BackwardVariant,
    private readonly p: Record<KernelName, GPUComputePipeline | null>) {
    this.NW = spec.swiglu ? 2 * spec.N : spec.N;
    this.loraEnabled = Boolean(spec.lora);
    this.dummy = rt.storage(16, `${spec.label} bwd unused binding`);
  }

  static async create(rt: GpuRuntime, spec: LinearSpec, variant: BackwardVariant = defaultBackwardVariant(rt)): Promise<LinearBackward> {
    checkSpec(spec);
    const wg: Record<string, number> = variant === 'rb' ? { WG_X: RB_WG, WG_Y: RB_WG } : {};
    const k = (entry: string, o: Record<string, number> = {}) => rt.kernel({ shader: 'linear_bwd', entry, overrides: o });
    const nf4 = spec.weight.format === 'nf4';
    const lora = Boolean(spec.lora);
    const xaShape = variant === 'rb' ? { WG_X: 4, WG_Y: 4, TM: 8, TN: 8, SWIGLU: 0 } : { WG_X: 16, WG_Y: 16, TM: 4, TN: 4, SWIGLU: 0 };
    const [dx, dxF32, dw, dyb, db, bias, xa] = await Promise.all([
      k(`dx_${nf4 ? 'nf4_' : ''}${variant}`, wg),
      nf4 && lora ? k(`dx_${variant}`, wg) : null,
      k(`dw_${variant}`, wg),
      lora ? k('lora_dyb') : null,
      lora ? k('lora_db') : null,
      spec.bias ? k('bias_grad') : null,
      lora ? rt.kernel({ shader: 'linear', entry: variant === 'rb' ? 'lin_rb' : 'lin_tiled', overrides: xaShape }) : null,
    ]);
    return new LinearBackward(rt, spec, variant, { dx, dxF32: dxF32 ?? (nf4 ? null : dx), dw, dyb, db, bias, xa });
  }

  /**
   * Records the backward of Y = X W^T (+ bias) (+ LoRA) for M rows. dY is [M, NW] (for a swiglu
   * spec: the gradient of the gate|up pre-activations, from SwiGluBackward), X the layer input.
   */
  run(dY: GPUBuffer, X: GPUBuffer, M: number, g: LinearGrads): void {
    const { K, label } = this.spec;
    const NW = this.NW;
    const op = `linear_backward ${label}`;
    need(op, 'dY', dY, M * NW, `[${M}, ${NW}]`);
    need(op, 'X', X, M * K, `[${M}, ${K}]`);
    if (g.dX) need(op, 'dX', g.dX, M * K, `[${M}, ${K}]`);
    const lora = this.spec.lora ?? null;
    if (g.lora && !lora) throw new ShapeError(op, 'a LoRA spec for LoRA gradients', 'a layer without LoRA');
    if (g.full) {
      if (this.spec.weight.format !== 'f32') throw new ShapeError(op, 'an f32 weight for full-mode dW', 'an NF4 weight (frozen base)');
      need(op, 'dW', g.full.dW, NW * K, `[${NW}, ${K}]`);
      if (g.full.dbias) {
        if (!this.spec.bias) throw new ShapeError(op, 'a bias in the spec for dbias', 'a layer without bias');
        need(op, 'dbias', g.full.dbias, NW, `[${NW}]`);
      }
    }
    if (g.lora && !this.loraEnabled) throw new ShapeError(op, 'loraEnabled (the forward ran with LoRA) for LoRA gradients', 'loraEnabled = false');
    let dyb: GPUBuffer | null = null;
    if (lora && this.loraEnabled) {
      const SR = segments(lora) * lora.R;
      dyb = this.scratch('dyb', M * SR, `${label} bwd dY B`);
      this.record('dyb', [dY, lora.B, dyb], this.params(lora, M, NW, 0, 0, lora.scale), this.flat(M * SR));
      if (g.lora) {
        need(op, 'dA', g.lora.dA, SR * K, `[${SR}, ${K}]`);
        need(op, 'dB', g.lora.dB, NW * lora.R, `[${NW}, ${lora.R}]`);
        const xa = g.xa ?? this.recomputeXA(X, M, lora);
        need(op, 'xa', xa, M * SR, `[${M}, ${SR}]`);
        this.record('db', [dY, xa, g.lora.dB], this.params(lora, M, NW, 0, 0, lora.scale), this.flat(NW * lora.R));
        this.record('dw', [dyb, X, g.lora.dA], this.params(null, M, SR, K, 0, 1), this.gridDW(SR, K));
      }
    }
    if (g.dX) {
      const w = this.spec.weight;
      const weights = w.format === 'f32' ? [w.W] : [w.q.codes, w.q.absmax];
      const flags = g.accumulate ? 1 : 0;
      this.record('dx', [dY, ...weights, g.dX], this.params(null, M, NW, K, flags, 0), this.gridDX(M, K, w.format === 'nf4'));
      if (lora && dyb) {
        const SR = segments(lora) * lora.R;
        this.record('dxF32', [dyb, lora.A, g.dX], this.params(null, M, SR, K, 1, 0), this.gridDX(M, K, false));
      }
    }
    if (g.full) {
      this.record('dw', [dY, X, g.full.dW], this.params(null, M, NW, K, 0, 1), this.gridDW(NW, K));
      if (g.full.dbias) this.record('bias', [dY, g.full.dbias], this.params(null, M, NW, 0, 0, 0), { x: Math.ceil(NW / 64) });
    }
  }

  /** Releases the scratch buffers this object owns (not the weights or gradients). */
  dispose(): void {
    this.rt.release(this.dummy);
    for (const b of [this.xaScratch, this.dybScratch]) if (b) this.rt.release(b);
    this.xaScratch = this.dybScratch = null;
  }

  private record(name: KernelName, bufs: GPUBuffer[], u: Uint32Array, wg: { x: number; y?: number }): void {
    const pipeline = this.p[name];
    if (!pipeline) throw new Error(`linear_backward ${this.spec.label}: pipeline ${name} not built`);
    this.rt.dispatch(pipeline, bufs, u, wg);
  }

  private params(lora: LinearLora | null, M: number, N: number, K: number, flags: number, alpha: number): Uint32Array {
    const S = lora ? segments(lora) : 1;
    const st = lora?.segmentStarts ?? [];
    const R = lora?.R ?? 0;
    this.u.set([M, N, K, flags, S * R, R, st[0] ?? N, st[1] ?? N, 0, 0, 0, 0]);
    this.uf[8] = alpha;
    return this.u;
  }

  private gridDX(M: number, K: number, nf4: boolean): { x: number; y: number } {
    if (this.variant === 'tiled') return { x: Math.ceil(K / 64), y: Math.ceil(M / 64) };
    const cols = nf4 ? K / 8 : Math.ceil(K / 8);
    return { x: Math.ceil(cols / RB_WG), y: Math.ceil(M / (8 * RB_WG)) };
  }

  private gridDW(N: number, K: number): { x: number; y: number } {
    if (this.variant === 'tiled') return { x: Math.ceil(K / 64), y: Math.ceil(N / 64) };
    return { x: Math.ceil(Math.ceil(K / 8) / RB_WG), y: Math.ceil(N / (8 * RB_WG)) };
  }

  private flat(n: number): { x: number; y: number } {
    const groups = Math.ceil(n / 64);
    const x = Math.min(groups, MAX_GROUPS);
    return { x, y: Math.ceil(groups / x) };
  }

  private scratch(kind: 'xa' | 'dyb', floats: number, label: string): GPUBuffer {
    const key = kind === 'xa' ? 'xaScratch' : 'dybScratch';
    const cur = this[key];
    if (cur && cur.size >= floats * 4) return cur;
    if (cur) this.rt.release(cur);
    const b = this.rt.storage(Math.max(16, floats * 4), label);
    this[key] = b;
    return b;
  }

  private recomputeXA(X: GPUBuffer, M: number, lora: LinearLora): GPUBuffer {
    const SR = segments(lora) * lora.R;
    const xa = this.scratch('xa', M * SR, `${this.spec.label} bwd X A^T`);
    // The forward kernel's Params (shaders/linear.wgsl): M, N, K, flags, R, xaStride, seg1, seg2.
    const u = new Uint32Array([M, SR, this.spec.K, 0, 0, 0, SR, SR, 0, 0, 0, 0]);
    const tile = this.variant === 'rb' ? { TM: 8, TN: 8, WG: 4 } : { TM: 4, TN: 4, WG: 16 };
    const grid = { x: Math.ceil(Math.ceil(SR / tile.TN) / tile.WG), y: Math.ceil(M / (tile.TM * tile.WG)) };
    this.record('xa', [X, lora.A, this.dummy, this.dummy, this.dummy, xa], u, grid);
    return xa;
  }
}

function segments(lora: LinearLora): number {
  return 1 + (lora.segmentStarts?.length ?? 0);
}

function need(op: string, name: string, b: GPUBuffer, floats: number, shape: string): void {
  if (b.size < floats * 4) throw new ShapeError(op, `${name} of ${shape} f32 (${floats * 4} bytes)`, `${b.size} bytes (${b.label})`);
}

function checkSpec(spec: LinearSpec): void {
  const op = `linear_backward ${spec.label}`;
  const NW = spec.swiglu ? 2 * spec.N : spec.N;
  const { K, weight } = spec;
  if (weight.format === 'nf4') {
    if (K % 64 !== 0) throw new ShapeError(op, 'K (in features) a multiple of 64 for NF4 weights', `K=${K}`);
    if (weight.q.rows !== NW || weight.q.cols !== K) throw new ShapeError(op, `NF4 weight of [${NW}, ${K}]`, `[${weight.q.rows}, ${weight.q.cols}]`);
  } else {
    if (K % 4 !== 0) throw new ShapeError(op, 'K (in features) a multiple of 4', `K=${K}`);
    need(op, 'W', weight.W, NW * K, `[${NW}, ${K}]`);
  }
  if (spec.lora) {
    const S = segments(spec.lora);
    if (S > 3) throw new ShapeError(op, 'at most 3 LoRA segments (2 segment starts)', `${S}`);
    need(op, 'LoRA A', spec.lora.A, S * spec.lora.R * K, `[${S * spec.lora.R}, ${K}]`);
    need(op, 'LoRA B', spec.lora.B, NW * spec.lora.R, `[${NW}, ${spec.lora.R}]`);
  }
}
