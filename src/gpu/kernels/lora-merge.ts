// Launcher for shaders/lora_merge.wgsl: a fused group's f32 weight with its LoRA folded in,
// out = W + scale * B A per segment (GpuModel.mergeLora, for rollouts). CPU twin: mergeLoraPair
// (src/export/merge.ts) per segment. Tested by tests/unit/gpu/lora-merge.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import type { LinearLora } from './linear';

const WG = 64;

export class LoraMerge {
  private readonly uniforms = new Uint32Array(8);
  private readonly uniformsF32 = new Float32Array(this.uniforms.buffer);

  private constructor(private readonly rt: GpuRuntime, private readonly scalar: Kernel, private readonly vec4: Kernel) {}

  static async create(rt: GpuRuntime): Promise<LoraMerge> {
    const [scalar, vec4] = await Promise.all(['lora_merge', 'lora_merge4'].map((entry) => rt.kernel({ shader: 'lora_merge', entry, overrides: { WG } })));
    return new LoraMerge(rt, scalar, vec4);
  }

  /** Records out [NW, K] = W + lora.scale * B A (each row with its segment's A rows); out is overwritten. */
  run(W: GPUBuffer, lora: LinearLora, NW: number, K: number, out: GPUBuffer, label = 'lora_merge'): void {
    const op = `lora_merge ${label}`;
    const starts = lora.segmentStarts ?? [];
    const S = 1 + starts.length, R = lora.R;
    const need = (what: string, b: GPUBuffer, floats: number, shape: string) => {
      if (b.size < floats * 4) throw new ShapeError(op, `${what} of ${shape} f32 (${floats * 4} bytes)`, `${b.size} bytes (${b.label})`);
    };
    need('W', W, NW * K, `[${NW}, ${K}]`);
    need('out', out, NW * K, `[${NW}, ${K}]`);
    need('LoRA A', lora.A, S * R * K, `[${S * R}, ${K}]`);
    need('LoRA B', lora.B, NW * R, `[${NW}, ${R}]`);
    const per = K % 4 === 0 ? 4 : 1; // lora_merge4: four elements of a row per invocation
    const groups = Math.ceil((NW * K) / per / WG);
    const x = Math.min(groups, this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    this.uniforms.set([NW, K, R, starts[0] ?? NW, starts[1] ?? NW, x * WG, 0, 0]);
    this.uniformsF32[6] = lora.scale;
    this.rt.dispatch(per === 4 ? this.vec4 : this.scalar, [W, lora.A, lora.B, out], this.uniforms, { x, y: Math.ceil(groups / x) });
  }
}
