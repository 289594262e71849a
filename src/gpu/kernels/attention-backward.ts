// Launcher for the attention backward in shaders/attention.wgsl (attn_bwd_*) and
// shaders/attention_tiles.wgsl (attn_bwd_tile_*): dQ and the cache gradients dK/dV of packed
// training sequences, deterministic. At HS = 8 (thread variant): stats, one fused kernel for dK,
// dV and per-key-group dQ partials, and their reduction (default); at multiples of 16 from 32
// (tiledHeadSize): stats, the 16 x 16 tile kernels (P and dS of each tile, then dQ, dK and dV as
// tiled products; the first reads the scores the forward kept, when given); at HS = 16, or 64
// with tiled: false, or 8 with fused: false: stats, a dQ kernel that keeps every pair's P and dS
// in a scratch buffer and the dK/dV kernel that reads it; elsewhere, or when the scratch would
// pass psBudgetBytes, stats, dQ and dK/dV each recomputing the scores. Also builds the slot
// table [B, 2] (first row, length) from the packed row table.
// CPU twin: src/reference/attention.ts (attention_backward). Tested by
// tests/unit/gpu/attention-backward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import type { KvCache } from '../kv-cache';
import { GpuOutOfMemoryError, ShapeError } from '../errors';
import { ATTENTION_MAX_HS, REGISTER_HEAD_SIZES, SIXTEEN_POSITION_WORKGROUP, TRAIN_POSITIONS_PER_INVOCATION, scorePlaneBytes, threadEntry, tiledHeadSize, tileSide, type AttentionVariant } from './attention';
import { flatGrid } from '../grid';

export { tiledHeadSize, tileSide };

export interface AttentionBackwardOptions {
  NH: number;
  KVH: number;
  HS: number;
  /** 'thread' (CPU adapters) or 'wg' (real GPUs), as the forward (defaultAttentionVariant). */
  variant: AttentionVariant;
  /** Most rows M per call: sizes the (LSE, D) scratch [maxRows, NH, 2]. */
  maxRows: number;
  /** Invocations per workgroup (default 64; 'wg' needs a power of two >= HS/4). */
  wg?: number;
  /**
   * Most bytes of the scratch (attentionScratchBytes: the fused form's dQ partials or the kept
   * form's P/dS; default PS_BUDGET_BYTES, capped by the device's largest storage binding); a call
   * whose batch needs more runs the recomputing dQ and dK/dV kernels instead. 0 always does.
   */
  psBudgetBytes?: number;
  /**
   * Key positions per invocation of the kept-P/dS dK/dV kernel: 8 (attn_bwd_dkv_ps8_hs{8,16,64},
   * each query quad's Q and dO loads feed twice the keys; the default but at HS = 16) or 4, both
   * giving the same dK and dV bit for bit; or at HS = 16 only 16 (the default there:
   * attn_bwd_tile_dkv_ps, the whole head of 16 keys as a 16 x 16 register tile, dK and dV in two
   * dispatches; the same sums in another order).
   */
  dkvKeys?: 4 | 8 | 16;
  /**
   * Query positions per invocation of the kept-P/dS dQ kernel: 8 (default;
   * attn_bwd_dq_thread_hs{8,16}_ps8, each key's K and V loads feed twice the queries) or 4; both
   * give the same dQ, P and dS bit for bit. HS = 64 (not in DQ8_HEAD_SIZES) always takes 4.
   */
  dqQueries?: 4 | 8;
  /**
   * At HS = 16 with eight queries per dQ invocation and sixteen keys per dK/dV one: the stats
   * kernel folded into dQ (attn_bwd_dq_thread_hs16_ps8_stats reads LSE and O; default true; the
   * same results bit for bit, one dispatch fewer). It binds FOLDED_STORAGE_BUFFERS storage
   * buffers, so a device that allows fewer per stage runs attn_bwd_stats and _ps8.
   */
  foldStats?: boolean;
  /**
   * At the head sizes of FUSED_HEAD_SIZES (thread variant): one fused kernel for dK, dV and
   * per-key-group dQ partials (attn_bwd_fused16_hs8) and a reduction of the partials
   * (attn_bwd_dq_reduce) instead of the kept-P/dS dQ and dK/dV kernels (default true; false
   * runs those, as does a device that allows fewer than FUSED_STORAGE_BUFFERS storage buffers
   * per stage). Its scratch (the partials) counts against psBudgetBytes as P/dS does.
   */
  fused?: boolean;
  /**
   * At the head sizes where tiledHeadSize (thread variant): the 16 x 16 tile kernels
   * (attn_bwd_tile_sdp, _dq, _dkv; default true) instead of the kept-P/dS dQ and dK/dV kernels
   * (HS = 64) or the recomputing ones.
   * Their scratch (dS and P, two planes) counts against psBudgetBytes as P/dS does.
   */
  tiled?: boolean;
  /**
   * Fewest rows of a call (of its batch: AttentionBackwardArgs.batchRows) that runs the fused or
   * kept-P/dS kernels (default PS_MIN_ROWS); a smaller one runs the recomputing dQ and dK/dV
   * kernels (0: every call may use the scratch).
   * The tile kernels run at every size: at HS = 64 they compile in 1.4 s against the recomputing
   * pair's 4.4 s and run no slower on small batches.
   */
  psMinRows?: number;
}

