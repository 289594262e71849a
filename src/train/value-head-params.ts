// PPO's value head as trainable GPU tensors: w [C] (uniform +-1/sqrt(C) from a seed, as
// nn.Linear) and b [1] (0), their gradients (+=, zeroed by the optimizer) and the checkpoint
// names value_head.weight / value_head.bias. The Trainer adds them to AdamW beside the adapter.
// Exercised by tests/unit/rl/ppo-step.test.ts and ppo-run.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { OptimParam } from '../gpu/kernels/adamw';
import type { TensorMap } from '../model/types';
import { writeSafetensors } from '../model/io/safetensors-write';
import { mulberry32 } from '../util/rng';

/** The file written beside the adapter at the end of a ppo run. */
export const VALUE_HEAD_FILE = 'value_head.safetensors';

export const VALUE_HEAD_WEIGHT = 'value_head.weight';
export const VALUE_HEAD_BIAS = 'value_head.bias';

/** Shapes of the head's tensors as checkpoints store them. */
export function valueHeadShapes(C: number): Map<string, number[]> {
  return new Map([[VALUE_HEAD_WEIGHT, [1, C]], [VALUE_HEAD_BIAS, [1]]]);
}

export class ValueHeadParams {
  private constructor(private readonly rt: GpuRuntime, readonly C: number, readonly w: GPUBuffer, readonly b: GPUBuffer,
    readonly dw: GPUBuffer, readonly db: GPUBuffer) {}

  static init(rt: GpuRuntime, C: number, seed: number): ValueHeadParams {
    const rand = mulberry32(seed ^ 0x5a17);
    const bound = 1 / Math.sqrt(C);
    const w = Float32Array.from({ length: C }, () => (2 * rand() - 1) * bound);
    return new ValueHeadParams(rt, C, rt.upload(w, 'value_head.weight'), rt.upload(new Float32Array(1), 'value_head.bias'),
      rt.upload(new Float32Array(C), 'value_head.weight grad'), rt.upload(new Float32Array(1), 'value_head.bias grad'));
  }

  /** AdamW entries: the bias without weight decay (as HF Trainer groups biases). */
  optimParams(): OptimParam[] {
    return [
      { name: VALUE_HEAD_WEIGHT, param: this.w, grad: this.dw, size: this.C },
      { name: VALUE_HEAD_BIAS, param: this.b, grad: this.db, size: 1, weightDecay: 0 },
    ];
  }

  /** Reads (param or moment) buffers picked per name into a TensorMap under checkpoint names. */
  async read(pick: (name: string, param: GPUBuffer) => GPUBuffer): Promise<TensorMap> {
    const m: TensorMap = new Map();
    m.set(VALUE_HEAD_WEIGHT, { shape: [1, this.C], data: await this.rt.readF32(pick(VALUE_HEAD_WEIGHT, this.w), this.C) });
    m.set(VALUE_HEAD_BIAS, { shape: [1], data: await this.rt.readF32(pick(VALUE_HEAD_BIAS, this.b), 1) });
    return m;
  }

  /** Writes the head's tensors of `t` (checkpoint names) into the picked buffers; errors name the tensor. */
  write(pick: (name: string, param: GPUBuffer) => GPUBuffer, t: TensorMap): void {
    for (const [name, buf, n] of [[VALUE_HEAD_WEIGHT, this.w, this.C], [VALUE_HEAD_BIAS, this.b, 1]] as const) {
      const x = t.get(name);
      if (!x) throw new Error(`value head: the checkpoint has no "${name}"; it was not written by a ppo run (resume it with its own trainer)`);
      if (x.data.length !== n) throw new Error(`value head: "${name}" has ${x.data.length} values; expected ${n} (hidden size ${this.C})`);
      this.rt.write(pick(name, buf), x.data);
    }
  }

  /** value_head.safetensors: value_head.weight [1, C] and value_head.bias [1] (f32). */
  async file(): Promise<Uint8Array> {
    return writeSafetensors(await this.read((_n, p) => p), { format: 'pt', content: 'rl-studio value head: v = h_final_norm . weight + bias' });
  }

  dispose(): void {
    this.rt.release(this.w, this.b, this.dw, this.db);
  }
}
