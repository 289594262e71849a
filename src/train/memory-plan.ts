// GPU memory planner: what inference (GpuModel + DecodeSession) and a training run (Trainer +
// TrainStep + AdamW, SFT updates) need, computed without allocating. It replays, on a dry-run pool
// (pool-sim.ts), the allocations the engine makes in order (weights f32 or NF4 with the f32 copy
// each NF4 weight passes through; LoRA; KV cache; activations; logits chunks; kernels' scratch;
// one uniform per dispatch; staging), so pool reuse and 16-byte rounding count as in the runtime.
// Training options add PPO's value head and the frozen KL reference copy (RL runs).
// Tested by tests/unit/train/train-plan.test.ts (inference) and sft-plan.test.ts (training): both equal
// rt.memory().peak of the real engine on small configs.
import { NF4_BLOCK } from '../gpu/kernels/nf4';
import { LOGPROB_CHUNK_ROWS } from '../gpu/kernels/logprobs';
import { MERGE_MAX_BYTES } from '../gpu/kernels/lora-merge';
import { attentionBackwardDispatches, attentionScratchBytes, keptScoresBytes } from '../gpu/kernels/attention-backward';
import type { AttentionVariant } from '../gpu/kernels/attention';
import { loraBackwardLayout, type BackwardVariant } from '../gpu/kernels/linear-backward';
import type { QuantMode } from '../model/gpu/upload';
import { LINEAR_GROUPS, groupShape, groupTargeted, type GroupShape, type LinearGroup } from '../model/gpu/lora-upload';
import { STEP_ACTS, stepActRows, stepActWidths } from '../model/gpu/step-acts';
import type { ModelConfig, Projection } from '../model/types';
import { PoolSim, POOL_FREE_ROW, type SimBuffer } from './pool-sim';
import { LAYER_ACTS, layerRowSizes, stepRowSizes, trainChunkRows } from './train-acts';
import { SHARE_MAX_TOKENS } from './prefix-share';

export interface PlanRow {
  name: string;
  bytes: number;
  note: string;
}

export interface MemoryPlan {
  /** The pool's peak of allocated bytes: the sum of the rows. */
  total: number;
  /** What is allocated at the peak, by row. */
  rows: PlanRow[];
  /** Bytes added by the pool's 16-byte rounding (already inside the rows). */
  roundingBytes: number;
  /** Allocated bytes right after the weights are up (load phase peak may be higher: NF4 f32 copies). */
  weightsBytes: number;
  /** The largest single buffer (rounded bytes) and the row it belongs to. */
  largestBuffer: { bytes: number; row: string };
}

export interface LoraShape {
  /** R */
  rank: number;
  targets: Projection[];
}

export interface InferencePlanOptions {
  quant: QuantMode;
  quantEmbeddings: boolean;
  lora?: LoraShape | null;
  /** Sequence slots of the DecodeSession. */
  B: number;
  /** Positions per slot of its KV cache. */
  Tmax: number;
  /** GpuModelOptions.chunkRows (default LOGPROB_CHUNK_ROWS). */
  chunkRows?: number;
  /** GpuModelOptions.maxRows (default 512). */
  maxRows?: number;
  /** Rows of the largest step, the first one (a prefill of all slots); default min(maxRows, B * Tmax). */
  stepRows?: number;
}

// Row names (one vocabulary for inference and training plans).
const ROW = {
  embed: 'weights: token embedding (also the LM head when tied)',
  head: 'weights: LM head (untied)',
  linear: 'weights: linear layers (fused qkv, o, gate|up, down)',
  small: 'weights: RMSNorm weights and q/k/v biases',
  f32copy: 'load: f32 copy of the weight being quantized',
  nf4scratch: 'load: NF4 quantizer scratch',
  lora: 'LoRA A/B (packed per fused group)',
  dummy: 'kernels: 16-byte placeholder bindings',
  rope: 'RoPE cos/sin table',
  logits: 'log-probs chunk: hidden [chunkRows, C] + logits [chunkRows, V]',
  kv: 'KV cache K and V [B, KVH, Tmax, HS] per layer',
  acts: 'step activations [rows, ...]',
  xa: 'LoRA X A^T scratch [M, S*R]',
  sample: 'sampling: logits [B, V], gathered rows [B, C], out [2B]',
  uniform: 'uniform buffers (one per dispatch of a step)',
  staging: 'readback staging',
} as const;

const NOTES: Record<string, string> = {
  [ROW.embed]: 'f32 [V, C], or NF4 codes [V*C/2 B] + absmax [V*C/64] with quantEmbeddings',
  [ROW.linear]: 'f32, or NF4 codes (4 bits) + absmax (f32 per 64) when in features % 64 == 0',
  [ROW.f32copy]: 'upload.ts uploads each weight in f32, quantizes it on the GPU, then destroys the copy',
  [ROW.nf4scratch]: 'per-block errors [blocks, 2] f32 and the total; released to the pool afterwards',
  [ROW.lora]: 'A [S*R, K] and B [NW, R] per fused group (zeros for untargeted projections of a targeted group)',
  [ROW.rope]: '[Tmax, HS/2] cos/sin pairs (forward: the model\'s max_position_embeddings)',
  [ROW.kv]: 'f32; 2 x L buffers',
  [ROW.uniform]: 'released at submit and reused by the next step',
  [POOL_FREE_ROW]: 'the pool keeps released buffers allocated for reuse (NF4 error scratch, staging of other sizes)',
};