/** Which kernels the last AttentionBackward.run used ('tiled-scores': the tile kernels from the forward's kept scores). */
export type AttentionBackwardForm = 'fused' | 'tiled' | 'tiled-scores' | 'kept' | 'recomputed';

/** Key positions per invocation of attn_bwd_fused16_hs8 (dQ partials per query: ceil(Tmax / 16)). */
export const FUSED_KEYS = 16;

/**
 * Head sizes with the fused backward: 8. At HS = 16 a fused kernel measured 1.08x the kept-P/dS
 * pair for 7 s of SwiftShader compile time (paid at the first training step), so HS = 16 keeps
 * the pair.
 */
export const FUSED_HEAD_SIZES = [8];

/** Storage buffers attn_bwd_fused16_hs8 binds: a device allowing fewer per stage runs the kept-P/dS kernels. */
export const FUSED_STORAGE_BUFFERS = 9;
/** Storage buffers of the dQ kernel with the stats folded in (AttentionBackwardOptions.foldStats). */
export const FOLDED_STORAGE_BUFFERS = 9;

/** The kept-P/dS dK/dV kernel's keys per invocation by default (AttentionBackwardOptions.dkvKeys). */
export function defaultDkvKeys(HS: number): 8 | 16 {
  return HS === 16 ? 16 : 8;
}

/** Invocations per workgroup of attn_bwd_dkv_ps8_hs{8,16,64} (half as many invocations as the four-key forms). */
export const DKV8_WORKGROUP = 16;

/**
 * Invocations per workgroup of attn_bwd_dkv_thread_hs64 and attn_bwd_dkv_ps_hs64 (thread
 * variant): their four-key invocations are few (B * KVH * T / 4: 128 for 2 x 128 tokens of
 * Qwen2.5's 2 kv heads) and their causal loops long for the first keys and short for the last,
 * so workgroups of 64 left one of two CPU threads with most of the work (55.7 -> 40.0 ms at that
 * shape with 16; 4 measured as 16).
 */
export const HS64_DKV_WORKGROUP = 16;

/** Invocations per workgroup of the tile kernels (dK/dV has few: B * KVH * ceil(Tmax / 16) * HS / 16). */
export const TILE_WORKGROUP = 4;

/** Head sizes whose thread variant has the kept-P/dS backward kernels (and, at FUSED_HEAD_SIZES, the fused one). */
export const PS_HEAD_SIZES = [8, 16, 64];

/**
 * Head sizes whose kept-P/dS dQ kernel also comes eight queries per invocation
 * (AttentionBackwardOptions.dqQueries); at HS = 64 it takes four (its four queries' Q, dO and
 * sums already fill 192 named vec4s; a two-keys-per-step form measured no faster).
 */
export const DQ8_HEAD_SIZES = [8, 16];

/**
 * Default fewest rows of a call that runs the wide kernels (fused, kept P/dS). Below it the work
 * is a few milliseconds in any form, while the wide pipelines take 1.5-3 s of SwiftShader compile
 * time at a run's first step (a short run or a test with small batches paid more in compiles
 * than the kernels ever saved); the recomputing pair compiles in about 0.5 s. A run whose passes
 * fill maxRows (512 by default) uses the wide kernels, in every pass of a batch that large
 * (TrainStep passes the batch's rows): a last pass of fewer rows used to build the recomputing
 * pair mid-run (1.1 s at the default agent's second GRPO step).
 */
export const PS_MIN_ROWS = 256;

/** Default most bytes of the backward's scratch, dQ partials or P/dS (AttentionBackwardOptions.psBudgetBytes): the storage binding size every WebGPU device allows. */
export const PS_BUDGET_BYTES = 128 * 2 ** 20;

/** The shape of one backward call, for its scratch size. */
export interface AttentionScratchShape {
  variant: AttentionVariant;
  HS: number;
  NH: number;
  /** Cache slots and positions per slot. */
  B: number;
  Tmax: number;
  /** Rows of the call. */
  M: number;
  /** Most scratch bytes (default PS_BUDGET_BYTES). */
  budget?: number;
  /** The fused form's dQ partials (default, at FUSED_HEAD_SIZES) or the kept-P/dS form's P and dS. */
  fused?: boolean;
  /** The tile form's planes (default where tiledHeadSize) or the kept-P/dS form's P and dS. */
  tiled?: boolean;
  /** Fewest rows of a call that keeps a scratch (default PS_MIN_ROWS; AttentionBackwardOptions.psMinRows); not for the tile form. */
  minRows?: number;
  /** Rows of the batch the call is a pass of, which minRows is compared with (default M). */
  batchRows?: number;
  /** The stats folded into the kept form's dQ (default, where it applies: AttentionBackwardOptions.foldStats). */
  foldStats?: boolean;
}

