// Launcher for shaders/lora_merge.wgsl: a fused group's f32 weight with its LoRA folded in,
// out = W + scale * B A per segment (GpuModel.mergeLora, for rollouts). CPU twin: mergeLoraPair
// (src/export/merge.ts) per segment. Tested by tests/unit/gpu/lora-merge.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import type { LinearLora, LinearSpec } from './linear';
import { flatGrid } from '../grid';

const WG = 64;

/**
 * Most bytes of merged copies of the adapted weights (an f32 copy of every adapted layer) that
 * GpuModel.mergeLora (rollouts) and TrainStep (a training call) hold: small models merge (the
 * default agent: about 1 MiB), a 0.5B model in f32 (about 1.4 GB of adapted weights) keeps the
 * separate LoRA path.
 */
export const MERGE_MAX_BYTES = 64 * 1024 * 1024;

/** A linear whose weight LoraMerge folds its LoRA into (a Linear or LinearBackward: NW rows of W). */
export interface MergeTarget {
  readonly NW: number;
  readonly spec: LinearSpec;
}

export class LoraMerge {
  private readonly uniforms = new Uint32Array(8);
  private readonly uniformsF32 = new Float32Array(this.uniforms.buffer);

  private constructor(private readonly rt: GpuRuntime, private readonly pipeline: Kernel) {}

  static async create(rt: GpuRuntime): Promise<LoraMerge> {
    return new LoraMerge(rt, await rt.kernel({ shader: 'lora_merge', entry: 'lora_merge4', overrides: { WG } }));
  }

  /**
   * Records merged copies (W + scale B A) of these adapted linears into pooled buffers, in order;
   * null, recording nothing, when one has an NF4 weight or no LoRA, or the copies would exceed
   * MERGE_MAX_BYTES. The caller hands them to its linears and releases them.
   */
  copies(targets: readonly MergeTarget[]): GPUBuffer[] | null {
    if (targets.some((t) => t.spec.weight.format !== 'f32' || !t.spec.lora)) return null;
    if (targets.reduce((n, t) => n + t.NW * t.spec.K * 4, 0) > MERGE_MAX_BYTES) return null;
    return targets.map(({ NW, spec }) => {
      const out = this.rt.storage(NW * spec.K * 4, `${spec.label} merged with LoRA`);
      if (spec.weight.format === 'f32' && spec.lora) this.run(spec.weight.W, spec.lora, NW, spec.K, out, spec.label);
      return out;
    });
  }

  /** Records out [NW, K] = W + lora.scale * B A (each row with its segment's A rows); out is overwritten. K % 4 == 0 (as a Linear's). */
  run(W: GPUBuffer, lora: LinearLora, NW: number, K: number, out: GPUBuffer, label = 'lora_merge'): void {
    const op = `lora_merge ${label}`;
    const starts = lora.segmentStarts ?? [];
    const S = 1 + starts.length, R = lora.R;
    if (K % 4 !== 0) throw new ShapeError(op, 'K (in features) a multiple of 4', `K=${K}`);
    const need = (what: string, b: GPUBuffer, floats: number, shape: string) => {
      if (b.size < floats * 4) throw new ShapeError(op, `${what} of ${shape} f32 (${floats * 4} bytes)`, `${b.size} bytes (${b.label})`);
    };
    need('W', W, NW * K, `[${NW}, ${K}]`);
    need('out', out, NW * K, `[${NW}, ${K}]`);
    need('LoRA A', lora.A, S * R * K, `[${S * R}, ${K}]`);
    need('LoRA B', lora.B, NW * R, `[${NW}, ${R}]`);
    const g = flatGrid((NW * K) / 4, WG, this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    this.uniforms.set([NW, K, R, starts[0] ?? NW, starts[1] ?? NW, g.x * WG, 0, 0]);
    this.uniformsF32[6] = lora.scale;
    this.rt.dispatch(this.pipeline, [W, lora.A, lora.B, out], this.uniforms, g);
  }
}
