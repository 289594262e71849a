// The size table of GpuModel's step activations: which buffers a forward step allocates, in
// order, their floats per row, and how many rows they get. GpuModel (model.ts) allocates from it
// and the memory planner (src/train/memory-plan.ts) sizes from it, so the two cannot drift.
// Tested by tests/unit/train/train-plan.test.ts (plan == the real pool's peak).
import type { ModelConfig } from '../types';

/** Step activation buffers in allocation order. */
export const STEP_ACTS = ['ids', 'table', 'x', 'h', 'qkv', 'q', 'o', 'g'] as const;
export type StepAct = (typeof STEP_ACTS)[number];

/** Floats (u32 or f32 words) per row of each buffer. */
export function stepActWidths(cfg: ModelConfig): Record<StepAct, number> {
  const { hiddenSize: C, numHeads: NH, numKvHeads: KVH, headDim: HS, intermediateSize: I } = cfg;
  return {
    ids: 1,                  // [M] u32 token ids
    table: 2,                // [M, 2] u32 (sequence slot, position)
    x: C,                    // [M, C] residual stream
    h: C,                    // [M, C] normed
    qkv: (NH + 2 * KVH) * HS, // [M, F] fused q|k|v before RoPE
    q: NH * HS,              // [M, NH*HS] rotated q
    o: NH * HS,              // [M, NH*HS] attention out
    g: I,                    // [M, I] SwiGLU out
  };
}

/**
 * Rows allocated for a step of M rows: at least 8, doubling the previous allocation when it is
 * too small (prevRows), never more than maxRows.
 */
export function stepActRows(maxRows: number, M: number, prevRows?: number): number {
  return Math.min(maxRows, Math.max(M, prevRows ? prevRows * 2 : 8));
}