/**
 * Bytes of the scratch a backward call keeps (the memory plan's row; AttentionBackward grows its
 * buffer to it): the fused form's dQ partials [ceil(Tmax / 16), M, NH, HS] f32, the tile form's
 * planes [B, NH, 2, TP, TP] f32 (TP = tileSide(Tmax)) or the kept form's P/dS [B, NH,
 * ceil(Tmax / 4), Tmax, 2] vec4; 0 where the kernels recompute the scores instead
 * (variant 'wg', other head sizes, fewer rows than minRows, or over the budget).
 */
export function attentionScratchBytes(c: AttentionScratchShape): number {
  const budget = c.budget ?? PS_BUDGET_BYTES;
  const tiled = (c.tiled ?? true) && tiledHeadSize(c.HS);
  if (c.variant !== 'thread' || budget <= 0) return 0;
  if (!tiled && (!PS_HEAD_SIZES.includes(c.HS) || (c.batchRows ?? c.M) < (c.minRows ?? PS_MIN_ROWS))) return 0;
  const bytes = (c.fused ?? true) && FUSED_HEAD_SIZES.includes(c.HS)
    ? Math.ceil(c.Tmax / FUSED_KEYS) * c.M * c.NH * c.HS * 4
    : tiled
      ? c.B * c.NH * 2 * tileSide(c.Tmax) ** 2 * 4
      : c.B * c.NH * Math.ceil(c.Tmax / TRAIN_POSITIONS_PER_INVOCATION) * c.Tmax * 32;
  return bytes <= budget ? bytes : 0;
}

/**
 * Whether the kept-P/dS form folds the stats into its dQ kernel (AttentionBackwardOptions.foldStats):
 * at HS = 16 with eight queries per dQ invocation and sixteen keys per dK/dV one, on a device
 * that allows FOLDED_STORAGE_BUFFERS storage buffers per stage (storageBuffers; the memory plan
 * assumes it does).
 */
export function foldsStats(c: { HS: number; dkvKeys?: 4 | 8 | 16; dqQueries?: 4 | 8; foldStats?: boolean }, storageBuffers = FOLDED_STORAGE_BUFFERS): boolean {
  return (c.foldStats ?? true) && c.HS === 16 && (c.dkvKeys ?? defaultDkvKeys(c.HS)) === 16 && (c.dqQueries ?? 8) === 8
    && storageBuffers >= FOLDED_STORAGE_BUFFERS;
}

/**
 * Dispatches of one backward call of this shape (M > 0): stats, then the tile form's sdp, dQ and
 * dK/dV twice (5), the kept form's dQ and, with sixteen keys per invocation (dkvKeys, by default
 * at HS = 16), dK and dV (4; 3 with the stats folded into dQ: foldsStats), or two kernels (fused
 * and its dQ reduction, kept P/dS with four or eight keys or recomputing dQ and dK/dV: 3). The
 * memory plan counts one uniform buffer per dispatch.
 */
export function attentionBackwardDispatches(c: AttentionScratchShape & { dkvKeys?: 4 | 8 | 16; dqQueries?: 4 | 8 }): number {
  if (attentionScratchBytes(c) === 0) return 3;
  if ((c.tiled ?? true) && tiledHeadSize(c.HS)) return 5;
  const fused = (c.fused ?? true) && FUSED_HEAD_SIZES.includes(c.HS);
  if (fused || (c.dkvKeys ?? defaultDkvKeys(c.HS)) !== 16) return 3;
  return foldsStats(c) ? 3 : 4;
}

/**
 * Most bytes of the score planes a training pass keeps for the tile backward, all kept layers
 * together (keptScoresBytes): Qwen2.5-0.5B's 24 layers at 4 x 128 tokens keep 84 MiB; longer
 * passes recompute the scores in the backward (as they do when recomputing layers, one plane).
 */
export const SCORES_BUDGET_BYTES = 128 * 2 ** 20;

/**
 * Bytes of each score plane (scorePlaneBytes) a training pass of this shape keeps, one per kept
 * layer (`layers`: all, or 1 when recomputing), for the tile backward to read instead of
 * recomputing Q K^T; 0 where it keeps none: head sizes without the tile form, the tile form
 * not running (variant, tiled: false, its scratch over the budget), or the planes together over
 * `scoresBudget` (default SCORES_BUDGET_BYTES). TrainStep and the memory plan both ask this.
 */
