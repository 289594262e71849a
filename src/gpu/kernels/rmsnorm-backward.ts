// Launcher for the backward entry points of shaders/rmsnorm.wgsl: dx [N, C] (=, or += into the
// residual stream's gradient) and, in full mode, dw [C] (+=), in one or two dispatches.
// CPU twin: rmsnorm_backward (src/reference/rmsnorm.ts). Tested by tests/unit/gpu/rmsnorm-backward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { defaultRowLayout, rowEntry, rowGrid, type RowLayout } from './rmsnorm';

const WG = 64;

export interface RmsNormGradOptions {
  /** dx += instead of = (the residual stream's gradient). */
  accumulate?: boolean;
  /** [C] weight gradient (+=), full mode; omit for a frozen norm. */
  dw?: GPUBuffer | null;
}

export class RmsNormBackward {
  private readonly u = new Uint32Array(4);
  private readonly uf = new Float32Array(this.u.buffer);
  private rstd: GPUBuffer | null = null;

  private constructor(private readonly rt: GpuRuntime, private readonly dxPipe: Kernel,
    private readonly dwPipe: Kernel, readonly C: number, readonly eps: number, readonly layout: RowLayout) {}

  static async create(rt: GpuRuntime, C: number, eps: number, layout: RowLayout = defaultRowLayout(rt, C)): Promise<RmsNormBackward> {
    if (C % 4 !== 0) throw new ShapeError('rmsnorm_backward', 'C (channels) a multiple of 4', `C=${C}`);
    const [dx, dw] = await Promise.all([
      rt.kernel({ shader: 'rmsnorm', entry: rowEntry('rmsnorm_bwd', layout), overrides: { WG } }),
      rt.kernel({ shader: 'rmsnorm', entry: 'rmsnorm_dw', overrides: { WG } }),
    ]);
    return new RmsNormBackward(rt, dx, dw, C, eps, layout);
  }

  /** Records dx (=|+=) d rmsnorm(x) * w / dx . dy for N rows; dw += when given. x is the forward input. */
  run(dy: GPUBuffer, x: GPUBuffer, w: GPUBuffer, dx: GPUBuffer, N: number, opts: RmsNormGradOptions = {}): void {
    const C = this.C;
    const op = 'rmsnorm_backward';
    for (const [name, b] of [['dy', dy], ['x', x], ['dx', dx]] as const) {
      if (b.size < N * C * 4) throw new ShapeError(op, `${name} of [${N}, ${C}] f32 (${N * C * 4} bytes)`, `${b.size} bytes (${b.label})`);
    }
    for (const [name, b] of [['w', w], ['dw', opts.dw]] as const) {
      if (b && b.size < C * 4) throw new ShapeError(op, `${name} of [${C}] f32 (${C * 4} bytes)`, `${b.size} bytes (${b.label})`);
    }
    if (!this.rstd || this.rstd.size < N * 4) {
      if (this.rstd) this.rt.release(this.rstd);
      this.rstd = this.rt.storage(Math.max(16, N * 4), 'rmsnorm_backward rstd');
    }
    this.u.set([N, C, 0, opts.accumulate ? 1 : 0]);
    this.uf[2] = this.eps;
    this.rt.dispatch(this.dxPipe, [dy, x, w, dx, this.rstd], this.u, rowGrid(this.layout, N));
    if (opts.dw) this.rt.dispatch(this.dwPipe, [dy, x, this.rstd, opts.dw], this.u, { x: Math.ceil(C / 4 / WG) });
  }

  dispose(): void {
    if (this.rstd) this.rt.release(this.rstd);
    this.rstd = null;
  }
}
