// The trainable LoRA adapter on the GPU: per layer and fused group (q|k|v, o, gate|up, down) the
// packed A [S*R, K] and B [NW, R] the Linear layers read (the layout of model/gpu/lora-upload.ts),
// their gradient buffers (+= by the backward), PEFT init from a seed or a loaded adapter, and
// the host round trip to/from LoraWeights / LoraGrads (PEFT tensors, for export and checkpoints).
// Tested by tests/unit/train/train-step-goldens.test.ts (grads vs PyTorch) and train-step-modes.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { LinearLora } from '../gpu/kernels/linear';
import type { OptimParam } from '../gpu/kernels/adamw';
import { GROUPS, LINEAR_GROUPS, type LinearGroup } from '../model/gpu/lora-upload';
import { loraKey, loraScale, projShape, type LoraConfig, type LoraPair, type LoraWeights, type ModelConfig, type Projection } from '../model/types';
import type { LoraGrads } from '../reference/model_backward';
import { lora_init } from '../reference/lora';

export const GROUP_NAMES = LINEAR_GROUPS;

/** Where each projection of a group sits in the packed buffers (floats). */
interface Segment { proj: Projection; targeted: boolean; aOff: number; aLen: number; bOff: number; bLen: number }

/** One fused group's buffers; `name` is the optimizer prefix (`layers.{l}.{group}`). */
export interface GroupSlot {
  name: string;
  lora: LinearLora;
  dA: GPUBuffer;
  dB: GPUBuffer;
  aSize: number;
  bSize: number;
  segments: Segment[];
}

/** The packing of one group: segments and sizes (every projection of the group gets a slot). */
function layout(cfg: ModelConfig, config: LoraConfig, group: LinearGroup): { segments: Segment[]; aSize: number; bSize: number; starts: number[] } {
  const R = config.rank;
  const segments: Segment[] = [];
  const starts: number[] = [];
  let aOff = 0, row = 0;
  GROUPS[group].forEach((proj, s) => {
    const [out, K] = projShape(cfg, proj);
    if (s > 0) starts.push(row);
    segments.push({ proj, targeted: config.targets.includes(proj), aOff, aLen: R * K, bOff: row * R, bLen: out * R });
    aOff += R * K;
    row += out;
  });
  return { segments, aSize: aOff, bSize: row * R, starts };
}

export class GpuLoraParams {
  private constructor(
    private readonly rt: GpuRuntime,
    readonly cfg: ModelConfig,
    readonly config: LoraConfig,
    /** [layer][group]: null when the adapter targets no projection of the group. */
    private readonly slots: (GroupSlot | null)[][],
  ) {}

  /** A fresh adapter as PEFT initialises one (A uniform +-1/sqrt(in), B zero), from `seed`. */
  static init(rt: GpuRuntime, cfg: ModelConfig, config: LoraConfig, seed: number): GpuLoraParams {
    return GpuLoraParams.fromHost(rt, cfg, lora_init(cfg, config, seed));
  }

  /** Uploads an adapter (e.g. readPeftAdapter's); gradients start at zero. */
  static fromHost(rt: GpuRuntime, cfg: ModelConfig, lora: LoraWeights): GpuLoraParams {
    const { config } = lora;
    if (!(config.rank > 0) || config.targets.length === 0) throw new Error(`LoRA: rank ${config.rank} and targets [${config.targets.join(', ')}]; need a rank > 0 and at least one target`);
    const slots: (GroupSlot | null)[][] = [];
    for (let l = 0; l < cfg.numLayers; l++) {
      slots.push(GROUP_NAMES.map((g) => {
        const { segments, aSize, bSize, starts } = layout(cfg, config, g);
        if (!segments.some((s) => s.targeted)) return null;
        const name = `layers.${l}.${g}`;
        const A = rt.storage(aSize * 4, `${name} lora_A [${GROUPS[g].length * config.rank}, ${projShape(cfg, GROUPS[g][0])[1]}]`);
        const B = rt.storage(bSize * 4, `${name} lora_B [${bSize / config.rank}, ${config.rank}]`);
        const dA = rt.storage(aSize * 4, `${name} lora_A grad`), dB = rt.storage(bSize * 4, `${name} lora_B grad`);
        rt.write(dA, new Float32Array(aSize));
        rt.write(dB, new Float32Array(bSize));
        const lin: LinearLora = { A, B, R: config.rank, scale: loraScale(config), segmentStarts: starts.length ? starts : undefined };
        return { name, lora: lin, dA, dB, aSize, bSize, segments };
      }));
    }
    const p = new GpuLoraParams(rt, cfg, config, slots);
    p.load(lora);
    return p;
  }

  /** Writes an adapter's values into the parameters (checkpoint resume); gradients untouched. */
  load(lora: LoraWeights): void {
    this.pack((s) => [s.lora.A, s.lora.B], lora.pairs);
  }