export function keptScoresBytes(c: AttentionScratchShape & { layers: number; scoresBudget?: number }): number {
  if (!tiledHeadSize(c.HS) || !(c.tiled ?? true) || attentionScratchBytes(c) === 0) return 0;
  const plane = scorePlaneBytes(c.B, c.NH, c.Tmax);
  return plane * c.layers <= (c.scoresBudget ?? SCORES_BUDGET_BYTES) ? plane : 0;
}

/** The tensors of one attention backward (all f32 unless said; cache layout [B, KVH, Tmax, HS]). */
export interface AttentionBackwardArgs {
  /** Q [M, NH, HS] as the forward read it (rotated). */
  Q: GPUBuffer;
  /** O [M, NH * HS], the forward output. */
  O: GPUBuffer;
  /** dO [M, NH * HS]. */
  dO: GPUBuffer;
  /** LSE [M, NH] from the forward created with `lse: true`. */
  LSE: GPUBuffer;
  /** [M, 2] u32 (slot, position), as given to the forward. */
  rows: GPUBuffer;
  /** [B, 2] u32 (first row, length) per slot: `sequenceTable(rows, B)`. */
  seqs: GPUBuffer;
  /** The cache the forward read (K, V of `layer`): gives B and Tmax. */
  cache: KvCache;
  layer: number;
  M: number;
  /**
   * Rows of the batch this call is a pass of (TrainStep splits a batch into passes of at most
   * maxRows): psMinRows is compared with it, so every pass of a batch runs the same form.
   * Default M.
   */
  batchRows?: number;
  /** Out: dQ [M, NH, HS] (=). */
  dQ: GPUBuffer;
  /** Out: dK, dV in the cache layout (=; zero past each sequence's length). */
  dK: GPUBuffer;
  dV: GPUBuffer;
  /**
   * The scaled scores the forward kept (Attention.run's `scores` plane, tiledHeadSize): the
   * tile kernels then read them instead of recomputing Q K^T (form 'tiled-scores'); the other
   * forms ignore them.
   */
  S?: GPUBuffer;
}

/** Query positions the attention kernels skip come in whole multiples of this (sequenceTable's starts). */
export const SLOT_START_ALIGN = 16;

/**
 * The slot table [B, 2] (first row, length word) of a packed training batch, checking that every
 * slot's rows are contiguous with positions 0..T-1 (what the dK/dV kernel assumes). `starts`
 * (TrainStep's shared rows): per slot, the query positions below which no result is read and the
 * upstream gradient is 0; rounded down to a multiple of SLOT_START_ALIGN, it goes in the length
 * word's high 16 bits and the training attention kernels, forward and backward, skip those
 * queries (attention_params.wgsl slot_start).
 */
export function sequenceTable(rows: Uint32Array, B: number, starts?: ArrayLike<number>): Uint32Array {
  const M = rows.length / 2;
  const seqs = new Uint32Array(2 * B);
  const seen = new Uint8Array(B);
  for (let r = 0; r < M;) {
    const s = rows[2 * r];
    if (s >= B) throw new ShapeError('attention_backward', `slots in [0, ${B})`, `slot ${s} at row ${r}`);
    if (seen[s]) throw new ShapeError('attention_backward', 'the rows of each slot contiguous', `slot ${s} again at row ${r}`);
    seen[s] = 1;
    let n = 0;
    while (r + n < M && rows[2 * (r + n)] === s) {
      if (rows[2 * (r + n) + 1] !== n) {
        throw new ShapeError('attention_backward', `positions 0..T-1 in order for slot ${s}`, `position ${rows[2 * (r + n) + 1]} at row ${r + n}; reset the cache before the training forward`);
      }
      n++;
    }
    if (n > 0xFFFF) throw new ShapeError('attention_backward', 'slots of at most 65535 positions', `${n} positions in slot ${s}`);
    const start = starts ? Math.floor(Math.min(starts[s], n) / SLOT_START_ALIGN) * SLOT_START_ALIGN : 0;
    seqs[2 * s] = r;
    seqs[2 * s + 1] = (n | (start << 16)) >>> 0;
    r += n;
  }
  return seqs;
}

/** Invocations per workgroup of the recomputing dK/dV kernel. */
function dkvRowWg(o: Required<AttentionBackwardOptions>): number {
  return o.variant === 'thread' && o.HS === 64 ? Math.min(o.wg, HS64_DKV_WORKGROUP) : o.wg;
}

export class AttentionBackward {
  private readonly uniforms = new ArrayBuffer(32);
  private readonly u32 = new Uint32Array(this.uniforms);
  private readonly f32 = new Float32Array(this.uniforms);
  private readonly stats: GPUBuffer;
  /** The P/dS scratch, grown to the largest call so far (null: none yet). */
  private ps: GPUBuffer | null = null;
  /** The kernels the last run() used (for tests and the bench). */
  form: AttentionBackwardForm = 'recomputed';
  private lastFolded = false;

