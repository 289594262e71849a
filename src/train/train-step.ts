// The GPU training step (the spine of training): for a batch of whole sequences packed as rows,
// the forward that keeps what the backward needs (or only each layer's input, recomputing one
// layer at a time), the per-token log-probs/entropies through the chunked LM head, and the
// backward from per-token upstream gradients dlogp (and dentropy) to the trainable parameters:
// LoRA A/B over an f32 or NF4 frozen base, or every weight (full mode). Parameter gradients
// accumulate (+=) across calls (micro-batches); activation gradients are overwritten. Rows that
// sequences of a pass start with in common before their loss rows (a GRPO group's prompt) are
// computed once (prefix-share.ts: SharedRows below); the attention still sees every token row.
// CPU twin: src/reference/model_backward.ts. Tested by tests/unit/train/train-step-*.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import { KvCache } from '../gpu/kv-cache';
import { Linear, type LinearSpec } from '../gpu/kernels/linear';
import { LinearBackward } from '../gpu/kernels/linear-backward';
import { rememberedVariants } from '../gpu/kernels/linear-tune';
import { Embedding } from '../gpu/kernels/embedding';
import { EmbeddingBackward, type EmbeddingGradPlan } from '../gpu/kernels/embedding-backward';
import { RmsNorm } from '../gpu/kernels/rmsnorm';
import { RmsNormBackward } from '../gpu/kernels/rmsnorm-backward';
import { SwiGlu } from '../gpu/kernels/swiglu';
import { SwiGluBackward } from '../gpu/kernels/swiglu-backward';
import { QkvRope } from '../gpu/kernels/rope';
import { QkvRopeBackward } from '../gpu/kernels/rope-backward';
import { Attention, defaultAttentionVariant, tileSide } from '../gpu/kernels/attention';
import { AttentionBackward, sequenceTable, type AttentionBackwardForm } from '../gpu/kernels/attention-backward';
import { ChunkedLogprobsBackward } from '../gpu/kernels/logprobs-backward';
import { GatherRows } from '../gpu/kernels/rows';
import { KvShare, type KvSharePlan } from '../gpu/kernels/kv-share';
import { inverseRows } from '../reference/rows';
import { SHARE_MAX_TOKENS, passEnd, planPrefixShare, type PassCost, type PrefixShare } from './prefix-share';
import { LoraMerge } from '../gpu/kernels/lora-merge';
import type { GpuModel } from '../model/gpu/model';
import type { LinearGroup } from '../model/gpu/lora-upload';
import type { GpuLoraParams } from './lora-params';
import { GROUP_NAMES } from './lora-params';
import type { GpuFullParams } from './full-params';
import { allocTrainActs, layerRowSizes, releaseTrainActs, stepRowSizes, trainChunkRows, type LayerActs, type TrainActs } from './train-acts';

/** What the step trains: a LoRA adapter (base frozen, f32 or NF4) or every weight (f32 model). */
export type Trainable = { mode: 'lora'; params: GpuLoraParams } | { mode: 'full'; params: GpuFullParams };

export interface TrainStepOptions {
  /** Keep only each layer's input [M, C] and recompute the layer in the backward (default false). */
  recompute?: boolean;
  /** Most rows (tokens) per forward/backward pass; a batch is split into passes of whole sequences (default model.maxRows). */
  maxRows?: number;
  /** Rows per LM-head chunk of a pass (default trainChunkRows: 4 MiB of logits). */
  chunkRows?: number;
  /**
   * LoRA over f32 weights: a training call runs each adapted linear on W + scale B A merged at
   * its start (forward and dX one product each; X A^T and dY B still for dA / dB), when the copies
   * fit in MERGE_MAX_BYTES (default true). Log-prob passes keep the separate path.
   */
  merge?: boolean;
  /**
   * Rows that several sequences of a pass start with (a GRPO group's prompt) run once when that
   * saves enough of the pass (prefix-share.ts; needs lossRows and HS divisible by 4; a HiddenHook
   * sees the trunk's rows and maps its per-token rows through HiddenRows);
   * default true.
   */
  sharePrefixes?: boolean;
}

/**
 * Upstream gradients computed from the forward's log-probs (GRPO's ratio needs them): called once
 * per pass with the pass's sequences first..first+n-1, between the forward and the backward; it
 * may be async (GRPO reads its GPU-computed gradients back).
 */
export type DlogpFn = (logprobs: Float32Array[], entropy: Float32Array[], first: number) => DlogpResult | Promise<DlogpResult>;
export interface DlogpResult { dlogp: Float32Array[]; dentropy?: Float32Array[] | null }

/**
 * GPU-resident upstream gradients (GRPO): called once per pass between the forward and the
 * backward, it RECORDS kernels that read the pass's log-probs/entropies [M] on the GPU and write
 * dlogp / dentropy [M] (pass rows: each sequence's T_b rows, its last row 0) for the backward.
 * Nothing is read back: the pass's StepResult arrays are then empty.
 */
export interface GpuUpstream {
  kind: 'gpu';
  record(pass: UpstreamPass): { dentropy: boolean };
}
export interface UpstreamPass {
  /** Index of the pass's first sequence in the batch. */
  first: number;
  /** Tokens of each sequence of the pass (rows = tokens). */
  lens: number[];
  M: number;
  /** [M] f32 log p(ids[t+1] | ids[..t]) and entropies of the forward (inputs). */
  logp: GPUBuffer;
  entropy: GPUBuffer;
  /** [M] f32 outputs (=) the backward reads; dentropy only when record returns dentropy: true. */
  dlogp: GPUBuffer;
  dentropy: GPUBuffer;
  /** Hands buffers the recorded kernels read (uploads) to the pass: released after its submit. */
  own: (...bufs: GPUBuffer[]) => void;
}

function isGpuUpstream(d: TrainBatch['dlogp']): d is GpuUpstream {
  return typeof d === 'object' && d !== null && !Array.isArray(d) && (d as GpuUpstream).kind === 'gpu';
}

/**
 * The rows of a pass a HiddenHook sees. hf and dN hold the trunk's M computed rows; a head's
 * per-token outputs and gradients are laid out as the pass's token rows (every sequence's T_b
 * rows packed, sequences first..first+lens.length-1 of the call). Without shared rows the two
 * layouts are the same (`shared` false, the maps plain copies).
 */