interface Dims {
  V: number; C: number; I: number; L: number; NH: number; KVH: number; HS: number; NQ: number; NKV: number; F: number;
}

function dims(cfg: ModelConfig): Dims {
  const NQ = cfg.numHeads * cfg.headDim, NKV = cfg.numKvHeads * cfg.headDim;
  return { V: cfg.vocabSize, C: cfg.hiddenSize, I: cfg.intermediateSize, L: cfg.numLayers, NH: cfg.numHeads, KVH: cfg.numKvHeads, HS: cfg.headDim, NQ, NKV, F: NQ + 2 * NKV };
}

type Group = LinearGroup;
const GROUP_ORDER = LINEAR_GROUPS;

/** Segments S, in features K and fused out NW of a group (the engine's rule), or null when the adapter misses it. */
function loraGroup(cfg: ModelConfig, lora: LoraShape | null | undefined, g: Group): GroupShape | null {
  return lora && groupTargeted(lora.targets, g) ? groupShape(cfg, g) : null;
}

/** Records uniforms of one step like GpuRuntime.dispatch / submit. */
class Frame {
  private bufs: SimBuffer[] = [];
  constructor(private readonly sim: PoolSim) {}
  dispatch(uniformBytes: number): void {
    this.bufs.push(this.sim.acquire(Math.max(16, uniformBytes), 'uniform', ROW.uniform, NOTES[ROW.uniform]));
  }
  submit(): void {
    for (let i = this.bufs.length - 1; i >= 0; i--) this.sim.release(this.bufs[i]);
    this.bufs = [];
  }
}

/** uploadWeights (src/model/gpu/upload.ts), in its order. */
function simulateUpload(sim: PoolSim, cfg: ModelConfig, quant: QuantMode, quantEmbeddings: boolean): void {
  const d = dims(cfg);
  const frame = new Frame(sim);
  const quantizer = quant === 'nf4' || quantEmbeddings;
  const linear = (row: string, rows: number, cols: number, wantNf4: boolean) => {
    if (!wantNf4 || !quantizer || cols % NF4_BLOCK !== 0) {
      sim.acquire(rows * cols * 4, 'storage', row, NOTES[row]);
      return;
    }
    const n = rows * cols, blocks = n / NF4_BLOCK;
    const W = sim.acquire(n * 4, 'storage', ROW.f32copy, NOTES[ROW.f32copy]);
    sim.acquire(n / 2, 'storage', row, NOTES[row]);
    sim.acquire(blocks * 4, 'storage', row);
    const err = sim.acquire(blocks * 8, 'storage', ROW.nf4scratch, NOTES[ROW.nf4scratch]);
    const total = sim.acquire(16, 'storage', ROW.nf4scratch);
    frame.dispatch(16);
    frame.dispatch(16);
    const staging = sim.acquire(8, 'readback', ROW.staging);
    frame.submit();
    sim.release(staging, err, total);
    sim.destroy(W);
  };
  linear(ROW.embed, d.V, d.C, quantEmbeddings);
  if (!cfg.tieWordEmbeddings) linear(ROW.head, d.V, d.C, quantEmbeddings);
  const nf4 = quant === 'nf4';
  for (let i = 0; i < d.L; i++) {
    sim.acquire(d.C * 4, 'storage', ROW.small);
    sim.acquire(d.C * 4, 'storage', ROW.small);
    linear(ROW.linear, d.F, d.C, nf4);
    if (cfg.attentionBias) sim.acquire(d.F * 4, 'storage', ROW.small);
    linear(ROW.linear, d.C, d.NQ, nf4);
    linear(ROW.linear, 2 * d.I, d.C, nf4);
    linear(ROW.linear, d.C, d.I, nf4);
  }
  sim.acquire(d.C * 4, 'storage', ROW.small);
}

/**
 * GpuModel.load after the weights: LoRA groups and Linear placeholders per layer, then the rest.
 * Returns each layer's four Linear placeholders (GpuModel.useLora re-creates those Linears).
 */