  /** Whether the last run() kept P and dS (for tests and the bench). */
  get keptScores(): boolean {
    return this.form === 'kept';
  }

  /** Key positions per invocation of the kept-P/dS dK/dV kernel (0: no such kernel). */
  get dkvKeysPerInvocation(): number {
    return this.psKernels?.keys ?? 0;
  }

  /** Whether the last run() folded the stats into its dQ kernel (foldsStats; tests and the bench). */
  get statsFolded(): boolean {
    return this.lastFolded;
  }

  /** Query positions per invocation of the kept-P/dS dQ kernel (0: no such kernel). */
  get dqQueriesPerInvocation(): number {
    return this.psKernels?.queries ?? 0;
  }

  private constructor(
    private readonly rt: GpuRuntime,
    private readonly pStats: Kernel,
    private readonly pDq: Kernel,
    private readonly pDkv: Kernel,
    /**
     * The kept-P/dS kernels; dQ takes `queries` positions per invocation, dK/dV `keys` positions
     * in workgroups of `dkvWg`.
     */
    private readonly psKernels: { dq: Kernel; dkv: Kernel; queries: 4 | 8; keys: 4 | 8 | 16; dkvWg: number; foldedStats: boolean } | null,
    /** attn_bwd_fused16_hs8 (in workgroups of SIXTEEN_POSITION_WORKGROUP) and attn_bwd_dq_reduce. */
    private readonly fusedKernels: { fused: Kernel; reduce: Kernel } | null,
    /** attn_bwd_tile_sdp (sdpS: attn_bwd_tile_sdp_s), _dq and _dkv (in workgroups of TILE_WORKGROUP). */
    private readonly tileKernels: { sdp: Kernel; sdpS: Kernel; dq: Kernel; dkv: Kernel } | null,
    readonly opts: Required<AttentionBackwardOptions>,
  ) {
    this.stats = rt.storage(opts.maxRows * opts.NH * 8, `attention backward (LSE, D) [${opts.maxRows}, ${opts.NH}, 2]`);
  }

  static async create(rt: GpuRuntime, opts: AttentionBackwardOptions): Promise<AttentionBackward> {
    const o: Required<AttentionBackwardOptions> = { wg: 64, psBudgetBytes: PS_BUDGET_BYTES, dkvKeys: defaultDkvKeys(opts.HS), dqQueries: 8, foldStats: true, fused: true, tiled: true, psMinRows: PS_MIN_ROWS, ...opts };
    const { NH, KVH, HS, wg, maxRows } = o;
    if (HS % 4 !== 0 || HS > ATTENTION_MAX_HS) throw new ShapeError('attention_backward', `HS a multiple of 4 and <= ${ATTENTION_MAX_HS}`, `HS=${HS}`);
    if (KVH <= 0 || NH % KVH !== 0) throw new ShapeError('attention_backward', 'NH a multiple of KVH', `NH=${NH}, KVH=${KVH}`);
    if (!Number.isInteger(maxRows) || maxRows <= 0) throw new ShapeError('attention_backward', 'maxRows a positive integer', `maxRows=${maxRows}`);
    if (o.variant === 'wg' && ((wg & (wg - 1)) !== 0 || wg < HS / 4)) {
      throw new ShapeError('attention_backward', `a workgroup size that is a power of two >= HS/4 = ${HS / 4}`, `wg=${wg}`);
    }
    const overrides = { WG: wg, HS };
    const [pStats, pDq, pDkv] = await Promise.all([
      rt.kernel({ shader: 'attention', entry: 'attn_bwd_stats', overrides }),
      rt.kernel({ shader: 'attention', entry: o.variant === 'thread' ? threadEntry('attn_bwd_dq_thread', HS) : 'attn_bwd_dq_wg', overrides }),
      rt.kernel({ shader: 'attention', entry: o.variant === 'thread' ? threadEntry('attn_bwd_dkv_thread', HS) : 'attn_bwd_dkv_wg', overrides: { WG: dkvRowWg(o), HS } }),
    ]);
    const withPs = o.variant === 'thread' && PS_HEAD_SIZES.includes(HS) && o.psBudgetBytes > 0;
    if (o.dkvKeys === 16 && HS !== 16) throw new ShapeError('attention_backward', 'dkvKeys 4 or 8 (16 is for heads of 16)', `dkvKeys=16 at HS=${HS}`);
    const keys = o.dkvKeys, queries = DQ8_HEAD_SIZES.includes(HS) ? o.dqQueries : 4;
    const dkvWg = keys === 16 ? TILE_WORKGROUP : keys === 8 ? DKV8_WORKGROUP : HS === 64 ? Math.min(wg, HS64_DKV_WORKGROUP) : wg;
    // The fused kernel binds nine storage buffers (the WebGPU default allows eight per stage).
    const fusedFits = rt.device.limits.maxStorageBuffersPerShaderStage >= FUSED_STORAGE_BUFFERS;
    const fusedKernels = withPs && o.fused && fusedFits && FUSED_HEAD_SIZES.includes(HS) ? {
      fused: await rt.kernel({ shader: 'attention', entry: `attn_bwd_fused16_hs${HS}`, overrides: { WG: Math.min(wg, SIXTEEN_POSITION_WORKGROUP), HS } }),
      reduce: await rt.kernel({ shader: 'attention', entry: 'attn_bwd_dq_reduce', overrides }),
    } : null;
    const tileOverrides = { WG: TILE_WORKGROUP, HS };
    const tileKernels = o.variant === 'thread' && o.psBudgetBytes > 0 && o.tiled && tiledHeadSize(HS) ? {
      sdp: await rt.kernel({ shader: 'attention_tiles', entry: 'attn_bwd_tile_sdp', overrides: tileOverrides }),
      sdpS: await rt.kernel({ shader: 'attention_tiles', entry: 'attn_bwd_tile_sdp_s', overrides: tileOverrides }),
      dq: await rt.kernel({ shader: 'attention_tiles', entry: 'attn_bwd_tile_dq', overrides: tileOverrides }),
      dkv: await rt.kernel({ shader: 'attention_tiles', entry: 'attn_bwd_tile_dkv', overrides: tileOverrides }),
    } : null;
    const folded = foldsStats({ ...o, dqQueries: queries }, rt.device.limits.maxStorageBuffersPerShaderStage);
    const psKernels = withPs && !fusedKernels && !tileKernels ? {
      dq: await rt.kernel({ shader: 'attention', entry: `attn_bwd_dq_thread_hs${HS}_ps${queries === 8 ? '8' : ''}${folded ? '_stats' : ''}`, overrides }),
      queries,
      foldedStats: folded,
      dkv: keys === 16
        ? await rt.kernel({ shader: 'attention_tiles', entry: 'attn_bwd_tile_dkv_ps', overrides: { WG: dkvWg, HS } })
        : await rt.kernel({ shader: 'attention', entry: `attn_bwd_dkv_ps${keys === 8 ? '8' : ''}_hs${HS}`, overrides: { WG: dkvWg, HS } }),
      keys,
      dkvWg,
    } : null;
    return new AttentionBackward(rt, pStats, pDq, pDkv, psKernels, fusedKernels, tileKernels, o);
  }

