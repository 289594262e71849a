// Launcher for shaders/attention.wgsl: causal GQA attention of packed rows over the KV cache,
// O [M, NH*HS] from Q [M, NH, HS] and the (sequence, position) row table; prefill and decode
// alike; optionally also LSE [M, NH] and (training, tiledHeadSize) the scaled scores for the
// backward. CPU twin: src/reference/attention.ts.
// Tested by tests/unit/gpu/attention-forward.test.ts (LSE: attention-backward.test.ts).
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import type { KvCache } from '../kv-cache';
import { ShapeError } from '../errors';
import { getTuning } from '../tuning';
import { rowWorkgroupSize } from '../device';
import { flatGrid } from '../grid';

/** 'thread': one invocation per (row, head), no workgroup memory (CPU adapters such as
 * SwiftShader); 'wg': one workgroup per (row, head), keys split across it (real GPUs). */
export type AttentionVariant = 'thread' | 'wg';
export const ATTENTION_VARIANTS: AttentionVariant[] = ['thread', 'wg'];

/**
 * The variant to use on this adapter: a measured choice (tuning family 'attention') when one
 * was stored, else 'thread' on CPU adapters (SwiftShader, fallback) and 'wg' on real GPUs.
 */
export function defaultAttentionVariant(rt: GpuRuntime): AttentionVariant {
  const tuned = getTuning(rt.report, 'attention');
  if (tuned === 'thread' || tuned === 'wg') return tuned;
  return rt.report.isFallback || rt.report.architecture === 'swiftshader' ? 'thread' : 'wg';
}

export interface AttentionOptions {
  NH: number;
  KVH: number;
  HS: number;
  variant: AttentionVariant;
  /** Invocations per workgroup (default 64; 'wg' needs a power of two >= HS/4). The thread
   * variant's row-table forms default to rowWorkgroupSize (4 on CPU adapters). */
  wg?: number;
  /** Also write the per-(row, head) log-sum-exp LSE [M, NH] for the backward (default false). */
  lse?: boolean;
  /** Run two query heads per invocation where headPairs allows it (default true; false to time
   * or test the one-head form). */
  pairHeads?: boolean;
  /**
   * Query positions per invocation of the packed-training form (thread, lse, HS = 8 / 16 / 64): 16
   * (attn_train_hs{8,16}_lse16, each key block loaded once for sixteen queries; the default at
   * HS = 8) or 4 (attn_train_hs{8,16}_lse; the default at HS = 16, where the sixteen-position
   * kernel takes about 2.4 s of SwiftShader compile time at the first step against 0.45 s, and
   * saved only 0.01-0.03 s per default-agent GRPO step (docs/speed.md); the only form at HS = 64);
   * both give the row-table form's O and LSE bit for bit.
   */
  trainPositions?: 4 | 16;
  /**
   * Fewest rows of a call (of its batch: run's `batchRows`) that runs the sixteen-position
   * training form (default SIXTEEN_MIN_ROWS); a smaller one runs the four-position form (the same
   * O and LSE bit for bit).
   */
  sixteenMinRows?: number;
}

/**
 * Default fewest rows of a training forward that runs the sixteen-position form. It takes about
 * 1.1-1.2 s of SwiftShader compile time at heads of 8 (2.4 s at 16) at a run's first step and
 * saves a few milliseconds per layer on passes of hundreds of rows; smaller passes (short runs,
 * tests) run the four-position form, which compiles in 0.3-0.45 s. A run whose passes fill
 * maxRows (512 by default) uses sixteen, in every pass of a batch that large (TrainStep passes the
 * batch's rows), so a small last pass does not build the other form mid-run.
 */
export const SIXTEEN_MIN_ROWS = 256;

/**
 * Head sizes with named-register `_hs{HS}` forms of all three 'thread' training kernels: the
 * four-position training forward and the four-position dQ and dK/dV (HS = 64: generated,
 * scripts/gen-attention-hs64.ts). The backward picks its kernels by this list; the training
 * forward by TRAIN_REGISTER_HEAD_SIZES, which also holds 32 and 48.
 */
