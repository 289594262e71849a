// Launcher for shaders/swiglu.wgsl: out[M, I] = silu(gate) * up from the fused gate|up matmul
// output [M, 2I] (each row: I gate values, then I up values). Prefer the fused epilogue
// (Linear with swiglu: true), which makes this dispatch unnecessary.
// CPU twin: src/reference/swiglu.ts. Tested by tests/unit/gpu/swiglu-forward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';

const WG = 64;

export class SwiGlu {
  private readonly uniforms = new Uint32Array(4);

  private constructor(private readonly rt: GpuRuntime, private readonly pipeline: Kernel) {}

  static async create(rt: GpuRuntime): Promise<SwiGlu> {
    return new SwiGlu(rt, await rt.kernel({ shader: 'swiglu', entry: 'swiglu', overrides: { WG } }));
  }

  /** Records out[M, I] = silu(gu[:, :I]) * gu[:, I:]. */
  run(gu: GPUBuffer, out: GPUBuffer, M: number, I: number): void {
    if (gu.size < M * 2 * I * 4) throw new ShapeError('swiglu', `gate|up of [${M}, ${2 * I}] f32 (${M * 2 * I * 4} bytes)`, `${gu.size} bytes (${gu.label})`);
    if (out.size < M * I * 4) throw new ShapeError('swiglu', `out of [${M}, ${I}] f32 (${M * I * 4} bytes)`, `${out.size} bytes (${out.label})`);
    const groups = Math.ceil((M * I) / WG);
    const x = Math.min(groups, this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    this.uniforms.set([M, I, x * WG, 0]);
    this.rt.dispatch(this.pipeline, [gu, out], this.uniforms, { x, y: Math.ceil(groups / x) });
  }
}
