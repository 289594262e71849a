// Launcher for shaders/matmul_f32.wgsl: Y[M, N] = X[M, K] . W[N, K]^T, in either variant.
// Checks shapes against buffer sizes before dispatch. CPU twin: src/reference/matmul.ts.
// Tested by tests/unit/gpu/matmul.test.ts and the GPU panel self-test.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';

export type MatmulVariant = 'rb' | 'tiled';
export const MATMUL_VARIANTS: MatmulVariant[] = ['rb', 'tiled'];

/** Outputs per invocation along M and N; must match TM/TN (rb) and TTM/TTN (tiled) in the shader. */
const BLOCK: Record<MatmulVariant, { tm: number; tn: number }> = { rb: { tm: 8, tn: 8 }, tiled: { tm: 4, tn: 4 } };

export interface MatmulOptions {
  variant: MatmulVariant;
  wgX?: number;
  wgY?: number;
}

export class Matmul {
  private readonly uniforms = new Uint32Array(4);

  private constructor(
    private readonly rt: GpuRuntime,
    private readonly pipeline: Kernel,
    readonly variant: MatmulVariant,
    private readonly wgX: number,
    private readonly wgY: number,
  ) {}

  static async create(rt: GpuRuntime, opts: MatmulOptions): Promise<Matmul> {
    // rb: 4 x 4 invocations measured best on SwiftShader; tiled: 16 x 16 for real GPUs.
    const wgX = opts.wgX ?? (opts.variant === 'tiled' ? 16 : 4);
    const wgY = opts.wgY ?? (opts.variant === 'tiled' ? 16 : 4);
    const pipeline = await rt.kernel({
      shader: 'matmul_f32',
      entry: opts.variant === 'rb' ? 'matmul_rb' : 'matmul_tiled',
      overrides: { WG_X: wgX, WG_Y: wgY },
    });
    return new Matmul(rt, pipeline, opts.variant, wgX, wgY);
  }

  /** Records Y = X W^T into the runtime's current step. */
  run(X: GPUBuffer, W: GPUBuffer, Y: GPUBuffer, M: number, K: number, N: number): void {
    if (K % 4 !== 0) throw new ShapeError('matmul', 'K (in features) a multiple of 4', `K=${K}`);
    if (X.size < M * K * 4) throw new ShapeError('matmul', `X of [${M}, ${K}] f32 (${M * K * 4} bytes)`, `${X.size} bytes (${X.label})`);
    if (W.size < N * K * 4) throw new ShapeError('matmul', `W of [${N}, ${K}] f32 (${N * K * 4} bytes)`, `${W.size} bytes (${W.label})`);
    if (Y.size < M * N * 4) throw new ShapeError('matmul', `Y of [${M}, ${N}] f32 (${M * N * 4} bytes)`, `${Y.size} bytes (${Y.label})`);
    this.uniforms.set([M, N, K, 0]);
    const { tm, tn } = BLOCK[this.variant];
    this.rt.dispatch(this.pipeline, [X, W, Y], this.uniforms, {
      x: Math.ceil(N / (tn * this.wgX)),
      y: Math.ceil(M / (tm * this.wgY)),
    });
  }
}