export interface HiddenRows {
  M: number;
  tokens: number;
  lens: number[];
  first: number;
  shared: boolean;
  /** Records dst [tokens, W] = src [M, W] at each token row's trunk row (a shared row reads its root's: the same hidden state). */
  toTokens(src: GPUBuffer, W: number, dst: GPUBuffer): void;
  /**
   * Records dst [M, W] = src [tokens, W] at each trunk row's own token row. A shared row's copy
   * is dropped, so a head's gradient must be 0 off the batch's loss rows (those are never shared).
   */
  toTrunk(src: GPUBuffer, W: number, dst: GPUBuffer): void;
}

/**
 * A head on the final-norm hidden state hf [M, C] of each pass (PPO's value head): `forward`
 * right after the trunk's forward (before the DlogpFn), `backward` after the LM head wrote its
 * dH into dN [M, C] and before the final norm's backward; it adds (+=) its own dH into dN.
 */
export interface HiddenHook {
  forward(hf: GPUBuffer, rows: HiddenRows): void | Promise<void>;
  backward?(hf: GPUBuffer, dN: GPUBuffer, rows: HiddenRows): void;
}

export interface TrainBatch {
  /** B sequences of token ids (each at least 1 token), packed as rows in order. */
  seqs: number[][];
  /**
   * Per sequence [T_b - 1]: d(objective)/d logp of row t = log p(ids[t+1] | ids[..t]) (the shape
   * masked_ce returns); a DlogpFn; or null for a pure log-prob pass (no backward).
   */
  dlogp?: Float32Array[] | DlogpFn | GpuUpstream | null;
  /** Per sequence [T_b - 1]: d(objective)/d entropy of each row (entropy bonus), or null. */
  dentropy?: Float32Array[] | null;
  /** LoRA on (the policy, default) or off (the reference policy: log-prob pass only). */
  adapter?: boolean;
  /** Softmax temperature of the log-probs (default 1). */
  temperature?: number;
  /**
   * Per sequence [T_b - 1]: the rows the loss reads (nonzero), e.g. its loss mask. When given,
   * the LM head, the log-probs and their backward run on those rows only (GRPO: the completion
   * tokens, not the prompt or the tool output); the other rows' log-probs and entropies are 0
   * and their dlogp / dentropy are not read (the gradient is the full one when those are 0).
   */
  lossRows?: ArrayLike<number>[] | null;
  /** A head on the final hidden state (HiddenHook), e.g. PPO's value head. */
  hidden?: HiddenHook;
  /**
   * A log-prob pass (dlogp null) that stays on the GPU: each pass's log-probs [M] are copied
   * into this f32 buffer at the pass's first row (every sequence's T_b rows packed in order,
   * `packedRows`), nothing is read back and the result's arrays are empty.
   */
  logprobsTo?: GPUBuffer;
}

/** Rows of `seqs` packed one after another (T_b rows each): the layout of TrainBatch.logprobsTo. */
export function packedRows(seqs: number[][]): number {
  return seqs.reduce((n, s) => n + s.length, 0);
}

export interface StepResult {
  /** Per sequence [T_b - 1]: the forward's log p(ids[t+1] | ids[..t]) (empty with a GpuUpstream: nothing read back). */
  logprobs: Float32Array[];
  entropy: Float32Array[];
}

interface LayerOps {
  fwd: Record<LinearGroup, Linear>;
  bwd: Record<LinearGroup, LinearBackward>;
}

/**
 * The rows a pass's LM head runs on: all M rows (sel null: the pass's own targets, log-probs and
 * entropies), or the loss rows gathered from them with compact targets, log-probs and entropies
 * [n]: sel [n] the trunk row of each (the final hidden states' row), inv [M] each trunk row's
 * position or NO_ROW; rowSel / rowInv the same over the pass's token rows (the per-token
 * log-probs and upstream gradients), the same buffers unless rows are shared.
 */
interface HeadRows {
  n: number;
  sel: GPUBuffer | null;
  inv: GPUBuffer | null;
  rowSel: GPUBuffer | null;
  rowInv: GPUBuffer | null;
  targets: GPUBuffer;
  logp: GPUBuffer;
  entropy: GPUBuffer;
}

/**
 * A pass's shared rows on the GPU (prefix-share.ts): the attention runs on every token row (its
 * queries gathered from the trunk's, its output and log-sum-exp gathered back), the cache's
 * sharer slots copied from their roots and the roots' key / value gradients summed from their
 * sharers. A shared row's queries, output and log-sum-exp are its root row's (the same inputs
 * give the same values), so the backward gathers them again from the trunk's kept ones: nothing
 * per layer is kept at the token rows.
 */
interface SharedRows {
  /** Token rows (the attention's rows). */
  M: number;
  kv: KvSharePlan;
  /** [M, 2] (slot, position) of every token row. */
  table: GPUBuffer;
  /** [M] the trunk row each token row reads; [M] its own trunk row or NO_ROW; [trunk rows] the token row of each. */
  toTrunk: GPUBuffer;
  toOwn: GPUBuffer;
  toRows: GPUBuffer;
  /** Scratch at the token rows: rotated queries, attention output, log-sum-exp. */
  q: GPUBuffer;
  o: GPUBuffer;
  lse: GPUBuffer;
  /** Backward scratch at the token rows: dO, dQ. */
  dO: GPUBuffer;
  dQ: GPUBuffer;
}

/** One pass: a group of sequences that fits in maxRows, with its per-pass GPU buffers. */
interface Pass {
  /** Rows the trunk computes (token rows less the shared ones). */
  M: number;
  /** Token rows: every sequence's T_b rows packed (the per-token log-probs' and gradients' layout). */
  tokens: number;
  /** Rows shared between sequences, or null. */
  share: SharedRows | null;
  /** Rows of the whole batch (TrainStep.run's call): the attention kernels pick their form by it, so every pass of a batch runs the same one. */
  batchRows: number;
  B: number;
  ids: number[];
  lens: number[];
  cache: KvCache;
  layerOf: (l: number) => number;
  idsBuf: GPUBuffer;
  table: GPUBuffer;
  targets: GPUBuffer;
  logp: GPUBuffer;
  entropy: GPUBuffer;
  /**
   * The slot table [B, 2] (first row, length word) of the packed token rows (sequenceTable); with
   * shared rows each sharer's start, so the attention skips the query quads below it.
   */
  seqs: GPUBuffer;
  temperature: number;
  head: HeadRows;
  owned: GPUBuffer[];
  plans: EmbeddingGradPlan[];
  /**
   * The attention score planes the forward keeps for the tile backward, one per kept layer (by
   * layerOf; AttentionBackward.keptScoresBytes), or none. When recomputing, only the backward's
   * recomputed forward writes them.
   */
  scores: GPUBuffer[];
}

