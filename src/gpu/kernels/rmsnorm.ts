// Launcher for shaders/rmsnorm.wgsl: RMSNorm over [N, C] rows, and the fused residual + RMSNorm
// (x += delta; y = rmsnorm(x) * w) that saves a dispatch per layer.
// CPU twin: src/reference/rmsnorm.ts. Tested by tests/unit/gpu/rmsnorm-forward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { isCpuAdapter } from '../device';

const WG = 64;
const MAX_X = 65535;

/** `wg`: one workgroup per row (reduction in workgroup memory); `thread`: one invocation per row. */
export type RowLayout = 'wg' | 'thread';

/** One invocation per row on CPU adapters (barriers are costly there) and for narrow rows. */
export function defaultRowLayout(rt: GpuRuntime, C: number): RowLayout {
  return isCpuAdapter(rt.report) || C <= 128 ? 'thread' : 'wg';
}

/** Workgroups for N rows in `layout` (rows beyond 65535 groups spill into y). */
export function rowGrid(layout: RowLayout, N: number): { x: number; y: number } {
  const groups = layout === 'wg' ? N : Math.ceil(N / WG);
  return { x: Math.min(groups, MAX_X), y: Math.ceil(groups / MAX_X) };
}

/** The entry point of `entry` in `layout` (`*_t` for one invocation per row). */
export function rowEntry(entry: string, layout: RowLayout): string {
  return layout === 'wg' ? entry : `${entry}_t`;
}

export class RmsNorm {
  private readonly uniforms = new Uint32Array(4);
  private readonly uniformsF32 = new Float32Array(this.uniforms.buffer);

  private constructor(private readonly rt: GpuRuntime, private readonly plain: Kernel,
    private readonly fused: Kernel, readonly C: number, readonly eps: number, readonly layout: RowLayout) {}

  static async create(rt: GpuRuntime, C: number, eps: number, layout: RowLayout = defaultRowLayout(rt, C)): Promise<RmsNorm> {
    if (C % 4 !== 0) throw new ShapeError('rmsnorm', 'C (channels) a multiple of 4', `C=${C}`);
    const [plain, fused] = await Promise.all([
      rt.kernel({ shader: 'rmsnorm', entry: rowEntry('rmsnorm', layout), overrides: { WG } }),
      rt.kernel({ shader: 'rmsnorm', entry: rowEntry('residual_rmsnorm', layout), overrides: { WG } }),
    ]);
    return new RmsNorm(rt, plain, fused, C, eps, layout);
  }

  /** Records y[N, C] = rmsnorm(x) * w. */
  run(x: GPUBuffer, w: GPUBuffer, y: GPUBuffer, N: number): void {
    this.check('rmsnorm', N, { x, w, y });
    this.rt.dispatch(this.plain, [x, w, y], this.params(N), this.grid(N));
  }

  /** Records x += delta (x is the residual stream, updated in place); y = rmsnorm(x) * w. */
  runResidual(delta: GPUBuffer, w: GPUBuffer, x: GPUBuffer, y: GPUBuffer, N: number): void {
    this.check('residual_rmsnorm', N, { delta, w, x, y });
    this.rt.dispatch(this.fused, [delta, w, x, y], this.params(N), this.grid(N));
  }

  private params(N: number): Uint32Array {
    this.uniforms.set([N, this.C, 0, 0]);
    this.uniformsF32[2] = this.eps;
    return this.uniforms;
  }

  private grid(N: number): { x: number; y: number } {
    return rowGrid(this.layout, N);
  }

  private check(op: string, N: number, bufs: Record<string, GPUBuffer>): void {
    const C = this.C;
    for (const [name, b] of Object.entries(bufs)) {
      const need = name === 'w' ? C * 4 : N * C * 4;
      if (b.size < need) throw new ShapeError(op, `${name} of ${name === 'w' ? `[${C}]` : `[${N}, ${C}]`} f32 (${need} bytes)`, `${b.size} bytes (${b.label})`);
    }
  }
}