export const REGISTER_HEAD_SIZES = [8, 16, 64];

/**
 * Head sizes whose packed-training forward (thread, lse, slot table) keeps each query's head in
 * named registers, four positions per invocation (attn_train_hs{HS}_lse; 32, 64 and 128:
 * generated, scripts/gen-attention-hs64.ts), O and LSE bit for bit the row-table kernel's. Other
 * head sizes run the generic row-table kernel for training too.
 */
export const TRAIN_REGISTER_HEAD_SIZES = [8, 16, 32, 48, 64];

/**
 * Head sizes with named-register row-table forward forms (attn_thread_hs{HS}[_lse], the two-head
 * attn_thread_hs{HS}_h2) and the sixteen-position training forward. At HS = 64 the row-table
 * forward is the generic kernel: one query per invocation in named registers measured 1.3-1.5x
 * slower than its arrays (the training form gains from sharing each key block by four queries).
 */
export const ROW_REGISTER_HEAD_SIZES = [8, 16];

/**
 * The entry point of a 'thread' kernel for this head size: the head sizes in `sizes` have
 * `_hs{HS}` forms that keep the head in named registers (SwiftShader spills the generic forms'
 * private arrays to memory and reaches them lane by lane).
 */
export function threadEntry(base: string, HS: number, sizes: readonly number[] = REGISTER_HEAD_SIZES): string {
  return sizes.includes(HS) ? `${base}_hs${HS}` : base;
}

/**
 * Query positions per invocation of the packed-training forms at the register head sizes
 * (attn_train_hs{HS}_lse and attn_bwd_dq_thread_hs{HS}, which read the slot table), and key
 * positions per invocation of attn_bwd_dkv_thread_hs{HS}.
 */
export const TRAIN_POSITIONS_PER_INVOCATION = 4;

/**
 * Invocations per workgroup of the sixteen-position forms (attn_train_hs*_lse16,
 * attn_bwd_fused16_hs8): a 16 x 80 batch of 4 heads has only 320 of them, and a workgroup runs
 * on one CPU thread.
 */
export const SIXTEEN_POSITION_WORKGROUP = 16;

/**
 * Whether the row-table forward runs two query heads of one kv head per invocation
 * (attn_thread_hs{8,16}_h2: each key and value loaded once for both, O bit-identical to the
 * one-head form): the thread variant without LSE at the register head sizes, when NH / KVH is
 * even (agent-tiny 4 / 2, stories260K 8 / 4). Decode and inference prefill take this path.
 */
export function headPairs(o: AttentionOptions): boolean {
  return o.pairHeads !== false && o.variant === 'thread' && !o.lse && ROW_REGISTER_HEAD_SIZES.includes(o.HS) && (o.NH / o.KVH) % 2 === 0;
}

/** Largest head size the shader's register arrays hold (HS4_MAX * 4). */
export const ATTENTION_MAX_HS = 128;

/**
 * Two-head invocations a dispatch needs before the `_h2` form runs: below it (one decode row of a
 * 4-head model) one head per invocation keeps more SIMD lanes busy than pairing saves loads.
 */
export const PAIR_MIN_INVOCATIONS = 8;

/** Side of the tile backward's planes and the kept score plane: Tmax rounded up to 16 x 16 tiles. */
export function tileSide(Tmax: number): number {
  return 16 * Math.ceil(Tmax / 16);
}

/**
 * Whether the thread variant's backward at head size HS runs the 16 x 16 tile kernels by default
 * (and the training forward can keep its scores for them): multiples of 16 from 32 to
 * ATTENTION_MAX_HS. Qwen2.5-0.5B's heads (14 / 2 of 64) at 2 x 128
 * tokens: 48-49 ms with the kept-P/dS pair, 40-41 ms tiled; heads of 32 and 128 had only the
 * generic recomputing kernels (6-7x slower). At HS = 16 the tiles measured slower than the kept
 * pair (16.3-18.3 vs 11.6 ms at the default agent's 16 x 80): a head of 16 gives each tile's two
 * score loops four steps.
 */