  /** Records dQ = dL/dQ and dK, dV = dL/d(cache K, V of `layer`), all overwritten. */
  run(a: AttentionBackwardArgs): void {
    const { NH, KVH, HS, wg, variant, maxRows } = this.opts;
    const { M, cache, layer } = a;
    const c = cache.cfg;
    const op = 'attention_backward';
    if (c.KVH !== KVH || c.HS !== HS) throw new ShapeError(op, `a cache with KVH=${KVH}, HS=${HS}`, `KVH=${c.KVH}, HS=${c.HS}`);
    if (!(layer >= 0 && layer < c.numLayers)) throw new ShapeError(op, `layer in [0, ${c.numLayers})`, `${layer}`);
    if (!(Number.isInteger(M) && M >= 0 && M <= maxRows)) throw new ShapeError(op, `M in [0, maxRows = ${maxRows}]`, `M=${M}`);
    const act = M * NH * HS * 4;
    const need: [string, GPUBuffer, number, string][] = [
      ['Q', a.Q, act, `[${M}, ${NH}, ${HS}]`], ['O', a.O, act, `[${M}, ${NH * HS}]`], ['dO', a.dO, act, `[${M}, ${NH * HS}]`],
      ['LSE', a.LSE, M * NH * 4, `[${M}, ${NH}]`], ['rows', a.rows, M * 8, `[${M}, 2] u32`], ['seqs', a.seqs, c.B * 8, `[${c.B}, 2] u32`],
      ['dQ', a.dQ, act, `[${M}, ${NH}, ${HS}]`],
      ['dK', a.dK, cache.layerBytes, `[${c.B}, ${KVH}, ${c.Tmax}, ${HS}]`], ['dV', a.dV, cache.layerBytes, `[${c.B}, ${KVH}, ${c.Tmax}, ${HS}]`],
    ];
    if (a.S) need.push(['S', a.S, scorePlaneBytes(c.B, NH, c.Tmax), `[${c.B}, ${NH}, ${tileSide(c.Tmax)}, ${tileSide(c.Tmax)}]`]);
    for (const [name, buf, bytes, shape] of need) {
      if (buf.size < bytes) throw new ShapeError(op, `${name} of ${shape} (${bytes} bytes)`, `${buf.size} bytes (${buf.label})`);
    }
    this.u32.set([M, NH, KVH, HS, c.Tmax, c.B]);
    this.f32[6] = 1 / Math.sqrt(HS);
    this.u32[7] = 0;
    const u = new Uint8Array(this.uniforms);
    const max = this.rt.device.limits.maxComputeWorkgroupsPerDimension;
    const K = cache.k[layer], V = cache.v[layer];
    const ps = M > 0 ? this.scratch(c.B, c.Tmax, M, a.batchRows ?? M) : null;
    this.form = ps === null ? 'recomputed' : this.fusedKernels ? 'fused' : this.tileKernels ? (a.S ? 'tiled-scores' : 'tiled') : 'kept';
    const folded = ps !== null && this.psKernels !== null && this.psKernels.foldedStats;
    this.lastFolded = folded;
    if (M > 0 && !folded) this.rt.dispatch(this.pStats, [a.O, a.dO, a.LSE, this.stats], u, flatGrid(M * NH, wg, max));
    if (ps && this.fusedKernels) {
      // attn_bwd_fused16_hs8: dK, dV and the dQ partials of every sixteen keys in ps;
      // attn_bwd_dq_reduce: dQ from the partials.
      const { fused, reduce } = this.fusedKernels;
      const fusedWg = Math.min(wg, SIXTEEN_POSITION_WORKGROUP);
      this.rt.dispatch(fused, [a.Q, a.seqs, K, V, a.dO, this.stats, a.dK, a.dV, ps], u, flatGrid(c.B * KVH * Math.ceil(c.Tmax / FUSED_KEYS), fusedWg, max));
      this.rt.dispatch(reduce, [ps, a.rows, a.dQ], u, flatGrid(M * NH, wg, max));
      return;
    }
    if (ps && this.tileKernels) {
      // attn_bwd_tile_sdp (_s: S from the forward's plane): P and dS of every tile on or below
      // the diagonal into ps; attn_bwd_tile_dq: dQ = scale dS K; attn_bwd_tile_dkv
      // (Params.plane 1, 2): dK, dV.
      const { sdp, sdpS, dq, dkv } = this.tileKernels;
      const nt = tileSide(c.Tmax) / 16, ndt = HS / 16;
      const tiles = flatGrid(c.B * NH * nt * (nt + 1) / 2, TILE_WORKGROUP, max);
      if (a.S) this.rt.dispatch(sdpS, [a.S, a.seqs, V, a.dO, this.stats, ps], u, tiles);
      else this.rt.dispatch(sdp, [a.Q, a.seqs, K, V, a.dO, this.stats, ps], u, tiles);
      this.rt.dispatch(dq, [ps, a.seqs, K, a.dQ], u, flatGrid(c.B * NH * nt * ndt, TILE_WORKGROUP, max));
      this.u32[7] = 1;
      this.rt.dispatch(dkv, [ps, a.seqs, a.Q, a.dK], u, flatGrid(c.B * KVH * nt * ndt, TILE_WORKGROUP, max));
      this.u32[7] = 2;
      this.rt.dispatch(dkv, [ps, a.seqs, a.dO, a.dV], u, flatGrid(c.B * KVH * nt * ndt, TILE_WORKGROUP, max));
      this.u32[7] = 0;
      return;
    }
    if (ps && this.psKernels) {
      // attn_bwd_dq_thread_hs*_ps{8,}: psKernels.queries query positions per invocation, P and
      // dS kept in ps; attn_bwd_dkv_ps{8,}_hs*: psKernels.keys key positions per invocation.
      const { dq, dkv, queries, keys, dkvWg } = this.psKernels;
      const dqGrid = flatGrid(c.B * NH * Math.ceil(c.Tmax / queries), wg, max);
      // Folded: each query's (LSE, D) from LSE and O (bound after the uniforms) instead of the stats.
      if (folded) this.rt.dispatch(dq, [a.Q, a.seqs, K, V, a.dO, a.LSE, a.dQ, ps], u, dqGrid, [a.O]);
      else this.rt.dispatch(dq, [a.Q, a.seqs, K, V, a.dO, this.stats, a.dQ, ps], u, dqGrid);
      const grid = flatGrid(c.B * KVH * Math.ceil(c.Tmax / keys), dkvWg, max);
      if (keys === 16) {
        // attn_bwd_tile_dkv_ps (Params.plane 1: dK from dS and Q; 2: dV from P and dO).
        this.u32[7] = 1;
        this.rt.dispatch(dkv, [ps, a.seqs, a.Q, a.dK], u, grid);
        this.u32[7] = 2;
        this.rt.dispatch(dkv, [ps, a.seqs, a.dO, a.dV], u, grid);
        this.u32[7] = 0;
      } else {
        this.rt.dispatch(dkv, [a.Q, a.seqs, ps, a.dO, a.dK, a.dV], u, grid);
      }
      return;
    }
    if (M > 0) {
      if (variant === 'wg') {
        if (M > max) throw new ShapeError(op, `at most ${max} rows per dispatch`, `M=${M}`);
        this.rt.dispatch(this.pDq, [a.Q, a.rows, K, V, a.dO, this.stats, a.dQ], u, { x: NH, y: M });
      } else if (REGISTER_HEAD_SIZES.includes(HS)) {
        // attn_bwd_dq_thread_hs8 / hs16 / hs64: four query positions of one (slot, head) per invocation, from the slot table.
        this.rt.dispatch(this.pDq, [a.Q, a.seqs, K, V, a.dO, this.stats, a.dQ], u, flatGrid(c.B * NH * Math.ceil(c.Tmax / TRAIN_POSITIONS_PER_INVOCATION), wg, max));
      } else {
        this.rt.dispatch(this.pDq, [a.Q, a.rows, K, V, a.dO, this.stats, a.dQ], u, flatGrid(M * NH, wg, max));
      }
    }
    // dK/dV always runs: it also zeroes positions no row reaches.
    if (variant === 'wg' && (c.Tmax > max || c.B * KVH > max)) throw new ShapeError(op, `Tmax and B*KVH at most ${max} (workgroups per dimension)`, `Tmax=${c.Tmax}, B*KVH=${c.B * KVH}`);
    // The HS = 8, 16 and 64 thread forms take four key positions per invocation (attn_bwd_dkv_thread_hs*).
    const keysPer = variant === 'thread' && REGISTER_HEAD_SIZES.includes(HS) ? TRAIN_POSITIONS_PER_INVOCATION : 1;
    const wgs = variant === 'wg' ? { x: c.Tmax, y: c.B * KVH } : flatGrid(c.B * KVH * Math.ceil(c.Tmax / keysPer), dkvRowWg(this.opts), max);
    this.rt.dispatch(this.pDkv, [a.Q, a.seqs, K, V, a.dO, this.stats, a.dK, a.dV], u, wgs);
  }

