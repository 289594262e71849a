// Launcher for shaders/swiglu.wgsl: out[M, I] = silu(gate) * up from the fused gate|up matmul
// output [M, 2I] (each row: I gate values, then I up values). Prefer the fused epilogue
// (Linear with swiglu: true), which makes this dispatch unnecessary. I a multiple of 4 runs the
// vec4 entry (swiglu4: four elements per invocation), any other I the scalar one.
// CPU twin: src/reference/swiglu.ts. Tested by tests/unit/gpu/swiglu-forward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { flatGrid } from '../grid';

const WG = 64;

export class SwiGlu {
  private readonly uniforms = new Uint32Array(4);

  private constructor(private readonly rt: GpuRuntime, private readonly scalar: Kernel, private readonly vec4: Kernel) {}

  static async create(rt: GpuRuntime): Promise<SwiGlu> {
    const [scalar, vec4] = await Promise.all(['swiglu', 'swiglu4'].map((entry) => rt.kernel({ shader: 'swiglu', entry, overrides: { WG } })));
    return new SwiGlu(rt, scalar, vec4);
  }

  /** Records out[M, I] = silu(gu[:, :I]) * gu[:, I:]. */
  run(gu: GPUBuffer, out: GPUBuffer, M: number, I: number): void {
    if (gu.size < M * 2 * I * 4) throw new ShapeError('swiglu', `gate|up of [${M}, ${2 * I}] f32 (${M * 2 * I * 4} bytes)`, `${gu.size} bytes (${gu.label})`);
    if (out.size < M * I * 4) throw new ShapeError('swiglu', `out of [${M}, ${I}] f32 (${M * I * 4} bytes)`, `${out.size} bytes (${out.label})`);
    const per = I % 4 === 0 ? 4 : 1;
    const g = flatGrid((M * I) / per, WG, this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    this.uniforms.set([M, I, g.x * WG, 0]);
    this.rt.dispatch(per === 4 ? this.vec4 : this.scalar, [gu, out], this.uniforms, g);
  }
}