export function tiledHeadSize(HS: number): boolean {
  return HS % 16 === 0 && HS >= 32 && HS <= ATTENTION_MAX_HS;
}

/** Bytes of the score plane [B, NH, TP, TP] f32 (TP = tileSide(Tmax)) a training forward keeps. */
export function scorePlaneBytes(B: number, NH: number, Tmax: number): number {
  return B * NH * tileSide(Tmax) ** 2 * 4;
}

/** A compiled row-table form: its pipeline and query heads per invocation. */
interface RowForm { pipeline: Kernel; heads: 1 | 2 }

/** A packed-training form: its pipeline, query positions per invocation and workgroup size. */
interface TrainForm { pipeline: Kernel; positions: 4 | 16; wg: number }

export class Attention {
  private readonly uniforms = new ArrayBuffer(32);
  private readonly u32 = new Uint32Array(this.uniforms);
  private readonly f32 = new Float32Array(this.uniforms);

  private constructor(
    private readonly rt: GpuRuntime,
    /** The row-table form with one head per invocation (every variant). */
    private readonly single: RowForm,
    /** attn_thread_hs{8,16}_h2 where headPairs allows it. */
    private readonly paired: RowForm | null,
    /** Invocations per workgroup of both row-table forms. */
    private readonly rowWg: number,
    /** attn_train_hs{8,16}_lse{16,} (thread, lse): packed training rows by the slot table, `positions` per invocation in workgroups of `wg`. */
    private readonly train: TrainForm | null,
    /** With `train` at sixteen positions: the four-position form, for calls of fewer than sixteenMinRows rows. */
    private readonly trainSmall: TrainForm | null,
    /**
     * The forward that also keeps the scaled scores (thread, lse, tiledHeadSize): at HS = 64
     * attn_train_hs64_lse_s (`train`'s four-position form, by the slot table), elsewhere
     * attn_thread_lse_s (the row-table form, in workgroups of rowWg).
     */
    private readonly scoresForm: { pipeline: Kernel; train: boolean } | null,
    readonly opts: Required<AttentionOptions>,
  ) {}

  /** Query positions per invocation of the last run's packed-training form (0: a row-table form ran). */
  lastTrainPositions = 0;

  /** Query heads per invocation of the row-table forward at M rows (2: the `_h2` form). */
  headsPerInvocation(M: number): 1 | 2 {
    return this.rowForm(M).heads;
  }

  private rowForm(M: number): RowForm {
    return this.paired && M * this.opts.NH / 2 >= PAIR_MIN_INVOCATIONS ? this.paired : this.single;
  }