export class TrainStep {
  /** Recompute each layer's activations in the backward (switchable between calls). */
  recompute: boolean;
  /** Training calls run the adapted linears on merged weights (TrainStepOptions.merge; switchable between calls). */
  merge: boolean;
  /** Shared prefixes run once (TrainStepOptions.sharePrefixes; switchable between calls). */
  sharePrefixes: boolean;
  /** Token rows not computed by the trunk because another sequence's were read (benchmarks, tests). */
  rowsShared = 0;
  /** Passes run (benchmarks, tests: shared rows let a pass hold more sequences). */
  passes = 0;
  /** Token rows of every pass run (rowsShared of them not computed by the trunk). */
  tokenRows = 0;
  private acts: TrainActs | null = null;
  private merger: LoraMerge | null = null;

  private constructor(
    readonly rt: GpuRuntime,
    readonly model: GpuModel,
    readonly trainable: Trainable,
    readonly maxRows: number,
    private readonly headChunkRows: number | undefined,
    private readonly layers: LayerOps[],
    private readonly k: {
      embed: Embedding; embedB: EmbeddingBackward | null; norm: RmsNorm; normB: RmsNormBackward; swiglu: SwiGlu; swigluB: SwiGluBackward;
      rope: QkvRope; ropeB: QkvRopeBackward; attn: Attention; attnB: AttentionBackward; lmHeadB: LinearBackward; lpB: ChunkedLogprobsBackward;
      rows: GatherRows; kvShare: KvShare;
    },
    recompute: boolean,
    merge: boolean,
    sharePrefixes: boolean,
  ) {
    this.recompute = recompute;
    this.merge = merge;
    this.sharePrefixes = sharePrefixes;
  }

  /**
   * Builds the step for `model`. LoRA mode attaches the trainable adapter to the model
   * (GpuModel.useLora), so inference and rollouts read the weights being trained.
   */
  static async create(rt: GpuRuntime, model: GpuModel, trainable: Trainable, opts: TrainStepOptions = {}): Promise<TrainStep> {
    const cfg = model.cfg, w = model.weights;
    const C = cfg.hiddenSize, I = cfg.intermediateSize, NH = cfg.numHeads, KVH = cfg.numKvHeads, HS = cfg.headDim;
    const NQ = NH * HS, NKV = KVH * HS;
    const maxRows = opts.maxRows ?? model.maxRows;
    if (!(Number.isInteger(maxRows) && maxRows > 0)) throw new Error(`TrainStep: maxRows must be a positive integer, got ${maxRows}`);
    if (opts.chunkRows !== undefined && !(Number.isInteger(opts.chunkRows) && opts.chunkRows > 0)) throw new Error(`TrainStep: chunkRows must be a positive integer, got ${opts.chunkRows}`);
    const full = trainable.mode === 'full' ? trainable.params : null;
    if (full && model.hasLora) throw new Error('TrainStep: full mode trains every weight of a model without an adapter; detach it first (model.useLora(null))');
    if (trainable.mode === 'lora') {
      const p = trainable.params;
      if (p.cfg !== cfg && JSON.stringify(p.cfg) !== JSON.stringify(cfg)) throw new Error('TrainStep: the LoRA parameters were built for another model config');
      await model.useLora((l, g) => p.group(l, g));
    }
    const loraOf = (l: number, g: LinearGroup) => (trainable.mode === 'lora' ? trainable.params.group(l, g) : null);
    const layers: LayerOps[] = [];
    for (const [l, lw] of w.layers.entries()) {
      const specs: Record<LinearGroup, LinearSpec> = {
        qkv: { label: `layers.${l}.qkv`, K: C, N: NQ + 2 * NKV, weight: lw.qkv, bias: lw.qkvBias, lora: loraOf(l, 'qkv') },
        o: { label: `layers.${l}.o`, K: NQ, N: C, weight: lw.o, lora: loraOf(l, 'o'), accumulate: true },
        // No fused SwiGLU: the backward needs the gate|up pre-activations.
        gateUp: { label: `layers.${l}.gate_up`, K: C, N: 2 * I, weight: lw.gateUp, lora: loraOf(l, 'gateUp') },
        down: { label: `layers.${l}.down`, K: I, N: C, weight: lw.down, lora: loraOf(l, 'down'), accumulate: true },
      };
      const fwd = {} as Record<LinearGroup, Linear>, bwd = {} as Record<LinearGroup, LinearBackward>;
      for (const g of GROUP_NAMES) {
        const sp = specs[g];
        // The model's choices, gate|up's from its fused class: the same variant sums in the same
        // order, so the trainer's log-probs equal the model's bit for bit (sft-export.test.ts).
        fwd[g] = await Linear.create(rt, sp, rememberedVariants(rt, sp.weight.format, sp.K, sp.N, g === 'gateUp'));
        bwd[g] = await LinearBackward.create(rt, specs[g]);
      }
      layers.push({ fwd, bwd });
    }
    const Tmax = Math.min(cfg.maxPositions, maxRows);
    const variant = defaultAttentionVariant(rt);
    const k = {
      embed: await Embedding.create(rt, w.embed.format === 'f32' ? { format: 'f32', wte: w.embed.wte } : { format: 'nf4', q: w.embed.q }, cfg.vocabSize, C),
      embedB: full ? await EmbeddingBackward.create(rt, cfg.vocabSize, C) : null,
      norm: await RmsNorm.create(rt, C, cfg.rmsNormEps),
      normB: await RmsNormBackward.create(rt, C, cfg.rmsNormEps),
      swiglu: await SwiGlu.create(rt),
      swigluB: await SwiGluBackward.create(rt),
      rope: await QkvRope.create(rt, { NH, KVH, HS, theta: cfg.ropeTheta, Tmax }),
      ropeB: await QkvRopeBackward.create(rt, { NH, KVH, HS, theta: cfg.ropeTheta, Tmax }),
      attn: await Attention.create(rt, { NH, KVH, HS, variant, lse: true }),
      // Its (LSE, D) scratch holds a pass's token rows: more than maxRows when rows are shared.
      attnB: await AttentionBackward.create(rt, { NH, KVH, HS, variant, maxRows: SHARE_MAX_TOKENS * maxRows }),
      lmHeadB: await LinearBackward.create(rt, { label: 'lm_head', K: C, N: cfg.vocabSize, weight: w.lmHead }),
      lpB: await ChunkedLogprobsBackward.create(rt, { V: cfg.vocabSize, C, chunkRows: 1 }), // dlogitsInPlace only: no chunk scratch of its own
      rows: await GatherRows.create(rt),
      kvShare: await KvShare.create(rt),
    };
    return new TrainStep(rt, model, trainable, maxRows, opts.chunkRows, layers, k, opts.recompute ?? false, opts.merge ?? true, opts.sharePrefixes ?? true);
  }