function simulateModelLoad(sim: PoolSim, cfg: ModelConfig, lora: LoraShape | null | undefined, chunkRows: number): SimBuffer[][] {
  const d = dims(cfg);
  const dummies: SimBuffer[][] = [];
  for (let i = 0; i < d.L; i++) {
    const row: SimBuffer[] = [];
    for (const g of GROUP_ORDER) {
      const lg = loraGroup(cfg, lora, g);
      if (lg && lora) {
        sim.acquire(lg.S * lora.rank * lg.K * 4, 'storage', ROW.lora, NOTES[ROW.lora]);
        sim.acquire(lg.NW * lora.rank * 4, 'storage', ROW.lora);
      }
      row.push(sim.acquire(16, 'storage', ROW.dummy));
    }
    dummies.push(row);
  }
  sim.acquire(cfg.maxPositions * d.HS * 4, 'storage', ROW.rope, NOTES[ROW.rope]);
  sim.acquire(16, 'storage', ROW.dummy); // lm_head Linear
  sim.acquire(chunkRows * d.C * 4, 'storage', ROW.logits);
  sim.acquire(chunkRows * d.V * 4, 'storage', ROW.logits);
  return dummies;
}

function rowsOf(sim: PoolSim, weightsBytes: number): MemoryPlan {
  const rows = [...sim.rowsAtPeak()].map(([name, bytes]) => ({ name, bytes, note: sim.notes.get(name) ?? NOTES[name] ?? '' }));
  return { total: sim.peak, rows, roundingBytes: sim.rounding, weightsBytes, largestBuffer: { ...sim.largest } };
}

/**
 * Inference: GpuModel.load (tune: false, or tuning already remembered) + a DecodeSession of B
 * slots x Tmax whose first step prefills stepRows rows over all B slots and samples B tokens.
 */
export function planInference(cfg: ModelConfig, o: InferencePlanOptions): MemoryPlan {
  const d = dims(cfg);
  const chunkRows = o.chunkRows ?? LOGPROB_CHUNK_ROWS, maxRows = o.maxRows ?? 512;
  const M = Math.min(o.stepRows ?? Math.min(maxRows, o.B * o.Tmax), maxRows);
  if (M < o.B) throw new Error(`planInference: stepRows ${M} must give every one of the B = ${o.B} slots a token`);
  const sim = new PoolSim();
  simulateUpload(sim, cfg, o.quant, o.quantEmbeddings);
  const weightsBytes = sim.allocated;
  simulateModelLoad(sim, cfg, o.lora, chunkRows);

  // DecodeSession: the cache, then step(): logits [B, V], activations, dispatches, gather, sample.
  for (let l = 0; l < d.L; l++) {
    sim.acquire(o.B * d.KVH * o.Tmax * d.HS * 4, 'storage', ROW.kv, NOTES[ROW.kv]);
    sim.acquire(o.B * d.KVH * o.Tmax * d.HS * 4, 'storage', ROW.kv);
  }
  const R = o.B;
  sim.acquire(R * d.V * 4, 'storage', ROW.sample);
  const rows = stepActRows(maxRows, M);
  const widths = stepActWidths(cfg);
  for (const k of STEP_ACTS) sim.acquire(rows * widths[k] * 4, 'storage', ROW.acts, 'ids, row table, x, h [rows, C], qkv [rows, F], q, o [rows, NH*HS], g [rows, I]; rows = max(M, 8)');
  const frame = new Frame(sim);
  const linear = (g: Group) => {
    const lg = loraGroup(cfg, o.lora, g);
    if (lg && o.lora) {
      sim.acquire(M * lg.S * o.lora.rank * 4, 'storage', ROW.xa, 'one per Linear (4 per layer), sized by the first step');
      frame.dispatch(48);
    }
    frame.dispatch(48);
  };
  frame.dispatch(16); // embedding
  frame.dispatch(16); // first norm
  for (let l = 0; l < d.L; l++) {
    linear('qkv');
    frame.dispatch(32); // qkv_rope
    frame.dispatch(32); // attention
    linear('o');
    frame.dispatch(16);
    linear('gateUp');
    linear('down');
    frame.dispatch(16);
  }
  sim.acquire(R * d.C * 4, 'storage', ROW.sample);
  frame.dispatch(48); // lm_head on the gathered rows
  sim.acquire(8 * R, 'storage', ROW.sample);
  frame.dispatch(32); // sampler
  const staging = sim.acquire(Math.ceil((8 * R) / 4) * 4, 'readback', ROW.staging);
  frame.submit();
  sim.release(staging);
  return rowsOf(sim, weightsBytes);
}

