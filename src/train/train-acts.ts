// The training step's GPU buffers, built from one size table (rows x floats per row): what the
// forward keeps per layer for the backward (all layers, or one shared set when recomputing),
// each layer's input on the residual stream, and the backward's gradient scratch. Grown on
// demand, pooled by the runtime. Used by src/train/train-step.ts (tested through its tests).
import type { GpuRuntime } from '../gpu/runtime';
import type { LinearGroup } from '../model/gpu/lora-upload';
import type { ModelConfig } from '../model/types';
import { GROUP_NAMES } from './lora-params';
import { LOGPROB_CHUNK_ROWS } from '../gpu/kernels/logprobs';

/** What one layer's backward reads from its forward (M rows each). */
export interface LayerActs {
  h: GPUBuffer;    // [M, C] input_layernorm output (the q|k|v input)
  q: GPUBuffer;    // [M, NH, HS] rotated queries
  o: GPUBuffer;    // [M, NH HS] attention output (the o_proj input)
  lse: GPUBuffer;  // [M, NH] attention log-sum-exp
  xMid: GPUBuffer; // [M, C] residual after attention
  h2: GPUBuffer;   // [M, C] post_attention_layernorm output (the gate|up input)
  gu: GPUBuffer;   // [M, 2I] gate|up pre-activations
  act: GPUBuffer;  // [M, I] silu(gate) * up (the down_proj input)
  /** [M, S*R] X A^T per LoRA group, as the forward computed it. */
  xa: Partial<Record<LinearGroup, GPUBuffer>>;
}

export interface TrainActs {
  rows: number;
  layersKept: number;
  /** L + 1 buffers [M, C]: the input of layer l; resid[L] is the last layer's output. */
  resid: GPUBuffer[];
  hf: GPUBuffer;     // [M, C] final-normed hidden states (the LM head input)
  qkv: GPUBuffer;    // [M, (NH + 2 KVH) HS] scratch: q|k|v before RoPE
  layers: LayerActs[];
  // backward scratch (activation gradients, overwritten layer by layer)
  dRes: GPUBuffer;   // [M, C] the residual stream's gradient
  dN: GPUBuffer;     // [M, C] gradient of a norm output (final, post-attention, input)
  dAct: GPUBuffer;   // [M, I]
  dGU: GPUBuffer;    // [M, 2I]
  dO: GPUBuffer;     // [M, NH HS]
  dQ: GPUBuffer;     // [M, NH, HS]
  dQKV: GPUBuffer;   // [M, (NH + 2 KVH) HS]
  hChunk: GPUBuffer;  // [chunkRows, C] one LM-head chunk of hf
  logits: GPUBuffer;  // [chunkRows, V] its logits, then dlogits in place
  dhChunk: GPUBuffer; // [chunkRows, C] its dH
  all: GPUBuffer[];
}

/** Floats per row of every per-layer activation (the size table). */
export function layerRowSizes(cfg: ModelConfig): Record<LayerAct, number> {
  const C = cfg.hiddenSize, NQ = cfg.numHeads * cfg.headDim, I = cfg.intermediateSize;
  return { h: C, q: NQ, o: NQ, lse: cfg.numHeads, xMid: C, h2: C, gu: 2 * I, act: I };
}

/** A layer's kept buffers in allocation order (after its X A^T), with their labels. */
export const LAYER_ACTS = ['h', 'q', 'o', 'lse', 'xMid', 'h2', 'gu', 'act'] as const;
export type LayerAct = (typeof LAYER_ACTS)[number];
const LAYER_LABELS: Record<LayerAct, string> = { h: 'h', q: 'q', o: 'attn out', lse: 'lse', xMid: 'x mid', h2: 'h2', gu: 'gate|up', act: 'swiglu' };

/** The step-wide buffers allocated after the residuals, in allocation order: floats per row. */
export function stepRowSizes(cfg: ModelConfig): { hf: number; qkv: number; dRes: number; dN: number; dAct: number; dGU: number; dO: number; dQ: number; dQKV: number } {
  const C = cfg.hiddenSize, NQ = cfg.numHeads * cfg.headDim, F = (cfg.numHeads + 2 * cfg.numKvHeads) * cfg.headDim, I = cfg.intermediateSize;
  return { hf: C, qkv: F, dRes: C, dN: C, dAct: I, dGU: 2 * I, dO: NQ, dQ: NQ, dQKV: F };
}