  /**
   * Runs the batch: forward (log-probs and entropies returned), then, unless dlogp is null, the
   * backward, accumulating (+=) into the parameter gradients. Sequences are split into passes
   * of at most maxRows rows; each pass is one command buffer.
   */
  async run(batch: TrainBatch): Promise<StepResult> {
    const { seqs } = batch;
    const adapter = batch.adapter ?? true;
    const train = batch.dlogp !== null && batch.dlogp !== undefined;
    if (train && !adapter && this.trainable.mode === 'lora') throw new Error('TrainStep: the adapter is off (the reference policy); only a log-prob pass (dlogp null) is possible');
    for (const [i, s] of seqs.entries()) {
      if (s.length < 1) throw new Error(`TrainStep: sequence ${i} is empty`);
      if (s.length > this.maxRows) throw new Error(`TrainStep: sequence ${i} has ${s.length} tokens; the most one pass holds is maxRows = ${this.maxRows}`);
      if (s.length > this.model.cfg.maxPositions) throw new Error(`TrainStep: sequence ${i} has ${s.length} tokens, more than max_position_embeddings (${this.model.cfg.maxPositions})`);
    }
    if (batch.logprobsTo) {
      if (train) throw new Error('TrainStep: logprobsTo is for a log-prob pass (dlogp null)');
      const bytes = packedRows(seqs) * 4;
      if (batch.logprobsTo.size < bytes) throw new Error(`TrainStep: logprobsTo holds ${batch.logprobsTo.size} bytes (${batch.logprobsTo.label}); the batch's ${bytes / 4} rows need ${bytes}`);
    }
    if (Array.isArray(batch.dlogp)) this.checkRows('dlogp', batch.dlogp, seqs);
    if (batch.dentropy) this.checkRows('dentropy', batch.dentropy, seqs);
    if (batch.lossRows) this.checkRows('lossRows', batch.lossRows, seqs);
    const loraOn = adapter && this.trainable.mode === 'lora';
    for (const op of this.layers) for (const g of GROUP_NAMES) {
      op.fwd[g].loraEnabled = loraOn && Boolean(op.fwd[g].spec.lora);
      op.bwd[g].loraEnabled = op.fwd[g].loraEnabled;
    }
    const out: StepResult = { logprobs: [], entropy: [] };
    const merged = train && loraOn && this.merge ? await this.mergeAdapter() : [];
    try {
      let start = 0, row0 = 0;
      const batchRows = packedRows(seqs);
      // With shared rows a pass holds as many sequences as its computed rows allow.
      const share = this.sharePrefixes && this.model.cfg.headDim % 4 === 0 ? batch.lossRows ?? null : null;
      const cost = share ? this.passCost() : null;
      while (start < seqs.length) {
        const end = passEnd(seqs, share, start, this.maxRows, cost);
        this.passes++;
        const r = await this.pass(seqs.slice(start, end), start, batch, train, row0, batchRows, share !== null);
        const rows = packedRows(seqs.slice(start, end));
        row0 += rows;
        this.tokenRows += rows;
        out.logprobs.push(...r.logprobs);
        out.entropy.push(...r.entropy);
        start = end;
      }
    } finally {
      if (merged.length) {
        for (const op of this.layers) for (const g of GROUP_NAMES) { op.fwd[g].useMergedWeight(null); op.bwd[g].useMergedWeight(null); }
        this.rt.release(...merged);
      }
    }
    return out;
  }

  /**
   * Records W + scale B A of every adapted linear (LoraMerge) into pooled copies and hands them to
   * its forward and backward for this call (the adapter does not change within it); none when a
   * weight is NF4 or the copies would exceed MERGE_MAX_BYTES. Returns the copies to release.
   */
  private async mergeAdapter(): Promise<GPUBuffer[]> {
    const adapted = this.layers.flatMap((op) => GROUP_NAMES.filter((g) => op.fwd[g].spec.lora).map((g) => ({ fwd: op.fwd[g], bwd: op.bwd[g] })));
    if (!adapted.length) return [];
    this.merger ??= await LoraMerge.create(this.rt);
    const copies = this.merger.copies(adapted.map(({ fwd }) => fwd));
    if (!copies) return [];
    adapted.forEach(({ fwd, bwd }, i) => { fwd.useMergedWeight(copies[i]); bwd.useMergedWeight(copies[i]); });
    return copies;
  }

  /** Rows of the backward's LM-head chunks (train-acts.ts trainChunkRows, or TrainStepOptions.chunkRows). */
  get chunkRows(): number {
    return this.headChunkRows ?? trainChunkRows(this.model.cfg.vocabSize, this.model.logprobsOp.opts.chunkRows, this.maxRows);
  }

  /** The kernels the last layer's attention backward ran (tests and benchmarks: 'tiled-scores' when the pass kept the scores). */
  get attentionBackwardForm(): AttentionBackwardForm {
    return this.k.attnB.form;
  }

  /** Query positions per invocation of the last training attention forward (tests: 16 or 4 at heads of 8). */
  get attentionTrainPositions(): number {
    return this.k.attn.lastTrainPositions;
  }

  /** Bytes of the activation buffers currently held. */
  get activationBytes(): number {
    return this.acts ? this.acts.all.reduce((n, b) => n + b.size, 0) : 0;
  }

  dispose(): void {
    for (const op of this.layers) for (const g of GROUP_NAMES) { op.fwd[g].dispose(); op.bwd[g].dispose(); }
    const k = this.k;
    k.normB.dispose(); k.rope.destroy(); k.ropeB.destroy(); k.attnB.destroy(); k.lmHeadB.dispose(); k.lpB.destroy();
    if (this.acts) releaseTrainActs(this.rt, this.acts);
    this.acts = null;
  }

