// GPU memory planner: what inference (GpuModel + DecodeSession) and a training step need, computed
// without allocating. It replays, on a dry-run pool (pool-sim.ts), the allocations the engine
// makes in order (weights f32 or NF4 codes + absmax per 64 as upload.ts makes them, with the f32
// copy each NF4 weight passes through; LoRA packed as lora-upload.ts; KV cache; activations;
// logits chunks; uniforms; staging), so pool reuse and 16-byte rounding are counted as the
// runtime counts them. The result is the pool's peak and the rows allocated at that moment.
// Tested by tests/unit/train-plan.test.ts (inference plans vs rt.memory().peak).
import { NF4_BLOCK } from '../gpu/kernels/nf4';
import type { QuantMode } from '../model/gpu/upload';
import { projShape, type ModelConfig, type Projection } from '../model/types';
import { PoolSim, POOL_FREE_ROW, type SimBuffer } from './pool-sim';

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
  /** GpuModelOptions.chunkRows (default 16). */
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

type Group = 'qkv' | 'o' | 'gateUp' | 'down';
const GROUPS: Record<Group, Projection[]> = { qkv: ['q', 'k', 'v'], o: ['o'], gateUp: ['gate', 'up'], down: ['down'] };
const GROUP_ORDER: Group[] = ['qkv', 'o', 'gateUp', 'down'];