  static async create(rt: GpuRuntime, opts: AttentionOptions): Promise<Attention> {
    const o: Required<AttentionOptions> = { wg: 64, lse: false, pairHeads: true, sixteenMinRows: SIXTEEN_MIN_ROWS, ...opts, trainPositions: opts.trainPositions ?? (opts.HS === 8 ? 16 : 4) };
    const { NH, KVH, HS, wg } = o;
    if (HS % 4 !== 0 || HS > ATTENTION_MAX_HS) throw new ShapeError('attention', `HS a multiple of 4 and <= ${ATTENTION_MAX_HS}`, `HS=${HS}`);
    if (KVH <= 0 || NH % KVH !== 0) throw new ShapeError('attention', 'NH a multiple of KVH', `NH=${NH}, KVH=${KVH}`);
    if (o.variant === 'wg' && ((wg & (wg - 1)) !== 0 || wg < HS / 4)) {
      throw new ShapeError('attention', `a workgroup size that is a power of two >= HS/4 = ${HS / 4}`, `wg=${wg}`);
    }
    // The thread variant's row-table forms on CPU adapters: one SIMD group per workgroup unless
    // a size was asked for, since a workgroup runs on one CPU thread and a decode step has a few
    // dozen invocations (at WG 64 a batch of 8 ran on one core).
    const rowWg = o.variant === 'thread' && opts.wg === undefined ? rowWorkgroupSize(rt.report) : wg;
    const entry = (o.variant === 'thread' ? threadEntry('attn_thread', HS, ROW_REGISTER_HEAD_SIZES) : 'attn_wg') + (o.lse ? '_lse' : '');
    const train = o.variant === 'thread' && o.lse && TRAIN_REGISTER_HEAD_SIZES.includes(HS);
    const positions = o.trainPositions;
    if (train && positions === 16 && !ROW_REGISTER_HEAD_SIZES.includes(HS)) {
      throw new ShapeError('attention', `trainPositions 4 at HS=${HS} (sixteen positions per invocation exist for HS ${ROW_REGISTER_HEAD_SIZES.join(', ')})`, 'trainPositions 16');
    }
    const trainWg = positions === 16 ? Math.min(wg, SIXTEEN_POSITION_WORKGROUP) : wg;
    // The tile backward's head sizes keep the scores: HS = 32, 64 and 128 in their four-position
    // training form, the other multiples of 16 in the row-table twin.
    const keepsScores = o.variant === 'thread' && o.lse && tiledHeadSize(HS) && (!train || positions === 4);
    // Kernels are built at their first dispatch: asking for both training forms compiles only those a run uses.
    const [single, paired, trainPipeline, fourPipeline, scoresPipeline] = await Promise.all([
      rt.kernel({ shader: 'attention', entry, overrides: { WG: rowWg, HS } }),
      headPairs(o) ? rt.kernel({ shader: 'attention', entry: `attn_thread_hs${HS}_h2`, overrides: { WG: rowWg, HS } }) : null,
      train ? rt.kernel({ shader: 'attention', entry: `attn_train_hs${HS}_lse${positions === 16 ? '16' : ''}`, overrides: { WG: trainWg, HS } }) : null,
      train && positions === 16 ? rt.kernel({ shader: 'attention', entry: `attn_train_hs${HS}_lse`, overrides: { WG: wg, HS } }) : null,
      keepsScores ? rt.kernel({ shader: 'attention', entry: train ? `attn_train_hs${HS}_lse_s` : 'attn_thread_lse_s', overrides: { WG: train ? wg : rowWg, HS } }) : null,
    ]);
    const trainForm = trainPipeline && { pipeline: trainPipeline, positions, wg: trainWg };
    const smallForm = fourPipeline && { pipeline: fourPipeline, positions: 4 as const, wg };
    const scoresForm = scoresPipeline && { pipeline: scoresPipeline, train };
    return new Attention(rt, { pipeline: single, heads: 1 }, paired && { pipeline: paired, heads: 2 }, rowWg, trainForm, smallForm, scoresForm, o);
  }

  /** Whether run() can keep the scores (a `scores` plane; thread variant, lse, tiledHeadSize). */
  get keepsScores(): boolean {
    return this.scoresForm !== null;
  }