/** Bytes the training step may spend on one LM-head chunk of logits. */
export const TRAIN_LOGITS_BUDGET = 4 * 1024 * 1024;

/**
 * Fewest rows of a training LM-head chunk (where maxRows allows), whatever the model's own
 * chunkRows: the log-prob chunks' default, so the NF4 LM head's forward and dX run their 32-row
 * tiles (nf4TileRows, src/gpu/kernels/linear.ts): 1.2x on a Qwen-sized update, whose 151,936-wide
 * vocabulary makes a chunk 19 MiB of logits, over TRAIN_LOGITS_BUDGET either way.
 */
export const TRAIN_MIN_CHUNK_ROWS = LOGPROB_CHUNK_ROWS;

/**
 * Rows of the training step's LM-head chunks: as many as TRAIN_LOGITS_BUDGET of [rows, V] logits
 * holds (a multiple of 8), at least TRAIN_MIN_CHUNK_ROWS, at most maxRows, never fewer than the
 * model's own chunkRows. Small vocabularies then run the LM head, log-probs and their backward in
 * one chunk per pass instead of maxRows / 16 (stories260K: 1 chunk instead of 128, i.e. 640
 * dispatches fewer per update).
 */
export function trainChunkRows(V: number, modelChunkRows: number, maxRows: number): number {
  const fit = Math.floor(TRAIN_LOGITS_BUDGET / (V * 4) / 8) * 8;
  return Math.max(modelChunkRows, Math.min(maxRows, Math.max(fit, TRAIN_MIN_CHUNK_ROWS)));
}

/**
 * Allocates the buffers for `rows` rows keeping `layersKept` layers of activations (L, or 1 when
 * recomputing). xaWidth(g) is S*R of LoRA group g (0: no LoRA on that group).
 */
export function allocTrainActs(rt: GpuRuntime, cfg: ModelConfig, rows: number, layersKept: number, chunkRows: number,
  xaWidth: (g: LinearGroup) => number): TrainActs {
  const all: GPUBuffer[] = [];
  const s = (floats: number, label: string, n = rows) => {
    const b = rt.storage(Math.max(16, n * floats * 4), `train ${label} [${n}, ${floats}]`);
    all.push(b);
    return b;
  };
  const C = cfg.hiddenSize;
  const sizes = layerRowSizes(cfg), st = stepRowSizes(cfg);
  const layers: LayerActs[] = [];
  for (let l = 0; l < layersKept; l++) {
    const xa: Partial<Record<LinearGroup, GPUBuffer>> = {};
    for (const g of GROUP_NAMES) if (xaWidth(g) > 0) xa[g] = s(xaWidth(g), `layer ${l} ${g} X A^T`);
    const kept = {} as Record<LayerAct, GPUBuffer>;
    for (const k of LAYER_ACTS) kept[k] = s(sizes[k], `layer ${l} ${LAYER_LABELS[k]}`);
    layers.push({ ...kept, xa });
  }
  const resid = Array.from({ length: cfg.numLayers + 1 }, (_, l) => s(C, `residual in ${l}`));
  // In stepRowSizes order (the memory planner replays it).
  return {
    rows, layersKept, resid, layers, all,
    hf: s(st.hf, 'final normed'), qkv: s(st.qkv, 'qkv'),
    dRes: s(st.dRes, 'd residual'), dN: s(st.dN, 'd normed'), dAct: s(st.dAct, 'd swiglu'), dGU: s(st.dGU, 'd gate|up'),
    dO: s(st.dO, 'd attn out'), dQ: s(st.dQ, 'd q'), dQKV: s(st.dQKV, 'd qkv'),
    hChunk: s(C, 'lm-head chunk', chunkRows), logits: s(cfg.vocabSize, 'lm-head chunk logits', chunkRows), dhChunk: s(C, 'd lm-head chunk', chunkRows),
  };
}

export function releaseTrainActs(rt: GpuRuntime, a: TrainActs): void {
  rt.release(...a.all);
}