  private async pass(seqs: number[][], first: number, batch: TrainBatch, train: boolean, row0: number, batchRows: number, share: boolean): Promise<StepResult> {
    const rt = this.rt;
    const p = this.begin(seqs, batch.temperature ?? 1, batch.lossRows?.slice(first, first + seqs.length) ?? null, train, batchRows, share);
    const gpuUp = isGpuUpstream(batch.dlogp) ? batch.dlogp : null;
    try {
      const a = this.activations(p.M);
      rt.phase('forward');
      this.forward(p, a);
      const hidden = batch.hidden ? this.hiddenRows(p, first) : null;
      if (hidden) await batch.hidden?.forward(a.hf, hidden);
      // With dlogp known up front, the log-probs come from the backward's LM-head chunks (one
      // LM-head matmul fewer); a DlogpFn, a GpuUpstream or a log-prob pass needs them first.
      const early = !train || typeof batch.dlogp === 'function' || gpuUp !== null;
      let result: StepResult | null = null;
      // One LM-head chunk holding the whole pass: its logits stay in a.logits for the backward.
      const logitsKept = early && train && p.head.n <= this.chunkRows;
      if (early) {
        this.forwardLogprobs(p, a);
        if (gpuUp) result = { logprobs: [], entropy: [] };
        else if (batch.logprobsTo) {
          rt.copy(p.logp, 0, batch.logprobsTo, row0 * 4, p.tokens * 4);
          rt.phase(null);
          result = { logprobs: [], entropy: [] };
        } else {
          rt.phase(null);
          result = await this.readResult(p);
        }
      }
      if (!train) return result as StepResult;
      let dl: GPUBuffer, de: GPUBuffer | null;
      if (gpuUp) {
        rt.phase('loss');
        dl = rt.storage(p.tokens * 4, 'train dlogp');
        const deBuf = rt.storage(p.tokens * 4, 'train dentropy');
        p.owned.push(dl, deBuf);
        const r = gpuUp.record({ first, lens: p.lens, M: p.tokens, logp: p.logp, entropy: p.entropy, dlogp: dl, dentropy: deBuf, own: (...b) => { p.owned.push(...b); } });
        de = r.dentropy ? deBuf : null;
      } else {
        let dlogp = Array.isArray(batch.dlogp) ? batch.dlogp.slice(first, first + seqs.length) : null;
        let dentropy = batch.dentropy ? batch.dentropy.slice(first, first + seqs.length) : null;
        if (typeof batch.dlogp === 'function' && result) {
          const d = await batch.dlogp(result.logprobs, result.entropy, first);
          this.checkRows('dlogp (from the DlogpFn)', d.dlogp, seqs);
          if (d.dentropy) this.checkRows('dentropy (from the DlogpFn)', d.dentropy, seqs);
          dlogp = d.dlogp;
          dentropy = d.dentropy ?? dentropy;
        }
        if (!dlogp) throw new Error('TrainStep: no dlogp');
        dl = rt.upload(this.flatRows(dlogp, p), 'train dlogp');
        de = dentropy ? rt.upload(this.flatRows(dentropy, p), 'train dentropy') : null;
        p.owned.push(dl, ...(de ? [de] : []));
      }
      rt.phase('backward');
      const kvBytes = p.cache.layerBytes;
      const dK = rt.storage(kvBytes, 'train dK'), dV = rt.storage(kvBytes, 'train dV');
      p.owned.push(dK, dV);
      this.backward(p, a, dl, de, { dK, dV }, !early, logitsKept, hidden ? (dN) => batch.hidden?.backward?.(a.hf, dN, hidden) : null);
      rt.phase(null);
      return result ?? (await this.readResult(p));
    } finally {
      rt.submit();
      for (const plan of p.plans) plan.release();
      rt.release(...p.owned);
      p.cache.free();
      rt.release(...p.scores);
    }
  }

  private begin(seqs: number[][], temperature: number, lossRows: ArrayLike<number>[] | null, train: boolean, batchRows: number, mayShare: boolean): Pass {
    const rt = this.rt, cfg = this.model.cfg;
    const lens = seqs.map((s) => s.length);
    const kept = this.recompute ? 1 : cfg.numLayers, Tmax = Math.max(...lens);
    const cache = new KvCache(rt, { numLayers: kept, B: seqs.length, KVH: cfg.numKvHeads, HS: cfg.headDim, Tmax });
    const step = cache.append(lens);
    const tokens = step.M;
    const plan = mayShare && lossRows ? planPrefixShare(seqs, lossRows) : null;
    const M = plan ? plan.rows : tokens;
    if (M > this.maxRows) throw new Error(`TrainStep: a pass of ${M} computed rows exceeds maxRows ${this.maxRows} (pass packing and sharing disagree)`);
    // A pass that runs the backward keeps the attention scores where the forward can and they fit.
    const plane = train && this.k.attn.keepsScores ? this.k.attnB.keptScoresBytes(seqs.length, Tmax, tokens, kept) : 0;
    const side = tileSide(Tmax);
    const scores = plane > 0 ? Array.from({ length: kept }, (_, l) => rt.storage(plane, `train attention scores ${l} [${seqs.length}, ${cfg.numHeads}, ${side}, ${side}]`)) : [];
    const flat = seqs.flat();
    const ids = plan ? Array.from(plan.trunkToPass, (r) => flat[r]) : flat;
    const trunkTable = plan ? new Uint32Array(2 * M) : step.rows;
    if (plan) plan.trunkToPass.forEach((r, c) => { trunkTable[2 * c] = step.rows[2 * r]; trunkTable[2 * c + 1] = step.rows[2 * r + 1]; });
    const targets = new Uint32Array(tokens);
    let r = 0;
    for (const s of seqs) for (let t = 0; t < s.length; t++, r++) targets[r] = t + 1 < s.length ? s[t + 1] : 0;
    const owned = [
      rt.upload(Uint32Array.from(ids), 'train ids'), rt.upload(trunkTable, 'train row table'), rt.upload(targets, 'train targets'),
      rt.storage(tokens * 4, 'train logp'), rt.storage(tokens * 4, 'train entropy'), rt.upload(sequenceTable(step.rows, seqs.length, plan?.shared), 'train sequence table'),
    ];
    const [idsBuf, table, tBuf, logp, entropy, seqTable] = owned;
    const share = plan ? this.sharedRowBuffers(plan, step.rows, owned) : null;
    if (plan) this.rowsShared += tokens - M;
    const recompute = this.recompute;
    let head: HeadRows = { n: tokens, sel: null, inv: null, rowSel: null, rowInv: null, targets: tBuf, logp, entropy };
    if (lossRows) {
      const picked: number[] = [];
      let o = 0;
      lossRows.forEach((rows, b) => {
        for (let t = 0; t < rows.length; t++) if (rows[t] !== 0) picked.push(o + t);
        o += lens[b];
      });
      const n = picked.length, bytes = Math.max(16, n * 4);
      const rowSel = Uint32Array.from(picked);
      const bufs = [rt.upload(rowSel, 'train loss rows'), rt.upload(inverseRows(picked, tokens), 'train loss rows inverse'), rt.upload(rowSel.map((r) => targets[r]), 'train loss-row targets'),
        rt.storage(bytes, 'train loss-row logp'), rt.storage(bytes, 'train loss-row entropy')];
      owned.push(...bufs);
      head = { n, sel: bufs[0], inv: bufs[1], rowSel: bufs[0], rowInv: bufs[1], targets: bufs[2], logp: bufs[3], entropy: bufs[4] };
      if (plan) {
        // The loss rows are never shared: each has its own trunk row.
        const trunkSel = rowSel.map((r) => plan.passToOwn[r]);
        const hfBufs = [rt.upload(trunkSel, 'train loss rows (trunk)'), rt.upload(inverseRows(trunkSel, M), 'train loss rows inverse (trunk)')];
        owned.push(...hfBufs);
        head = { ...head, sel: hfBufs[0], inv: hfBufs[1] };
      }
    }
    return { M, tokens, share, batchRows, B: seqs.length, ids, lens, cache, layerOf: (l) => (recompute ? 0 : l), idsBuf, table, targets: tBuf, logp, entropy, seqs: seqTable, temperature, head, owned, plans: [], scores };
  }

