// Launcher for swiglu_bwd (shaders/swiglu.wgsl): from dG [M, I] and the saved gate|up
// pre-activations [M, 2I], dGU [M, 2I] (gate half, then up half: the rows of the fused gate|up
// weight), which LinearBackward then takes as its dY. CPU twin: swiglu_backward
// (src/reference/swiglu.ts). I a multiple of 4 runs swiglu_bwd4 (four elements per invocation).
// Tested by tests/unit/gpu/swiglu-backward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { flatGrid } from '../grid';

const WG = 64;

export class SwiGluBackward {
  private readonly u = new Uint32Array(4);

  private constructor(private readonly rt: GpuRuntime, private readonly scalar: Kernel, private readonly vec4: Kernel) {}

  static async create(rt: GpuRuntime): Promise<SwiGluBackward> {
    const [scalar, vec4] = await Promise.all(['swiglu_bwd', 'swiglu_bwd4'].map((entry) => rt.kernel({ shader: 'swiglu', entry, overrides: { WG } })));
    return new SwiGluBackward(rt, scalar, vec4);
  }

  /** Records dgu[M, 2I] = d(silu(gate) * up) given dout[M, I] and gu[M, 2I] (overwritten). */
  run(dout: GPUBuffer, gu: GPUBuffer, dgu: GPUBuffer, M: number, I: number): void {
    const op = 'swiglu_backward';
    if (dout.size < M * I * 4) throw new ShapeError(op, `dout of [${M}, ${I}] f32 (${M * I * 4} bytes)`, `${dout.size} bytes (${dout.label})`);
    for (const [name, b] of [['gate|up', gu], ['dgate|dup', dgu]] as const) {
      if (b.size < M * 2 * I * 4) throw new ShapeError(op, `${name} of [${M}, ${2 * I}] f32 (${M * 2 * I * 4} bytes)`, `${b.size} bytes (${b.label})`);
    }
    const per = I % 4 === 0 ? 4 : 1;
    const g = flatGrid((M * I) / per, WG, this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    this.u.set([M, I, g.x * WG, 0]);
    this.rt.dispatch(per === 4 ? this.vec4 : this.scalar, [dout, gu, dgu], this.u, g);
  }
}