  /**
   * Records O [M, NH*HS] = attention of the rows' queries over cache layer `layer`; with the
   * `lse` option also LSE [M, NH] (required then, refused otherwise). `seqs`: for packed
   * training rows (every slot's rows contiguous, positions 0..T-1), their slot table [B, 2]
   * (`sequenceTable`); the HS = 8 and 16 thread forms then take `trainPositions` positions per
   * invocation. `scores` (packed training rows, with `seqs`, where keepsScores): also the scaled
   * scores into that plane of scorePlaneBytes(B, NH, Tmax) for AttentionBackwardArgs.S (O and LSE
   * the same bit for bit). `batchRows`: the rows of the batch this call is a pass of (default M),
   * which sixteenMinRows is compared with.
   */
  run(Q: GPUBuffer, rows: GPUBuffer, cache: KvCache, layer: number, O: GPUBuffer, M: number, LSE?: GPUBuffer, seqs?: GPUBuffer, scores?: GPUBuffer, batchRows = M): void {
    const { NH, KVH, HS, variant, lse } = this.opts;
    const c = cache.cfg;
    if (c.KVH !== KVH || c.HS !== HS) throw new ShapeError('attention', `a cache with KVH=${KVH}, HS=${HS}`, `KVH=${c.KVH}, HS=${c.HS}`);
    if (!(layer >= 0 && layer < c.numLayers)) throw new ShapeError('attention', `layer in [0, ${c.numLayers})`, `${layer}`);
    const bytes = M * NH * HS * 4;
    if (Q.size < bytes) throw new ShapeError('attention', `Q of [${M}, ${NH}, ${HS}] f32 (${bytes} bytes)`, `${Q.size} bytes (${Q.label})`);
    if (rows.size < M * 8) throw new ShapeError('attention', `rows of [${M}, 2] u32 (${M * 8} bytes)`, `${rows.size} bytes (${rows.label})`);
    if (O.size < bytes) throw new ShapeError('attention', `O of [${M}, ${NH * HS}] f32 (${bytes} bytes)`, `${O.size} bytes (${O.label})`);
    if (lse && (!LSE || LSE.size < M * NH * 4)) throw new ShapeError('attention', `LSE of [${M}, ${NH}] f32 (${M * NH * 4} bytes)`, LSE ? `${LSE.size} bytes (${LSE.label})` : 'none');
    if (!lse && LSE) throw new ShapeError('attention', 'no LSE buffer (create with lse: true to write one)', `${LSE.label}`);
    if (seqs && seqs.size < c.B * 8) throw new ShapeError('attention', `seqs of [${c.B}, 2] u32 (${c.B * 8} bytes)`, `${seqs.size} bytes (${seqs.label})`);
    if (scores) {
      if (!this.scoresForm || !seqs) throw new ShapeError('attention', 'no scores plane (only the thread variant\'s lse forward of packed training rows, with a slot table, at head sizes that are multiples of 16 from 32 to 128 keeps them)', `${scores.label} at HS=${HS}${seqs ? '' : ' without a slot table'}`);
      const need = scorePlaneBytes(c.B, NH, c.Tmax);
      if (scores.size < need) throw new ShapeError('attention', `scores of [${c.B}, ${NH}, ${tileSide(c.Tmax)}, ${tileSide(c.Tmax)}] f32 (${need} bytes)`, `${scores.size} bytes (${scores.label})`);
    }
    if (M === 0) return;
    this.u32.set([M, NH, KVH, HS, c.Tmax, c.B]);
    this.f32[6] = 1 / Math.sqrt(HS);
    this.u32[7] = 0;
    const max = this.rt.device.limits.maxComputeWorkgroupsPerDimension;
    // With a score plane the score-keeping form runs: HS = 64's takes the four-position training
    // form's grid, the others the row table's (one head per invocation).
    const keep = scores ? this.scoresForm : null;
    const train = keep ? (keep.train ? this.train : null) : seqs && this.train ? (this.trainSmall && batchRows < this.opts.sixteenMinRows ? this.trainSmall : this.train) : null;
    this.lastTrainPositions = train ? train.positions : 0;
    const row = this.rowForm(M);
    const heads = keep ? 1 : row.heads;
    let wgs: { x: number; y: number };
    if (variant === 'wg') {
      if (M > max) throw new ShapeError('attention', `at most ${max} rows per dispatch`, `M=${M}`);
      wgs = { x: NH, y: M };
    } else {
      const invocations = train ? c.B * NH * Math.ceil(c.Tmax / train.positions) : M * NH / heads;
      wgs = flatGrid(invocations, train ? train.wg : this.rowWg, max);
    }
    const bufs = [Q, train && seqs ? seqs : rows, cache.k[layer], cache.v[layer], O];
    if (LSE) bufs.push(LSE);
    if (scores) bufs.push(scores);
    const pipeline = keep ? keep.pipeline : train ? train.pipeline : row.pipeline;
    this.rt.dispatch(pipeline, bufs, new Uint8Array(this.uniforms), wgs);
  }
}