/** Segments S, in features K and fused out NW of a group, or null when the adapter misses it. */
function loraGroup(cfg: ModelConfig, lora: LoraShape | null | undefined, g: Group): { S: number; K: number; NW: number } | null {
  if (!lora || !GROUPS[g].some((p) => lora.targets.includes(p))) return null;
  const projs = GROUPS[g];
  return { S: projs.length, K: projShape(cfg, projs[0])[1], NW: projs.reduce((n, p) => n + projShape(cfg, p)[0], 0) };
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

/** GpuModel.load after the weights: LoRA groups and Linear placeholders per layer, then the rest. */
function simulateModelLoad(sim: PoolSim, cfg: ModelConfig, lora: LoraShape | null | undefined, chunkRows: number): void {
  const d = dims(cfg);
  for (let i = 0; i < d.L; i++) {
    for (const g of GROUP_ORDER) {
      const lg = loraGroup(cfg, lora, g);
      if (lg && lora) {
        sim.acquire(lg.S * lora.rank * lg.K * 4, 'storage', ROW.lora, NOTES[ROW.lora]);
        sim.acquire(lg.NW * lora.rank * 4, 'storage', ROW.lora);
      }
      sim.acquire(16, 'storage', ROW.dummy);
    }
  }
  sim.acquire(cfg.maxPositions * d.HS * 4, 'storage', ROW.rope, NOTES[ROW.rope]);
  sim.acquire(16, 'storage', ROW.dummy); // lm_head Linear
  sim.acquire(chunkRows * d.C * 4, 'storage', ROW.logits);
  sim.acquire(chunkRows * d.V * 4, 'storage', ROW.logits);
}

function rowsOf(sim: PoolSim, weightsBytes: number): MemoryPlan {
  const rows = [...sim.rowsAtPeak()].map(([name, bytes]) => ({ name, bytes, note: sim.notes.get(name) ?? NOTES[name] ?? '' }));
  return { total: sim.peak, rows, roundingBytes: sim.rounding, weightsBytes };
}

/**
 * Inference: GpuModel.load (tune: false, or tuning already remembered) + a DecodeSession of B
 * slots x Tmax whose first step prefills stepRows rows over all B slots and samples B tokens.
 */
export function planInference(cfg: ModelConfig, o: InferencePlanOptions): MemoryPlan {
  const d = dims(cfg);
  const chunkRows = o.chunkRows ?? 16, maxRows = o.maxRows ?? 512;
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
  const rows = Math.min(maxRows, Math.max(M, 8));
  for (const n of [1, 2, d.C, d.C, d.F, d.NQ, d.NQ, d.I]) sim.acquire(rows * n * 4, 'storage', ROW.acts, 'ids, row table, x, h [rows, C], qkv [rows, F], q, o [rows, NH*HS], g [rows, I]; rows = max(M, 8)');
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
  /** B sequences of seqLen tokens per step: M = B * T rows. */
  batchSize: number;
  seqLen: number;
  /** Keep only each layer's input and recompute the rest layer by layer in the backward. */
  recompute: boolean;
  /** Rows of the log-prob chunks (default 16). */
  chunkRows?: number;
}

const TROW = {
  grads: 'gradients (same layout as the trained tensors)',
  adam: 'AdamW m and v',
  adamScratch: 'AdamW grad-norm partials + stats',
  saved: 'saved activations per layer',
  work: 'recomputed layer (one layer\'s activations)',
  kv: 'KV cache K and V [B, KVH, T, HS] kept for the backward',
  hidden: 'final residual x_L and normed H [M, C]',
  qkv: 'forward working buffer: qkv projection [M, F] before RoPE splits it',
  rows: 'per-row data: ids, row table, targets, logp, entropy, dlogp, dentropy',
  xa: 'LoRA X A^T and dY B scratch [M, 3R] (shared by all Linear layers)',
  bwd: 'backward scratch (one layer at a time)',
  bwdLogits: 'log-probs backward chunk: hidden [chunkRows, C] + dlogits [chunkRows, V]',
  ropeBwd: 'RoPE backward cos/sin table [T, HS/2, 2]',
  csr: 'embedding backward CSR (full mode)',
} as const;

/**
 * A training step (forward that saves activations, backward into LoRA A/B or all weights, AdamW)
 * before it exists: the rows list what the step must keep. Validate against the real step's
 * rt.memory().peak and adjust the rows it allocates differently.
 */
export function planTraining(cfg: ModelConfig, o: TrainingPlanOptions): MemoryPlan {
  const d = dims(cfg);
  const B = o.batchSize, T = o.seqLen, M = B * T;
  const chunkRows = o.chunkRows ?? 16;
  if (o.mode === 'full' && (o.quant !== 'none' || o.quantEmbeddings)) throw new Error('planTraining: full fine-tuning trains f32 weights; use quant "none" without quantEmbeddings (NF4 is for the frozen base of LoRA)');
  if (o.mode === 'lora' && !o.lora) throw new Error('planTraining: LoRA mode needs lora {rank, targets}');
  const lora = o.mode === 'lora' ? o.lora : null;
  const sim = new PoolSim();
  simulateUpload(sim, cfg, o.quant, o.quantEmbeddings);
  const weightsBytes = sim.allocated;
  simulateModelLoad(sim, cfg, lora, chunkRows);

  // Trainable tensors: LoRA packed groups, or every weight buffer (fused as upload.ts makes them).
  const trainable: number[] = [];
  if (lora) {
    for (let i = 0; i < d.L; i++) {
      for (const g of GROUP_ORDER) {
        const lg = loraGroup(cfg, lora, g);
        if (lg) trainable.push(lg.S * lora.rank * lg.K, lg.NW * lora.rank);
      }
    }
  } else {
    trainable.push(d.V * d.C);
    if (!cfg.tieWordEmbeddings) trainable.push(d.V * d.C);
    for (let i = 0; i < d.L; i++) trainable.push(d.C, d.C, d.F * d.C, d.C * d.NQ, 2 * d.I * d.C, d.C * d.I, ...(cfg.attentionBias ? [d.F] : []));
    trainable.push(d.C);
  }
  for (const n of trainable) sim.acquire(n * 4, 'storage', TROW.grads, `${trainable.length} tensors, f32; += by the backward, zeroed by AdamW`);
  for (const n of trainable) {
    sim.acquire(n * 4, 'storage', TROW.adam, 'f32, 2 per trained tensor (GpuAdamW.create)');
    sim.acquire(n * 4, 'storage', TROW.adam);
  }
  sim.acquire(Math.max(16, trainable.reduce((s, n) => s + Math.ceil(n / 2048), 0) * 4), 'storage', TROW.adamScratch);
  sim.acquire(16, 'storage', TROW.adamScratch);

  // Forward: what the backward reads, per layer (or only x per layer with recompute).
  const layerSet: [string, number][] = [
    ['x', d.C], ['h1', d.C], ['Q', d.NQ], ['O', d.NQ], ['LSE', d.NH], ['x_mid', d.C], ['h2', d.C], ['gate|up', 2 * d.I], ['G', d.I],
  ];
  const perLayer = layerSet.map(([n, w]) => `${n} [M, ${w}]`).join(', ');
  const kvBytes = B * d.KVH * T * d.HS * 4;
  for (let l = 0; l < d.L; l++) {
    if (o.recompute) {
      sim.acquire(M * d.C * 4, 'storage', TROW.saved, `recompute: only the layer input x [M, C] per layer (M = ${M})`);
    } else {
      for (const [, w] of layerSet) sim.acquire(M * w * 4, 'storage', TROW.saved, `per layer: ${perLayer} (M = ${M})`);
    }
    if (!o.recompute || l === 0) {
      sim.acquire(kvBytes, 'storage', TROW.kv, o.recompute ? 'one layer (recomputed with it)' : 'every layer');
      sim.acquire(kvBytes, 'storage', TROW.kv);
    }
  }
  if (o.recompute) for (const [, w] of layerSet.slice(1)) sim.acquire(M * w * 4, 'storage', TROW.work, perLayer.replace(/^x \[M, \d+\], /, ''));
  sim.acquire(M * d.F * 4, 'storage', TROW.qkv);
  sim.acquire(M * d.C * 4, 'storage', TROW.hidden);
  sim.acquire(M * d.C * 4, 'storage', TROW.hidden);
  for (const n of [1, 2, 1, 1, 1, 1, 1]) sim.acquire(M * n * 4, 'storage', TROW.rows);
  if (lora) {
    sim.acquire(M * 3 * lora.rank * 4, 'storage', TROW.xa, 'per-Linear scratch instead would cost L x (3+1+2+1) R x M x 4 B');
    sim.acquire(M * 3 * lora.rank * 4, 'storage', TROW.xa);
  }

  // Backward: one layer at a time.
  const bwd: [string, number][] = [['dx', M * d.C], ['dh', M * d.C], ['dO', M * d.NQ], ['dQ', M * d.NQ], ['dK', kvBytes / 4], ['dV', kvBytes / 4],
    ['dQKV', M * d.F], ['dG', M * d.I], ['dgate|dup', M * 2 * d.I], ['attention (LSE, D)', M * d.NH * 2], ['rmsnorm rstd', M]];
  for (const [, n] of bwd) sim.acquire(n * 4, 'storage', TROW.bwd, `${bwd.map(([k]) => k).join(', ')}; dgate|dup could overwrite gate|up in place`);
  sim.acquire(chunkRows * d.C * 4, 'storage', TROW.bwdLogits);
  sim.acquire(chunkRows * d.V * 4, 'storage', TROW.bwdLogits);
  sim.acquire(T * d.HS * 4, 'storage', TROW.ropeBwd);
  if (!lora) sim.acquire((3 * M + 1) * 4, 'storage', TROW.csr, 'at most 2U + 1 + M u32 (U distinct ids)');
  for (let i = 0; i < 4 * d.L + 1; i++) sim.acquire(16, 'storage', ROW.dummy); // LinearBackward placeholders

  // One encoder per step: a uniform per dispatch (estimate), scalar readbacks (loss, grad norm).
  const chunks = Math.ceil(M / chunkRows);
  const dispatches = d.L * ((o.recompute ? 2 : 1) * (lora ? 16 : 12) + 28) + 6 * chunks + 2 * trainable.length + 8;
  const frame = new Frame(sim);
  for (let i = 0; i < dispatches; i++) frame.dispatch(48);
  sim.notes.set(ROW.uniform, `estimate: ${dispatches} dispatches x 48 B`);
  sim.acquire(16, 'readback', ROW.staging);
  sim.acquire(16, 'readback', ROW.staging);
  frame.submit();
  return rowsOf(sim, weightsBytes);
}

/** Human-readable plan: one row per line, largest first, then the total. */
export function formatPlan(plan: MemoryPlan): string {
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(2).padStart(9)} MiB`;
  const rows = [...plan.rows].sort((a, b) => b.bytes - a.bytes).map((r) => `${mb(r.bytes)}  ${r.name}${r.note ? ` (${r.note})` : ''}`);
  return [...rows, `${mb(plan.total)}  total (peak of the pool; 16-byte rounding ${plan.roundingBytes} B)`].join('\n');
}