  /**
   * A pass's memory in floats per computed row (the kept activations, the residuals, the
   * backward's scratch, X A^T) and per token row (the shared rows' attention buffers, the KV cache
   * and its gradients, per-token data), and the budget of an unshared pass of maxRows rows: a
   * pass that shares rows holds more sequences only within it (passEnd), so the memory plan's
   * figure holds.
   */
  private passCost(): PassCost {
    const cfg = this.model.cfg, kept = this.recompute ? 1 : cfg.numLayers;
    const NQ = cfg.numHeads * cfg.headDim, kv = 2 * cfg.numKvHeads * cfg.headDim;
    const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    const xa = GROUP_NAMES.reduce((n, g) => n + this.xaWidth(g), 0);
    const trunk = kept * (sum(layerRowSizes(cfg)) + xa) + (cfg.numLayers + 1) * cfg.hiddenSize + sum(stepRowSizes(cfg));
    const perToken = (kept + 1) * kv + 8;   // the cache (kept layers) and dK / dV; ids, tables, targets, log-probs, gradients
    return { trunk, token: perToken + 4 * NQ + cfg.numHeads, budget: this.maxRows * (trunk + perToken) };
  }

  /** The pass's rows as a HiddenHook sees them (HiddenRows). */
  private hiddenRows(p: Pass, first: number): HiddenRows {
    const rt = this.rt, rows = this.k.rows, sh = p.share;
    const copy = (n: number) => (src: GPUBuffer, W: number, dst: GPUBuffer) => rt.copy(src, 0, dst, 0, n * W * 4);
    return {
      M: p.M, tokens: p.tokens, lens: p.lens, first, shared: sh !== null,
      toTokens: sh ? (src, W, dst) => rows.run(src, sh.toTrunk, 0, p.tokens, W, dst, 'hidden head to token rows') : copy(p.tokens),
      toTrunk: sh ? (src, W, dst) => rows.run(src, sh.toRows, 0, p.M, W, dst, 'hidden head to trunk rows') : copy(p.M),
    };
  }

  /** The GPU side of a pass's shared rows (SharedRows), its buffers added to `owned`. */
  private sharedRowBuffers(plan: PrefixShare, rows: Uint32Array, owned: GPUBuffer[]): SharedRows {
    const rt = this.rt, cfg = this.model.cfg, tokens = plan.passToTrunk.length;
    const NQ = cfg.numHeads * cfg.headDim;
    const up = (a: Uint32Array, label: string) => { const b = rt.upload(a, `train shared rows: ${label}`); owned.push(b); return b; };
    const st = (floats: number, label: string) => { const b = rt.storage(Math.max(16, tokens * floats * 4), `train shared rows: ${label} [${tokens}, ${floats}]`); owned.push(b); return b; };
    return {
      M: tokens,
      kv: { table: up(plan.table, 'share table'), maxN: plan.maxShared },
      table: up(rows, 'row table'),
      toTrunk: up(plan.passToTrunk, 'token row -> trunk row'),
      toOwn: up(plan.passToOwn, 'token row -> own trunk row'),
      toRows: up(plan.trunkToPass, 'trunk row -> token row'),
      q: st(NQ, 'q'),
      o: st(NQ, 'attn out'),
      lse: st(cfg.numHeads, 'lse'),
      dO: st(NQ, 'd attn out'),
      dQ: st(NQ, 'd q'),
    };
  }

  /** Records hChunk [n, C] = the head rows r0..r0+n-1 of hf (a copy, or a gather of loss rows). */
  private loadChunk(p: Pass, a: TrainActs, r0: number, n: number): void {
    const C = this.model.cfg.hiddenSize;
    if (p.head.sel) this.k.rows.run(a.hf, p.head.sel, r0, n, C, a.hChunk, 'lm-head loss rows');
    else this.rt.copy(a.hf, r0 * C * 4, a.hChunk, 0, n * C * 4);
  }

  /** Records the pass's log-probs / entropies [M] from the head rows' (0 on the other rows). */
  private spreadLogprobs(p: Pass): void {
    const h = p.head;
    if (!h.rowInv) return;
    this.k.rows.run(h.logp, h.rowInv, 0, p.tokens, 1, p.logp, 'loss-row logp');
    this.k.rows.run(h.entropy, h.rowInv, 0, p.tokens, 1, p.entropy, 'loss-row entropy');
  }

