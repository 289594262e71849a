// Launcher for shaders/rows.wgsl: rows of a [*, W] f32 matrix gathered by an index list (NO_ROW:
// zeros). TrainStep runs the LM head on a pass's loss rows only: it gathers them from the final
// hidden states and spreads the log-probs and dH back with the inverse index. CPU twin:
// gatherRows (src/reference/rows.ts). Tested by tests/unit/gpu/rows.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { flatGrid } from '../grid';

const WG = 64;

export class GatherRows {
  private readonly uniforms = new Uint32Array(4);

  private constructor(private readonly rt: GpuRuntime, private readonly pipeline: Kernel) {}

  static async create(rt: GpuRuntime): Promise<GatherRows> {
    return new GatherRows(rt, await rt.kernel({ shader: 'rows', entry: 'gather_rows', overrides: { WG } }));
  }

  /**
   * Records dst[i, :] = src[idx[i0 + i], :] for i < n (rows of W floats; an index NO_ROW gives
   * zeros; an index past src's rows reads its last row). dst rows 0..n-1 are overwritten.
   */
  run(src: GPUBuffer, idx: GPUBuffer, i0: number, n: number, W: number, dst: GPUBuffer, label = 'gather_rows'): void {
    const op = `gather_rows ${label}`;
    for (const [k, v] of Object.entries({ i0, n, W })) {
      if (!Number.isInteger(v) || v < 0) throw new ShapeError(op, `${k} a non-negative integer`, `${k}=${v}`);
    }
    if (W === 0) throw new ShapeError(op, 'W (floats per row) >= 1', 'W=0');
    if (src.size < W * 4) throw new ShapeError(op, `src of at least one row of ${W} f32`, `${src.size} bytes (${src.label})`);
    if (idx.size < (i0 + n) * 4) throw new ShapeError(op, `idx of [${i0 + n}] u32 (${(i0 + n) * 4} bytes)`, `${idx.size} bytes (${idx.label})`);
    if (dst.size < n * W * 4) throw new ShapeError(op, `dst of [${n}, ${W}] f32 (${n * W * 4} bytes)`, `${dst.size} bytes (${dst.label})`);
    if (n === 0) return;
    const g = flatGrid(n * W, WG, this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    this.uniforms.set([n, W, i0, g.x * WG]);
    this.rt.dispatch(this.pipeline, [src, idx, dst], this.uniforms, g);
  }
}