  /**
   * Writes PEFT tensors (keyed by loraKey) into any pair of buffers laid out like a group's (A, B):
   * params, or AdamW moments on resume. Projections the map lacks are written as zeros.
   */
  pack(pick: (s: GroupSlot) => [GPUBuffer, GPUBuffer], pairs: Map<string, LoraPair>): void {
    this.forEachSlot((l, _g, s) => {
      const A = new Float32Array(s.aSize), B = new Float32Array(s.bSize);
      for (const seg of s.segments) {
        const pair = seg.targeted ? pairs.get(loraKey(l, seg.proj)) : undefined;
        if (!pair) continue;
        if (pair.A.length !== seg.aLen || pair.B.length !== seg.bLen) {
          throw new Error(`LoRA ${loraKey(l, seg.proj)}: A has ${pair.A.length} values and B ${pair.B.length}; expected ${seg.aLen} and ${seg.bLen} (rank ${this.config.rank})`);
        }
        A.set(pair.A, seg.aOff);
        B.set(pair.B, seg.bOff);
      }
      const [a, b] = pick(s);
      this.rt.write(a, A);
      this.rt.write(b, B);
    });
  }

  /** The LinearLora a layer's fused group reads (for Linear / LinearBackward / GpuModel.useLora). */
  group(layer: number, group: LinearGroup): LinearLora | null {
    return this.slots[layer][GROUP_NAMES.indexOf(group)]?.lora ?? null;
  }

  /** The gradient buffers (+=) of a group, stacked like its A and B. */
  grads(layer: number, group: LinearGroup): { dA: GPUBuffer; dB: GPUBuffer } | null {
    const s = this.slots[layer][GROUP_NAMES.indexOf(group)];
    return s ? { dA: s.dA, dB: s.dB } : null;
  }

  /** One optimizer tensor per packed buffer: `layers.{l}.{group}.lora_A` / `.lora_B`. */
  optimParams(): OptimParam[] {
    const out: OptimParam[] = [];
    this.forEachSlot((_l, _g, s) => {
      out.push({ name: `${s.name}.lora_A`, param: s.lora.A, grad: s.dA, size: s.aSize });
      out.push({ name: `${s.name}.lora_B`, param: s.lora.B, grad: s.dB, size: s.bSize });
    });
    return out;
  }

  /** Trainable values (targeted projections only; the zero padding of a group is not counted). */
  get numParams(): number {
    let n = 0;
    this.forEachSlot((_l, _g, s) => { for (const seg of s.segments) if (seg.targeted) n += seg.aLen + seg.bLen; });
    return n;
  }

  /** Reads the adapter back in PEFT layout (A [R, in], B [out, R]) for export and checkpoints. */
  async toHost(): Promise<LoraWeights> {
    const pairs = new Map<string, LoraPair>();
    await this.unpack((s) => [s.lora.A, s.lora.B], (key, A, B) => pairs.set(key, { A, B }));
    return { config: { ...this.config, targets: [...this.config.targets] }, pairs };
  }

  /** Reads the accumulated gradients back, keyed like LoraWeights.pairs (dA [R, in], dB [out, R]). */
  async gradsToHost(): Promise<LoraGrads> {
    const grads: LoraGrads = new Map();
    await this.unpack((s) => [s.dA, s.dB], (key, dA, dB) => grads.set(key, { dA, dB }));
    return grads;
  }

  /**
   * Reads any pair of buffers laid out like a group's (A, B) — params, grads or AdamW moments
   * (GpuAdamW.moments(`${name}.lora_A`)) — and splits them into PEFT tensors per projection.
   */
  async unpack(pick: (s: GroupSlot) => [GPUBuffer, GPUBuffer],
    put: (key: string, a: Float32Array, b: Float32Array) => void): Promise<void> {
    const jobs: Promise<void>[] = [];
    this.forEachSlot((l, _g, s) => {
      const [a, b] = pick(s);
      jobs.push(Promise.all([this.rt.readF32(a, s.aSize), this.rt.readF32(b, s.bSize)]).then(([A, B]) => {
        for (const seg of s.segments) {
          if (seg.targeted) put(loraKey(l, seg.proj), A.slice(seg.aOff, seg.aOff + seg.aLen), B.slice(seg.bOff, seg.bOff + seg.bLen));
        }
      }));
    });
    await Promise.all(jobs);
  }

  /** Bytes of the parameters and gradients. */
  get bytes(): number {
    let n = 0;
    this.forEachSlot((_l, _g, s) => { n += 2 * 4 * (s.aSize + s.bSize); });
    return n;
  }

  dispose(): void {
    this.forEachSlot((_l, _g, s) => this.rt.release(s.lora.A, s.lora.B, s.dA, s.dB));
  }

  private forEachSlot(fn: (layer: number, group: LinearGroup, s: GroupSlot) => void): void {
    this.slots.forEach((row, l) => row.forEach((s, gi) => { if (s) fn(l, GROUP_NAMES[gi], s); }));
  }
}