  /**
   * Records the log-probs / entropies [M] of the forward's final hidden states through the LM
   * head in the training chunks (trainChunkRows: one chunk for small vocabularies, not the
   * model's 16-row decode chunks).
   */
  private forwardLogprobs(p: Pass, a: TrainActs): void {
    const chunkRows = this.chunkRows, h = p.head;
    for (let r0 = 0; r0 < h.n; r0 += chunkRows) {
      const n = Math.min(chunkRows, h.n - r0);
      this.loadChunk(p, a, r0, n);
      this.model.lmHeadFn(a.hChunk, n, a.logits);
      this.model.logprobsOp.reduce(a.logits, n, r0, h.targets, h.logp, h.entropy, p.temperature);
    }
    this.spreadLogprobs(p);
  }

  /** Records the forward: embedding, every layer (keeping activations unless recomputing), final norm. */
  private forward(p: Pass, a: TrainActs): void {
    const L = this.model.cfg.numLayers;
    this.k.embed.run(p.idsBuf, a.resid[0], p.M);
    for (let l = 0; l < L; l++) this.layerForward(l, p, a, a.layers[this.recompute ? 0 : l], a.resid[l + 1]);
    this.k.norm.run(a.resid[L], this.model.weights.finalNorm, a.hf, p.M);
  }

  /** Records layer l from its input resid[l]; writes its output into xOut unless null (recompute in the backward). */
  private layerForward(l: number, p: Pass, a: TrainActs, la: LayerActs, xOut: GPUBuffer | null): void {
    const { M } = p, C = this.model.cfg.hiddenSize, I = this.model.cfg.intermediateSize;
    const w = this.model.weights.layers[l], f = this.layers[l].fwd, k = this.k, cl = p.layerOf(l);
    const xIn = a.resid[l];
    k.norm.run(xIn, w.inputNorm, la.h, M);
    f.qkv.run(la.h, a.qkv, M, { xa: la.xa.qkv });
    k.rope.run(a.qkv, p.table, la.q, p.cache, cl, M);
    // The score plane: every forward when keeping all layers, the backward's (xOut null) when recomputing.
    const S = p.scores.length > 0 && (xOut === null || !this.recompute) ? p.scores[cl] : undefined;
    const sh = p.share;
    if (sh) {
      // Every token row's attention: the sharers' cached prefix from their roots, the queries
      // gathered from the trunk's rows, the output gathered back to them.
      const NQ = this.model.cfg.numHeads * this.model.cfg.headDim;
      k.kvShare.copy(p.cache.k[cl], p.cache.v[cl], sh.kv, p.cache.cfg);
      k.rows.run(la.q, sh.toTrunk, 0, sh.M, NQ, sh.q, 'shared rows q');
      k.attn.run(sh.q, sh.table, p.cache, cl, sh.o, sh.M, sh.lse, p.seqs, S, p.batchRows);
      k.rows.run(sh.o, sh.toRows, 0, M, NQ, la.o, 'shared rows attn out');
      k.rows.run(sh.lse, sh.toRows, 0, M, this.model.cfg.numHeads, la.lse, 'shared rows lse');
    } else k.attn.run(la.q, p.table, p.cache, cl, la.o, M, la.lse, p.seqs, S, p.batchRows);
    this.rt.copy(xIn, 0, la.xMid, 0, M * C * 4);
    f.o.run(la.o, la.xMid, M, { accumulate: true, xa: la.xa.o });
    k.norm.run(la.xMid, w.postAttnNorm, la.h2, M);
    f.gateUp.run(la.h2, la.gu, M, { xa: la.xa.gateUp });
    k.swiglu.run(la.gu, la.act, M, I);
    if (xOut) {
      this.rt.copy(la.xMid, 0, xOut, 0, M * C * 4);
      f.down.run(la.act, xOut, M, { accumulate: true, xa: la.xa.down });
    }
  }

