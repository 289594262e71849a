// Packs a host LoRA adapter into the GPU layout the fused Linear layers expect: for q|k|v and
// gate|up the per-projection A matrices stacked along rows ([S*R, K]) and the B matrices stacked
// along out like the fused weight ([NW, R]), zeros for projections the adapter does not target.
// Used by GpuModel; tested through tests/unit/model/model-gpu.test.ts (adapter on vs the CPU reference).
import type { GpuRuntime } from '../../gpu/runtime';
import type { LinearLora } from '../../gpu/kernels/linear';
import { loraKey, loraScale, projShape, type LoraWeights, type ModelConfig, type Projection } from '../types';

export type LinearGroup = 'qkv' | 'o' | 'gateUp' | 'down';
export const GROUPS: Record<LinearGroup, Projection[]> = { qkv: ['q', 'k', 'v'], o: ['o'], gateUp: ['gate', 'up'], down: ['down'] };
/** The fused groups in the order each layer builds them. */
export const LINEAR_GROUPS = Object.keys(GROUPS) as LinearGroup[];

/**
 * A group's packed LoRA shape: S segments, in features K, per-projection outs, the first fused
 * row of each segment after the first (starts: LinearLora.segmentStarts) and fused out NW.
 */
export interface GroupShape { S: number; K: number; outs: number[]; starts: number[]; NW: number }

/** The shape rule of a fused group (also sizes the memory plan: src/train/memory-plan.ts). */
export function groupShape(cfg: ModelConfig, group: LinearGroup): GroupShape {
  const projs = GROUPS[group];
  const outs = projs.map((p) => projShape(cfg, p)[0]);
  const starts = outs.slice(0, -1).map((_, s) => outs.slice(0, s + 1).reduce((a, b) => a + b, 0));
  return { S: projs.length, K: projShape(cfg, projs[0])[1], outs, starts, NW: outs.reduce((a, b) => a + b, 0) };
}

/** Whether an adapter targeting `targets` has LoRA on this group (any of its projections). */
export function groupTargeted(targets: readonly Projection[], group: LinearGroup): boolean {
  return GROUPS[group].some((p) => targets.includes(p));
}

/** GPU LoRA for one fused group of one layer, or null when the adapter targets none of it. */
export function uploadLoraGroup(rt: GpuRuntime, cfg: ModelConfig, lora: LoraWeights, layer: number, group: LinearGroup, buffers: GPUBuffer[]): LinearLora | null {
  const projs = GROUPS[group];
  const pairs = projs.map((p) => lora.pairs.get(loraKey(layer, p)) ?? null);
  if (pairs.every((p) => p === null)) return null;
  const R = lora.config.rank;
  const { K, starts, NW } = groupShape(cfg, group);
  const A = new Float32Array(projs.length * R * K);
  const B = new Float32Array(NW * R);
  projs.forEach((_p, s) => {
    const pair = pairs[s];
    if (pair) {
      A.set(pair.A, s * R * K);
      B.set(pair.B, (s > 0 ? starts[s - 1] : 0) * R);
    }
  });
  const label = `layers.${layer}.${group} lora`;
  const a = rt.upload(A, `${label} A`), b = rt.upload(B, `${label} B`);
  buffers.push(a, b);
  return { A: a, B: b, R, scale: loraScale(lora.config), segmentStarts: starts.length ? starts : undefined };
}