  /**
   * Bytes of each score plane a training pass of M rows over B slots of Tmax positions keeps for
   * this instance, `layers` planes in all (keptScoresBytes with this instance's form and budget);
   * 0: none (the pass runs the forward without them and this backward recomputes the scores).
   */
  keptScoresBytes(B: number, Tmax: number, M: number, layers: number): number {
    return this.tileKernels ? keptScoresBytes({ ...this.scratchShape(B, Tmax, M), layers }) : 0;
  }

  /** The shape of a call for attentionScratchBytes: this instance's forms, size threshold and budget (capped by the device's largest storage binding). */
  private scratchShape(B: number, Tmax: number, M: number, batchRows = M): AttentionScratchShape {
    const { variant, HS, NH, psBudgetBytes, psMinRows } = this.opts;
    const budget = Math.min(psBudgetBytes, this.rt.device.limits.maxStorageBufferBindingSize);
    return { variant, HS, NH, B, Tmax, M, budget, fused: this.fusedKernels !== null, tiled: this.tileKernels !== null, minRows: psMinRows, batchRows };
  }

  /**
   * The scratch (the fused form's dQ partials or the kept form's P/dS) for a call of M rows over
   * B slots of Tmax positions, grown when needed (the old one is retired after the step's
   * submit); null when this instance has neither form or the scratch would pass the budget or the
   * device's limits (the recomputing kernels run instead).
   */
  private scratch(B: number, Tmax: number, M: number, batchRows: number): GPUBuffer | null {
    if (!this.psKernels && !this.fusedKernels && !this.tileKernels) return null;
    const { HS, NH } = this.opts;
    const fused = this.fusedKernels !== null, tiled = this.tileKernels !== null;
    const bytes = attentionScratchBytes(this.scratchShape(B, Tmax, M, batchRows));
    if (bytes === 0) return null;
    if (this.ps && this.ps.size >= bytes) return this.ps;
    const label = fused
      ? `attention backward dQ partials [${Math.ceil(Tmax / FUSED_KEYS)}, ${M}, ${NH}, ${HS}]`
      : tiled ? `attention backward tile planes [${B}, ${NH}, 2, ${tileSide(Tmax)}, ${tileSide(Tmax)}]` : `attention backward P/dS [${B}, ${NH}, ${Math.ceil(Tmax / 4)}, ${Tmax}, 2] vec4`;
    let next: GPUBuffer;
    try {
      next = this.rt.storage(bytes, label);
    } catch (e) {
      if (e instanceof GpuOutOfMemoryError) return null;
      throw e;
    }
    if (this.ps) this.rt.releaseAfterSubmit(this.ps);
    this.ps = next;
    return next;
  }

  destroy(): void {
    this.rt.release(this.stats);
    if (this.ps) this.rt.release(this.ps);
    this.ps = null;
  }
}