  /**
   * Records the backward, from dlogp/dentropy to the parameter gradients (+=); with `logprobs`
   * also the forward's log-probs/entropies, from the same LM-head chunks. `logitsKept`: the pass
   * is one chunk whose logits (and hChunk) forwardLogprobs left in place: not recomputed.
   */
  private backward(p: Pass, a: TrainActs, dlogp: GPUBuffer, dentropy: GPUBuffer | null, kv: { dK: GPUBuffer; dV: GPUBuffer }, logprobs: boolean,
    logitsKept = false, addHidden: ((dN: GPUBuffer) => void) | null = null): void {
    const cfg = this.model.cfg, w = this.model.weights, k = this.k, rt = this.rt;
    const { M } = p, C = cfg.hiddenSize, I = cfg.intermediateSize, L = cfg.numLayers;
    const full = this.trainable.mode === 'full' ? this.trainable.params : null;
    const lora = this.trainable.mode === 'lora' ? this.trainable.params : null;
    // LM head on the head rows (every row, or the loss rows gathered), chunk by chunk (at most
    // [chunkRows, V] logits): logits, [log-probs], dlogits in place, dH rows into dN (the loss
    // rows' spread back, zeros elsewhere); full mode: dW_lm (the embedding when tied) +=.
    const dWlm = full ? { dW: full.lmHead ?? full.embed } : null;
    const chunkRows = this.chunkRows, h = p.head;
    let dlH = dlogp, deH = dentropy, dH = a.dN;
    if (h.sel) {
      const c = (src: GPUBuffer, label: string) => {
        const b = rt.storage(Math.max(16, h.n * 4), `train loss-row ${label}`);
        p.owned.push(b);
        k.rows.run(src, h.rowSel as GPUBuffer, 0, h.n, 1, b, `loss-row ${label}`);
        return b;
      };
      dlH = c(dlogp, 'dlogp');
      deH = dentropy ? c(dentropy, 'dentropy') : null;
      dH = rt.storage(Math.max(16, h.n * C * 4), 'train loss-row dH');
      p.owned.push(dH);
    }
    for (let r0 = 0; r0 < h.n; r0 += chunkRows) {
      const n = Math.min(chunkRows, h.n - r0);
      if (!logitsKept) {
        this.loadChunk(p, a, r0, n);
        this.model.lmHeadFn(a.hChunk, n, a.logits);
      }
      if (logprobs) this.model.logprobsOp.reduce(a.logits, n, r0, h.targets, h.logp, h.entropy, p.temperature);
      k.lpB.dlogitsInPlace(a.logits, n, r0, h.targets, dlH, deH, p.temperature);
      k.lmHeadB.run(a.logits, a.hChunk, n, { dX: a.dhChunk, full: dWlm });
      rt.copy(a.dhChunk, 0, dH, r0 * C * 4, n * C * 4);
    }
    if (h.inv) {
      k.rows.run(dH, h.inv, 0, M, C, a.dN, 'loss-row dH');
      if (logprobs) this.spreadLogprobs(p);
    }
    addHidden?.(a.dN);   // a head on hf (HiddenHook): dN += its dH
    k.normB.run(a.dN, a.resid[L], w.finalNorm, a.dRes, M, { dw: full?.finalNorm });
    for (let l = L - 1; l >= 0; l--) {
      let la = a.layers[l];
      if (this.recompute) {
        la = a.layers[0];
        this.layerForward(l, p, a, la, null);
      }
      const lw = w.layers[l], b = this.layers[l].bwd, fg = full?.layers[l], cl = p.layerOf(l);
      const lg = (g: LinearGroup) => lora?.grads(l, g) ?? null;
      // MLP block: x_out = xMid + down(silu(gate(h2)) * up(h2)), h2 = rmsnorm(xMid)
      b.down.run(a.dRes, la.act, M, { dX: a.dAct, lora: lg('down'), full: fg ? { dW: fg.down } : null, xa: this.recompute ? undefined : la.xa.down });
      k.swigluB.run(a.dAct, la.gu, a.dGU, M, I);
      b.gateUp.run(a.dGU, la.h2, M, { dX: a.dN, lora: lg('gateUp'), full: fg ? { dW: fg.gateUp } : null, xa: la.xa.gateUp });
      k.normB.run(a.dN, la.xMid, lw.postAttnNorm, a.dRes, M, { accumulate: true, dw: fg?.postAttnNorm });
      // attention block: xMid = xIn + o(attn(rope(q(h)), rope(k(h)), v(h))), h = rmsnorm(xIn)
      b.o.run(a.dRes, la.o, M, { dX: a.dO, lora: lg('o'), full: fg ? { dW: fg.o } : null, xa: la.xa.o });
      const S = p.scores.length > 0 ? { S: p.scores[cl] } : {}, sh = p.share;
      if (sh) {
        // On every token row, Q, O and LSE gathered from the trunk's (a shared row's copies other
        // than its own get dO = 0, so dQ = 0 there); the sharers' dK / dV on the shared positions
        // then summed into their roots'.
        const NQ = cfg.numHeads * cfg.headDim;
        k.rows.run(la.q, sh.toTrunk, 0, sh.M, NQ, sh.q, 'shared rows q');
        k.rows.run(la.o, sh.toTrunk, 0, sh.M, NQ, sh.o, 'shared rows attn out');
        k.rows.run(la.lse, sh.toTrunk, 0, sh.M, cfg.numHeads, sh.lse, 'shared rows lse');
        k.rows.run(a.dO, sh.toOwn, 0, sh.M, NQ, sh.dO, 'shared rows d attn out');
        k.attnB.run({ Q: sh.q, O: sh.o, dO: sh.dO, LSE: sh.lse, rows: sh.table, seqs: p.seqs, cache: p.cache, layer: cl, M: sh.M, batchRows: p.batchRows, dQ: sh.dQ, dK: kv.dK, dV: kv.dV, ...S });
        k.rows.run(sh.dQ, sh.toRows, 0, M, NQ, a.dQ, 'shared rows d q');
        k.kvShare.sum(kv.dK, kv.dV, sh.kv, p.cache.cfg);
      } else k.attnB.run({ Q: la.q, O: la.o, dO: a.dO, LSE: la.lse, rows: p.table, seqs: p.seqs, cache: p.cache, layer: cl, M, batchRows: p.batchRows, dQ: a.dQ, dK: kv.dK, dV: kv.dV, ...S });
      k.ropeB.run(a.dQ, p.table, kv.dK, kv.dV, p.cache.cfg, a.dQKV, M);
      b.qkv.run(a.dQKV, la.h, M, { dX: a.dN, lora: lg('qkv'), full: fg ? { dW: fg.qkv, dbias: fg.qkvBias } : null, xa: la.xa.qkv });
      k.normB.run(a.dN, a.resid[l], lw.inputNorm, a.dRes, M, { accumulate: true, dw: fg?.inputNorm });
    }
    if (full && k.embedB) {
      const plan = k.embedB.plan(p.ids);
      p.plans.push(plan);
      k.embedB.run(plan, a.dRes, full.embed);
    }
  }

  private activations(M: number): TrainActs {
    const kept = this.recompute ? 1 : this.model.cfg.numLayers;
    if (this.acts && this.acts.rows >= M && this.acts.layersKept === kept) return this.acts;
    const rows = Math.min(this.maxRows, Math.max(M, this.acts && this.acts.layersKept === kept ? this.acts.rows * 2 : 8));
    if (this.acts) releaseTrainActs(this.rt, this.acts);
    this.acts = allocTrainActs(this.rt, this.model.cfg, rows, kept, this.chunkRows, (g) => this.xaWidth(g));
    return this.acts;
  }

  /** Floats per row of LoRA group g's X A^T (S * R; 0 without LoRA on the group). */
  private xaWidth(g: LinearGroup): number {
    const lin = this.trainable.mode === 'lora' ? this.trainable.params.group(0, g) : null;
    return lin ? (1 + (lin.segmentStarts?.length ?? 0)) * lin.R : 0;
  }

  private async readResult(p: Pass): Promise<StepResult> {
    const lp = await this.rt.readF32(p.logp, p.tokens), ent = await this.rt.readF32(p.entropy, p.tokens);
    const res: StepResult = { logprobs: [], entropy: [] };
    let o = 0;
    for (const n of p.lens) {
      res.logprobs.push(lp.slice(o, o + n - 1));
      res.entropy.push(ent.slice(o, o + n - 1));
      o += n;
    }
    return res;
  }

  /** Per-sequence [T_b - 1] values as [M] rows (0 on each sequence's last row). */
  private flatRows(v: Float32Array[], p: Pass): Float32Array {
    const out = new Float32Array(p.tokens);
    let o = 0;
    p.lens.forEach((n, b) => {
      out.set(v[b], o);
      o += n;
    });
    return out;
  }

  private checkRows(what: string, v: ArrayLike<number>[], seqs: number[][]): void {
    if (v.length !== seqs.length) throw new Error(`TrainStep: ${what} has ${v.length} rows for ${seqs.length} sequences`);
    v.forEach((d, b) => {
      if (d.length !== seqs[b].length - 1) throw new Error(`TrainStep: ${what}[${b}] has ${d.length} values; expected [T-1] = [${seqs[b].length - 1}]`);
    });
  }
}