export interface TrainingPlanOptions {
  mode: 'lora' | 'full';
  quant: QuantMode;
  quantEmbeddings: boolean;
  /** LoRA mode: the adapter trained. */
  lora?: LoraShape;
  /** B: sequences per optimizer update. */
  batchSize: number;
  /** T: tokens per sequence (plan for the longest example). */
  seqLen: number;
  /** Keep only each layer's input and recompute the rest layer by layer in the backward. */
  recompute: boolean;
  /** Sequences per forward/backward call (Trainer.sftStep's microBatch; default B). */
  microBatch?: number;
  /** Most rows per pass (TrainStep maxRows = GpuModel maxRows, default 512): a call is split into passes of whole sequences. */
  maxRows?: number;
  /** GpuModelOptions.chunkRows: rows of the LM-head chunks (default LOGPROB_CHUNK_ROWS). */
  chunkRows?: number;
  /**
   * Sequence lengths of each update, replayed in order (default: two updates of batchSize x
   * seqLen). Variable lengths matter: passes of other sizes regrow the activations (doubling) and
   * leave buffers of other sizes in the pool.
   */
  updates?: number[][];
  /** After each update, trim the pool when freed buffers exceed 1/8 of what is allocated (as SftRun does). */
  trimAfterUpdate?: boolean;
  /**
   * Updates (1-based) after which the run reads every trained tensor back (a checkpoint or the
   * export): one readback staging buffer per tensor, all held at once.
   */
  checkpointAfter?: number[];
  /**
   * PPO's value head (TrainerConfig.valueHeadSeed): w [C], b [1] and their gradients, allocated
   * after the trainable tensors, and their AdamW moments (the optimizer's last two entries).
   */
  valueHead?: boolean;
  /**
   * The KL reference as a frozen copy of the trainable tensors (rl/reference-policy.ts
   * frozenReference: full mode with beta > 0, or a run starting from model.adapter), made right
   * after Trainer.create (one copy per tensor, then a submit). Not modelled: the reference pass
   * itself (its swap scratch, the largest tensor, and its log-prob pass's buffers).
   */
  frozenReference?: boolean;
  /**
   * The attention variant the adapter runs (defaultAttentionVariant; default 'thread', the CPU
   * adapters' choice): 'thread' at HS 8 / 16 keeps P and dS between the backward's kernels.
   * Planning 'thread' where 'wg' runs is high by that row, never low.
   */
  attention?: AttentionVariant;
  /**
   * The linear backward's variant (defaultBackwardVariant; default 'rb16', the CPU adapters'
   * choice): with it LoRA's dY B may split into partial sums at few rows (loraBackwardLayout).
   */
  backward?: BackwardVariant;
  /** Gradients per AdamW grad-norm partial (normShape: default 256, a CPU adapter's 4 x 64; GPUs 2048). */
  gradNormChunk?: number;
}

/** The kernel choices of the adapter a plan is for (what the engine worker passes; defaults: a CPU adapter's). */
export type PlanKernels = Pick<TrainingPlanOptions, 'attention' | 'backward' | 'gradNormChunk'>;

const TROW = {
  grads: 'gradients (same layout as the trained tensors)',
  adam: 'AdamW m and v',
  adamScratch: 'AdamW grad-norm partials + stats',
  saved: 'activations kept for the backward',
  resid: 'layer inputs x [rows, C], L + 1 of them',
  work: 'forward working buffers: final normed H, q|k|v before RoPE [rows, ...]',
  kv: 'KV cache K and V [n, KVH, T, HS] kept for the backward',
  keptScores: 'attention scores the forward keeps for the tile backward [n, NH, T, T] f32 (HS 32-128, within 128 MiB)',
  rows: 'per-row data: ids, row table, targets, logp, entropy, dlogp, sequence table',
  bwd: 'backward scratch (one layer at a time)',
  loraBwd: 'LoRA backward scratch dY B (and X A^T when recomputing) per Linear',
  lmChunk: 'LM-head chunks of the step (train-acts.ts trainChunkRows): H rows [chunkRows, C], logits/dlogits [chunkRows, V], dH rows',
  stepTables: 'TrainStep tables: RoPE cos/sin forward + backward [min(maxPositions, maxRows), HS], attention backward (LSE, D) [SHARE_MAX_TOKENS maxRows, NH, 2]',
  scores: 'attention backward scratch (thread variant, grown to the largest pass): dQ partials [ceil(T / 16), M, NH, HS] f32 at HS 8, P/dS [n, NH, T^2, 2] at HS 16, 16 x 16 tile planes [n, NH, 2, T, T] f32 at HS 32-128',
  lpB: 'log-probs backward placeholders [1, C] + [1, V]',
  merged: 'LoRA merged into f32 copies of the adapted weights for a training call (TrainStep.merge)',
  valueHead: 'PPO value head w [C] + b [1] and their gradients',
  frozenRef: 'KL reference: frozen copy of the trainable tensors (full mode with beta > 0, or model.adapter)',
  csr: 'embedding backward CSR (full mode)',
  later: 'at other moments: buffers of other sizes kept by the pool, update uniforms',
  ckpt: 'checkpoint / export readback staging',
  loadPeak: 'load peak above the step: the f32 copy of the weight being quantized',
} as const;

/** What one LinearBackward keeps between steps (grown as needed). */
interface BwdScratch {
  dyb: SimBuffer | null;
  dybParts: SimBuffer | null;
  xa: SimBuffer | null;
}

/**
 * A training run's GPU memory before it exists: GpuModel.load (no adapter), Trainer.create (LoRA
 * params + grads or full-mode grads, GpuModel.useLora, TrainStep, AdamW), then two SFT updates of
 * B sequences of T tokens split into micro-batches and passes of at most maxRows rows, replayed on
 * the dry-run pool in the engine's order (train-step.ts, train-acts.ts, the kernels' scratch,
 * one uniform buffer per dispatch held until the pass's readback). Total = the pool's peak, as
 * rt.memory().peak measures it (tests/unit/train/sft-plan.test.ts). The rows show the step's busiest
 * moment (the first pass's readback); what the pool allocates after it is one more row.
 */
