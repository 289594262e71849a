// Launcher for shaders/rows.wgsl: rows of a [*, W] f32 matrix gathered by an index list (NO_ROW:
// zeros). TrainStep runs the LM head on a pass's loss rows only: it gathers them from the final
// hidden states and spreads the log-probs and dH back with the inverse index. CPU twin:
// gatherRows (src/reference/rows.ts). Tested by tests/unit/gpu/rows.test.ts. Rows of a multiple
// of 4 floats run the vec4 entry.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { flatGrid } from '../grid';

const WG = 64;

export class GatherRows {
  private readonly uniforms = new Uint32Array(4);

  private constructor(private readonly rt: GpuRuntime, private readonly scalar: Kernel, private readonly vec4: Kernel) {}

  static async create(rt: GpuRuntime): Promise<GatherRows> {
    const [scalar, vec4] = await Promise.all(['gather_rows', 'gather_rows4'].map((entry) => rt.kernel({ shader: 'rows', entry, overrides: { WG } })));
    return new GatherRows(rt, scalar, vec4);
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
    // Rows of whole vec4s on the vec4 entry (W counted in vec4s there).
    const w = W % 4 === 0 ? W / 4 : W;
    const g = flatGrid(n * w, WG, this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    this.uniforms.set([n, w, i0, g.x * WG]);
    this.rt.dispatch(w === W ? this.scalar : this.vec4, [src, idx, dst], this.uniforms, g);
  }
}