export function planTraining(cfg: ModelConfig, o: TrainingPlanOptions): MemoryPlan {
  const d = dims(cfg);
  const B = o.batchSize, T = o.seqLen;
  const modelChunkRows = o.chunkRows ?? LOGPROB_CHUNK_ROWS, maxRows = o.maxRows ?? 512, mb = o.microBatch ?? B;
  const chunkRows = trainChunkRows(cfg.vocabSize, modelChunkRows, maxRows);
  const updates = o.updates ?? [Array<number>(B).fill(T), Array<number>(B).fill(T)];
  if (o.mode === 'full' && (o.quant !== 'none' || o.quantEmbeddings)) throw new Error('planTraining: full fine-tuning trains f32 weights; use quant "none" without quantEmbeddings (NF4 is for the frozen base of LoRA)');
  if (o.mode === 'lora' && !o.lora) throw new Error('planTraining: LoRA mode needs lora {rank, targets}');
  if (!(Number.isInteger(B) && B > 0 && Number.isInteger(mb) && mb > 0)) throw new Error(`planTraining: batchSize ${B} and microBatch ${mb} must be positive integers`);
  for (const t of [T, ...updates.flat()]) {
    if (!(Number.isInteger(t) && t >= 1 && t <= maxRows && t <= cfg.maxPositions)) {
      throw new Error(`planTraining: a sequence of ${t} tokens; lengths must be in [1, min(maxRows ${maxRows}, max_position_embeddings ${cfg.maxPositions})]`);
    }
  }
  const lora = o.mode === 'lora' ? o.lora! : null;
  const full = o.mode === 'full';
  const sim = new PoolSim();
  simulateUpload(sim, cfg, o.quant, o.quantEmbeddings);
  const weightsBytes = sim.allocated;
  const modelDummies = simulateModelLoad(sim, cfg, null, modelChunkRows);
  const loadPeak = sim.peak;
  // Until the first submit (the first pass's readback): AdamW's moment fills.
  const frame = new Frame(sim);

  // Trainer.create 1: the trainable tensors (float counts, in the optimizer's order).
  const tensors: number[] = [];
  const grad = (floats: number) => {
    sim.acquire(floats * 4, 'storage', TROW.grads, 'f32; += by the backward, zeroed by AdamW');
    tensors.push(floats);
  };
  if (lora) {
    for (let l = 0; l < d.L; l++) {
      for (const g of GROUP_ORDER) {
        const lg = loraGroup(cfg, lora, g);
        if (!lg) continue;
        const a = lg.S * lora.rank * lg.K, b = lg.NW * lora.rank;
        sim.acquire(a * 4, 'storage', ROW.lora, NOTES[ROW.lora]);
        sim.acquire(b * 4, 'storage', ROW.lora);
        grad(a);
        grad(b);
      }
    }
  } else {
    grad(d.V * d.C);
    if (!cfg.tieWordEmbeddings) grad(d.V * d.C);
    for (let l = 0; l < d.L; l++) {
      grad(d.C);
      grad(d.C);
      grad(d.F * d.C);
      if (cfg.attentionBias) grad(d.F);
      grad(d.C * d.NQ);
      grad(2 * d.I * d.C);
      grad(d.C * d.I);
    }
    grad(d.C);
  }
  // Trainer.create 1b: PPO's value head (ValueHeadParams.init: w, b, dw, db), trained by the same AdamW.
  if (o.valueHead) {
    sim.acquire(d.C * 4, 'storage', TROW.valueHead, 'f32; the gradients += by the head\'s backward');
    sim.acquire(4, 'storage', TROW.valueHead);
    sim.acquire(d.C * 4, 'storage', TROW.valueHead);
    sim.acquire(4, 'storage', TROW.valueHead);
    tensors.push(d.C, 1);
  }
  // Trainer.create 2: TrainStep (LoRA: useLora re-creates the model's Linears), kernels' buffers.
  if (lora) {
    for (const row of modelDummies) {
      for (const old of row) {
        sim.acquire(16, 'storage', ROW.dummy);
        sim.release(old);
      }
    }
  }
  for (let l = 0; l < d.L; l++) for (let g = 0; g < 2 * GROUP_ORDER.length; g++) sim.acquire(16, 'storage', ROW.dummy);
  const Tmax = Math.min(cfg.maxPositions, maxRows);
  sim.acquire(Tmax * d.HS * 4, 'storage', TROW.stepTables);
  sim.acquire(Tmax * d.HS * 4, 'storage', TROW.stepTables);
  sim.acquire(SHARE_MAX_TOKENS * maxRows * d.NH * 8, 'storage', TROW.stepTables);   // a pass's token rows: SHARE_MAX_TOKENS x maxRows with shared rows
  sim.acquire(16, 'storage', ROW.dummy); // lm_head LinearBackward
  sim.acquire(d.C * 4, 'storage', TROW.lpB);
  sim.acquire(d.V * 4, 'storage', TROW.lpB);
  // Trainer.create 3: AdamW moments, partials, stats; the moments are zero-filled (2 dispatches each).
  for (const n of tensors) {
    sim.acquire(n * 4, 'storage', TROW.adam, `f32, 2 x ${tensors.length} tensors`);
    sim.acquire(n * 4, 'storage', TROW.adam);
  }
  const normChunk = o.gradNormChunk ?? 256;
  sim.acquire(Math.max(16, tensors.reduce((s, n) => s + Math.ceil(n / normChunk), 0) * 4), 'storage', TROW.adamScratch);
  sim.acquire(16, 'storage', TROW.adamScratch);
  for (let i = 0; i < 2 * tensors.length; i++) frame.dispatch(16);
  // rl/reference-policy.ts frozenReference: a copy of each trainable tensor (not the value head), then a submit.
  if (o.frozenReference) {
    const trained = o.valueHead ? tensors.slice(0, -2) : tensors;
    for (const n of trained) sim.acquire(n * 4, 'storage', TROW.frozenRef, `f32, ${trained.length} tensors`);
    frame.submit();
  }

  // State the step keeps between passes.
  let acts: { rows: number; kept: number; bufs: SimBuffer[] } | null = null;
  let rstd: SimBuffer | null = null;
  let scores: SimBuffer | null = null;
  const scratch: Record<Group, BwdScratch>[] = Array.from({ length: d.L }, () => ({
    qkv: { dyb: null, dybParts: null, xa: null }, o: { dyb: null, dybParts: null, xa: null },
    gateUp: { dyb: null, dybParts: null, xa: null }, down: { dyb: null, dybParts: null, xa: null },
  }));
  const grow = (cur: SimBuffer | null, bytes: number, row: string): SimBuffer => {
    if (cur && cur.size >= bytes) return cur;
    if (cur) sim.release(cur);
    return sim.acquire(Math.max(16, bytes), 'storage', row);
  };
  const kept = o.recompute ? 1 : d.L;
  const xaWidth = (g: Group) => {
    const lg = loraGroup(cfg, lora, g);
    return lg && lora ? lg.S * lora.rank : 0;
  };
  let busiest: { rows: Map<string, number>; allocated: number; inUse: number } | null = null;

  /** allocTrainActs, in its order. */
  const layerSizes = layerRowSizes(cfg), stepSizes = stepRowSizes(cfg);
  const allocActs = (rows: number) => {
    const bufs: SimBuffer[] = [];
    const s = (floats: number, row: string, n = rows) => bufs.push(sim.acquire(Math.max(16, n * floats * 4), 'storage', row));
    const saved = `${o.recompute ? 'recompute: one layer' : `every layer (${d.L})`}: h, q, o, LSE, x_mid, h2, gate|up, act${lora ? ', X A^T per LoRA group' : ''} [rows, ...]`;
    sim.notes.set(TROW.saved, saved);
    for (let l = 0; l < kept; l++) {
      for (const g of GROUP_ORDER) if (xaWidth(g) > 0) s(xaWidth(g), TROW.saved);
      for (const k of LAYER_ACTS) s(layerSizes[k], TROW.saved);
    }
    for (let l = 0; l <= d.L; l++) s(d.C, TROW.resid);
    s(stepSizes.hf, TROW.work);
    s(stepSizes.qkv, TROW.work);
    for (const w of [stepSizes.dRes, stepSizes.dN, stepSizes.dAct, stepSizes.dGU, stepSizes.dO, stepSizes.dQ, stepSizes.dQKV]) s(w, TROW.bwd);
    s(d.C, TROW.lmChunk, chunkRows);
    s(d.V, TROW.lmChunk, chunkRows);
    s(d.C, TROW.lmChunk, chunkRows);
    return bufs;
  };

  const linearFwd = (g: Group) => {
    if (xaWidth(g) > 0) frame.dispatch(48);
    frame.dispatch(48);
  };
  const layerFwd = (withDown: boolean) => {
    frame.dispatch(16);
    linearFwd('qkv');
    frame.dispatch(32);
    frame.dispatch(32);
    linearFwd('o');
    frame.dispatch(16);
    linearFwd('gateUp');
    frame.dispatch(16);
    if (withDown) linearFwd('down');
  };
  // TrainStep.mergeAdapter: a training call of LoRA over f32 weights first merges each adapted
  // linear into a pooled copy (W + scale B A, one dispatch each), released after its passes.
  const merges = lora && o.quant === 'none' ? Array.from({ length: d.L }, () => GROUP_ORDER.flatMap((g) => {
    const lg = loraGroup(cfg, lora, g);
    return lg ? [lg.NW * lg.K * 4] : [];
  })).flat() : [];
  const mergeBytes = merges.reduce((a, b) => a + b, 0) <= MERGE_MAX_BYTES ? merges : [];
  const linearBwd = (l: number, g: Group, M: number, xaKept: boolean) => {
    const lg = loraGroup(cfg, lora, g);
    if (lg && lora) {
      const SR = lg.S * lora.rank;
      const s = scratch[l][g];
      s.dyb = grow(s.dyb, M * SR * 4, TROW.loraBwd);
      const { parts: P, dybDispatches, dbDispatches } = loraBackwardLayout(o.backward ?? 'rb16', lora.rank, lg.NW, lg.starts, M);
      if (P > 1) s.dybParts = grow(s.dybParts, P * M * SR * 4, TROW.loraBwd);
      for (let i = 0; i < dybDispatches; i++) frame.dispatch(64);
      if (P > 1) frame.dispatch(64); // sum_split
      if (!xaKept) {
        s.xa = grow(s.xa, M * SR * 4, TROW.loraBwd);
        frame.dispatch(48);
      }
      for (let i = 0; i < dbDispatches; i++) frame.dispatch(64);
      frame.dispatch(64); // dA
      frame.dispatch(64); // dX
      if (!mergeBytes.length) frame.dispatch(64); // dX += dY B A (merged weights: in the dX above)
    } else {
      frame.dispatch(64);
    }
    if (full) {
      frame.dispatch(64);
      if (g === 'qkv' && cfg.attentionBias) frame.dispatch(64);
    }
  };
  const normBwd = (M: number) => {
    rstd = grow(rstd, M * 4, TROW.bwd);
    frame.dispatch(16);
    if (full) frame.dispatch(16);
  };

  /** TrainStep.pass for sequences of these lengths, a pass of a batch of batchRows rows. */
  const pass = (lens: number[], batchRows: number) => {
    const n = lens.length, M = lens.reduce((a, b) => a + b, 0), kvBytes = n * d.KVH * Math.max(...lens) * d.HS * 4;
    const cache: SimBuffer[] = [];
    const retired: SimBuffer[] = [];
    const shape = { variant: o.attention ?? 'thread', HS: d.HS, NH: d.NH, B: n, Tmax: Math.max(...lens), M, batchRows } as const;
    const psBytes = attentionScratchBytes(shape);
    for (let l = 0; l < kept; l++) {
      cache.push(sim.acquire(kvBytes, 'storage', TROW.kv, o.recompute ? 'one layer (recomputed with it)' : 'every layer'));
      cache.push(sim.acquire(kvBytes, 'storage', TROW.kv));
    }
    // TrainStep.begin: one score plane per kept layer where the pass keeps them.
    const planeBytes = keptScoresBytes({ ...shape, layers: kept });
    const scorePlanes = planeBytes > 0 ? Array.from({ length: kept }, () => sim.acquire(planeBytes, 'storage', TROW.keptScores, o.recompute ? 'one layer (written by its recomputed forward)' : 'every layer')) : [];
    const owned = [M * 4, 2 * M * 4, M * 4, M * 4, M * 4].map((b) => sim.acquire(b, 'storage', TROW.rows));
    // Trainer.sftStep passes its masks as TrainBatch.lossRows: the LM head runs on those rows
    // (their index, its inverse, targets, log-probs, entropies). The plan takes all-ones masks:
    // every row but each sequence's last.
    const nl = M - n;
    owned.push(...[nl * 4, M * 4, nl * 4, Math.max(16, nl * 4), Math.max(16, nl * 4)].map((b) => sim.acquire(b, 'storage', TROW.rows)));
    if (!(acts && acts.rows >= M && acts.kept === kept)) {
      const rows = Math.min(maxRows, Math.max(M, acts && acts.kept === kept ? acts.rows * 2 : 8));
      if (acts) sim.release(...acts.bufs);
      acts = { rows, kept, bufs: allocActs(rows) };
    }
    frame.dispatch(16); // embedding
    for (let l = 0; l < d.L; l++) layerFwd(true);
    frame.dispatch(16); // final norm
    owned.push(sim.acquire(M * 4, 'storage', TROW.rows));
    owned.push(sim.acquire(kvBytes, 'storage', TROW.bwd), sim.acquire(kvBytes, 'storage', TROW.bwd));
    owned.push(sim.acquire(2 * n * 4, 'storage', TROW.rows));
    owned.push(sim.acquire(Math.max(16, nl * 4), 'storage', TROW.rows), sim.acquire(Math.max(16, nl * d.C * 4), 'storage', TROW.bwd));   // the loss rows' dlogp, dH
    frame.dispatch(16); // dlogp of the loss rows
    for (let r0 = 0; r0 < nl; r0 += chunkRows) {
      frame.dispatch(16); // the chunk's loss rows of hf
      frame.dispatch(48); // LM head
      frame.dispatch(16); // log-probs
      frame.dispatch(32); // dlogits
      frame.dispatch(64); // dH
      if (full) frame.dispatch(64); // dW_lm
    }
    for (let i = 0; i < 3; i++) frame.dispatch(16); // dH, log-probs and entropies spread back to every row
    normBwd(M);
    for (let l = d.L - 1; l >= 0; l--) {
      if (o.recompute) layerFwd(false);
      linearBwd(l, 'down', M, !o.recompute);
      frame.dispatch(16); // SwiGLU backward
      linearBwd(l, 'gateUp', M, true);
      normBwd(M);
      linearBwd(l, 'o', M, true);
      // AttentionBackward.scoreScratch: grown at the pass's first layer, the old one retired at submit.
      if (psBytes > 0 && !(scores && scores.size >= psBytes)) {
        if (scores) retired.push(scores);
        scores = sim.acquire(psBytes, 'storage', TROW.scores);
      }
      for (let i = 0; i < attentionBackwardDispatches(shape) + 1; i++) frame.dispatch(32); // attention + RoPE backward
      linearBwd(l, 'qkv', M, true);
      normBwd(M);
    }
    let csr: SimBuffer | null = null;
    if (full) {
      // ids distinct in the pass: at most min(M, V) (the plan takes the most).
      const U = Math.min(M, d.V);
      csr = sim.acquire((2 * U + 1 + M) * 4, 'storage', TROW.csr, 'id, offset per distinct id + row list (u32)');
      frame.dispatch(16);
    }
    // readResult: logp then entropy through one staging buffer.
    const staging = sim.acquire(M * 4, 'readback', ROW.staging);
    if (!busiest || sim.allocated - sim.freeBytes > busiest.inUse) busiest = { rows: sim.rowsNow(), allocated: sim.allocated, inUse: sim.allocated - sim.freeBytes };
    frame.submit();
    sim.release(...retired);
    sim.release(staging);
    sim.release(sim.acquire(M * 4, 'readback', ROW.staging));
    if (csr) sim.release(csr);
    sim.release(...owned);
    sim.release(...cache.filter((_, i) => i % 2 === 0), ...cache.filter((_, i) => i % 2 === 1));
    sim.release(...scorePlanes);
  };

  let done = 0;
  for (const lens of updates) {
    // Trainer.sftStep: micro-batches of mb sequences; TrainStep.run: passes of whole sequences <= maxRows rows.
    for (let i = 0; i < lens.length; i += mb) {
      const micro = lens.slice(i, i + mb);
      const merged = mergeBytes.map((b) => {
        const buf = sim.acquire(b, 'storage', TROW.merged);
        frame.dispatch(32);
        return buf;
      });
      let start = 0;
      const microRows = micro.reduce((a, b) => a + b, 0);
      while (start < micro.length) {
        let end = start, rows = 0;
        while (end < micro.length && rows + micro[end] <= maxRows) rows += micro[end++];
        pass(micro.slice(start, end), microRows);
        start = end;
      }
      sim.release(...merged);
    }
    // TrainOptimizer.update: grad norm, AdamW per tensor, one scalar readback.
    for (let i = 0; i < tensors.length; i++) frame.dispatch(16);
    frame.dispatch(16);
    for (let i = 0; i < tensors.length; i++) frame.dispatch(48);
    const staging = sim.acquire(4, 'readback', ROW.staging);
    frame.submit();
    sim.release(staging);
    if (o.trimAfterUpdate && sim.freeBytes > sim.allocated / 8) sim.trim();
    if (o.checkpointAfter?.includes(++done)) {
      // Trainer.state(): params, then m, then v, each read with every tensor in flight at once.
      for (let k = 0; k < 3; k++) {
        const bufs = tensors.map((n) => sim.acquire(n * 4, 'readback', TROW.ckpt, 'one per trained tensor, all in flight at once'));
        sim.release(...bufs);
      }
    }
  }
  sim.notes.set(ROW.uniform, 'one per dispatch, held until the pass\'s readback submits');
  const b = busiest as { rows: Map<string, number>; allocated: number; inUse: number } | null;
  const rows = [...(b?.rows ?? sim.rowsAtPeak())].map(([name, bytes]) => ({ name, bytes, note: sim.notes.get(name) ?? NOTES[name] ?? '' }));
  const extra = sim.peak - (b?.allocated ?? sim.peak);
  if (extra > 0 && loadPeak === sim.peak) rows.push({ name: TROW.loadPeak, bytes: extra, note: 'upload.ts quantizes each weight from an f32 copy; the largest one (often the embedding) sets the load peak' });
  else if (extra > 0) rows.push({ name: TROW.later, bytes: extra, note: 'the pool keeps them for the next step' });
  return { total: sim.peak, rows, roundingBytes: sim.rounding, weightsBytes, largestBuffer: { ...sim.largest } };
}

/** Human-readable plan: one row per line, largest first, then the total. */
export function formatPlan(plan: MemoryPlan): string {
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(2).padStart(9)} MiB`;
  const rows = [...plan.rows].sort((a, b) => b.bytes - a.bytes).map((r) => `${mb(r.bytes)}  ${r.name}${r.note ? ` (${r.note})` : ''}`);
  return [...rows, `${mb(plan.total)}  total (peak of the pool; 16-byte rounding ${plan.roundingBytes} B)`].join('\n');
}
