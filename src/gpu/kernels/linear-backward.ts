// Backward launcher mirroring Linear (same LinearSpec): dX (=|+=) dY W (+ the LoRA path), LoRA
// dA/dB (+=) per segment, full-mode dW/dbias (+=), with W f32 or NF4 read in place
// (shaders/linear_bwd.wgsl; X A^T is recomputed with the forward kernel of shaders/linear.wgsl).
// A fused SwiGLU layer is differentiated in two steps: SwiGluBackward gives dGU [M, 2I], then this.
// CPU twins: linear_backward, lora_backward (src/reference/linear.ts). Tested by tests/unit/gpu/linear-backward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { isCpuAdapter } from '../device';
import { nf4TileRows, type LinearLora, type LinearSpec } from './linear';

/**
 * rb: register-blocked, 8 x 8 outputs per invocation (CPU adapters such as SwiftShader); rb16: the
 * same at 16 x 16 (dx_rb16, dw_rb16, dx_nf4_rb16); tiled: workgroup-memory tiles (GPUs).
 */
export type BackwardVariant = 'rb' | 'rb16' | 'tiled';
export const BACKWARD_VARIANTS: readonly BackwardVariant[] = ['rb', 'rb16', 'tiled'];

export interface LinearGrads {
  /** [M, K] input gradient; null when nobody needs it. Overwritten unless `accumulate`. */
  dX?: GPUBuffer | null;
  /** dX += instead of = (the residual stream's gradient). */
  accumulate?: boolean;
  /** LoRA gradients (+=): dA [S*R, K] and dB [NW, R], stacked like LinearLora.A / .B. */
  lora?: { dA: GPUBuffer; dB: GPUBuffer } | null;
  /** Full mode (+=): dW [NW, K] (f32 weight only), dbias [NW] when the layer has a bias. */
  full?: { dW: GPUBuffer; dbias?: GPUBuffer | null } | null;
  /** X A^T [M, S*R] as the forward computed it; default: recomputed here. */
  xa?: GPUBuffer;
}

const RB_WG = 4;
/**
 * Workgroup of the rb kernels on LoRA's rank-wide products (dY B and dB: K = R columns): R / 8
 * invocations across (1, 2 or 4) and the rest down, so no SIMD lane of four adjacent invocations
 * idles when R is 8 or 16 (with 4 x 4, R = 16 left two of every four lanes without columns).
 */
function narrowWG(R: number): { x: number; y: number } {
  const x = R <= 8 ? 1 : R <= 16 ? 2 : RB_WG;
  return { x, y: (RB_WG * RB_WG) / x };
}
/**
 * Workgroup of the rb16 variant on LoRA's rank-wide products (dY B and dB: K = R columns, R a
 * multiple of 16, at most 64) with 16 x 16 tiles: R / 16 invocations across, four down. At ranks
 * 16-64 these beat rb's narrow 8 x 8 tiles (each D and B load feeds four times the multiply-adds).
 */
function wideWG(R: number): { x: number; y: number } | null {
  return R > 0 && R % 16 === 0 && R <= 16 * RB_WG ? { x: R / 16, y: RB_WG } : null;
}
/** Fewest workgroups a dispatch of the rb16 variant runs with 16 x 16 tiles; smaller ones use rb's 8 x 8. */
const RB16_MIN_GROUPS = 4;
/**
 * LoRA's dY B (M x R outputs per segment, summed over the segment's width) at few rows is one or
 * two workgroups of dx_rb, i.e. one CPU thread or GPU core: below this many workgroups it is split
 * along N into partial sums (gid.z; at least SPLIT_MIN_VEC4 vec4 columns each), summed by sum_split.
 */
const SPLIT_MIN_GROUPS = 16;
const SPLIT_MIN_VEC4 = 16;
/** A dx_* / dw_* dispatch's D view: vec4-aligned views can use the register-blocked entries. */
export interface DView { N: number; ldD: number; dOff: number }
const MAX_GROUPS = 65535;

/** rb16 on CPU adapters (8 x 8 tiles where 16 x 16 would leave threads or lanes idle), tiled elsewhere. */
export function defaultBackwardVariant(rt: GpuRuntime): BackwardVariant {
  const cpu = isCpuAdapter(rt.report);
  return cpu ? 'rb16' : 'tiled';
}

/** The narrow rb pipelines (dY B and dB at LoRA rank R <= 16, R % 4 == 0; R = 0: no LoRA) exist for this variant. */
function hasNarrow(R: number, variant: BackwardVariant): boolean {
  return R > 0 && variant !== 'tiled' && R % 4 === 0 && narrowWG(R).x < RB_WG;
}

function gridDX(v: BackwardVariant, M: number, K: number, nf4: boolean): { x: number; y: number } {
  if (v === 'tiled') return { x: Math.ceil(K / 64), y: Math.ceil(M / 64) };
  if (v === 'rb16') return { x: Math.ceil(Math.ceil(K / 16) / RB_WG), y: Math.ceil(M / ((nf4 ? nf4TileRows(M) : 16) * RB_WG)) };
  const cols = nf4 ? K / 8 : Math.ceil(K / 8);
  return { x: Math.ceil(cols / RB_WG), y: Math.ceil(M / (8 * RB_WG)) };
}

function gridDW(v: BackwardVariant, N: number, K: number): { x: number; y: number } {
  if (v === 'tiled') return { x: Math.ceil(K / 64), y: Math.ceil(N / 64) };
  const t = v === 'rb16' ? 16 : 8;
  return { x: Math.ceil(Math.ceil(K / t) / RB_WG), y: Math.ceil(N / (t * RB_WG)) };
}

/**
 * The kernel of a dx_* / dw_* dispatch: the layer's variant, or tiled when the D view is not
 * vec4-aligned, rb where rb16's 16 x 16 tiles would leave threads or lanes idle, the narrow rb
 * pipelines on LoRA's rank-wide products; its pipeline key and grid.
 */
function mmChoice(variant: BackwardVariant, R: number, nf4W: boolean, name: 'dx' | 'dxF32' | 'dw', d: DView, M: number, K: number): { key: string; grid: { x: number; y: number } } {
  let v: BackwardVariant = variant !== 'tiled' && d.N % 4 === 0 && d.ldD % 4 === 0 && d.dOff % 4 === 0 ? variant : 'tiled';
  const nf4 = name === 'dx' && nf4W;
  const grid = (w: BackwardVariant) => (name === 'dw' ? gridDW(w, d.N, K) : gridDX(w, M, K, nf4));
  // 16 x 16 tiles only where they still give every CPU thread work and every SIMD lane (adjacent
  // invocations: 16 columns each) columns of its own: K >= 64 (the rb pipelines exist too).
  if (v === 'rb16') {
    const g = grid('rb16');
    const wide = name !== 'dx' && K === R ? wideWG(R) : null;
    if (wide) return { key: `${name}:wide`, grid: { x: 1, y: Math.ceil((name === 'dw' ? d.N : M) / (16 * wide.y)) } };
    // A small dW (the default agent's 64 x 64), or one of at most three 16-row tiles (LoRA's dA at
    // S R <= 48): one SIMD group per workgroup, so both CPU threads get tiles and no rows idle.
    if (name === 'dw' && K >= 16 * RB_WG && (g.x * g.y < RB16_MIN_GROUPS || Math.ceil(d.N / 16) < RB_WG)) return { key: 'dw:rb16s', grid: { x: g.x, y: Math.ceil(d.N / 16) } };
    if (g.x * g.y < RB16_MIN_GROUPS || K < 16 * RB_WG) v = 'rb';
  }
  if (v === 'rb' && name !== 'dx' && K === R && hasNarrow(R, variant)) {
    const w = narrowWG(R);
    const rows = name === 'dw' ? d.N : M;
    return { key: `${name}:narrow`, grid: { x: Math.ceil(Math.ceil(K / 8) / w.x), y: Math.ceil(rows / (8 * w.y)) } };
  }
  // NF4's dX at 32 rows per invocation where nf4TileRows says (dx_nf4_rb32: the same sums as dx_nf4_rb16).
  const rows32 = nf4 && v === 'rb16' && nf4TileRows(M) === 32;
  return { key: `${name}:${v}${rows32 ? ':rows32' : ''}`, grid: grid(v) };
}

/** LoRA's dY B views (one per segment: D = dY's columns of the segment) of a fused out NW split at `starts`. */
export function dybViews(NW: number, starts: readonly number[] = []): DView[] {
  const bounds = [0, ...starts, NW];
  return bounds.slice(1).map((n1, s) => ({ N: n1 - bounds[s], ldD: NW, dOff: bounds[s] }));
}

/** How LoRA's dY B and dB run at M rows (loraBackwardLayout; LinearBackward.run and the memory plan follow it). */
export interface LoraBackwardLayout {
  /** Partial sums of dY B (1: not split; then sum_split does not run). */
  parts: number;
  /** vec4 columns of dY per partial (0: not split). */
  split4: number;
  /**
   * dY B of every segment in one split dispatch (flags bit 1): each partial's columns lie inside
   * one segment, which it writes; sum_split sums a segment's columns over its own partials only.
   */
  dybMerged: boolean;
  /** dB of every segment in one dispatch (flags bit 1: each invocation's out rows inside one segment). */
  dbMerged: boolean;
  /** Dispatches of dY B (before sum_split) and of dB. */
  dybDispatches: number;
  dbDispatches: number;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * The layout of LoRA's dY B and dB for a fused out NW split at `starts` (rank R, M rows): a
 * dispatch per segment, or all segments in one where the kernels allow it. dY B merges when it
 * splits anyway (few rows) and a split size of at least half the per-segment one divides every
 * segment start (q|k|v at Qwen2.5-0.5B: 14 + 14 + 14 partials of 16 vec4 -> 18, one dispatch
 * instead of three); dB merges when the segment starts are multiples of its kernel's out rows
 * per invocation (8 or 16; never on the tiled variant). The rank a multiple of 4 (else the
 * scalar lora_dyb / lora_db, one dispatch each).
 */
export function loraBackwardLayout(variant: BackwardVariant, R: number, NW: number, starts: readonly number[] = [], M: number): LoraBackwardLayout {
  if (R % 4 !== 0) return { parts: 1, split4: 0, dybMerged: false, dbMerged: false, dybDispatches: 1, dbDispatches: 1 };
  const views = dybViews(NW, starts);
  const S = views.length;
  const P = dybSplitCount(variant, R, views, M);
  let split4 = P > 1 ? Math.ceil(Math.max(...views.map((d) => d.N / 4)) / P) : 0;
  let parts = P;
  let dybMerged = false;
  if (S > 1 && P > 1) {
    const g = starts.reduce((a, st) => gcd(a, st / 4), 0);
    let d = Math.min(g, split4);
    while (d > 0 && g % d !== 0) d--;
    if (2 * d >= split4) {
      dybMerged = true;
      split4 = d;
      parts = Math.ceil(NW / 4 / d);
    }
  }
  const full: DView = { N: NW, ldD: NW, dOff: 0 };
  const dbKey = mmChoice(variant, R, false, 'dw', full, M, R).key;
  const tileRows = dbKey === 'dw:narrow' || dbKey === 'dw:rb' ? 8 : dbKey === 'dw:tiled' ? 0 : 16;
  const dbMerged = S > 1 && tileRows > 0 && starts.every((st) => st % tileRows === 0);
  return { parts, split4, dybMerged, dbMerged, dybDispatches: dybMerged ? 1 : S, dbDispatches: dbMerged ? 1 : S };
}

/**
 * How many partial sums LoRA's dY B (one dx dispatch per segment view) splits into at M rows: 1
 * unless the rank is a multiple of 4 and every segment runs dx_rb (narrow or rb: the split entry;
 * never with tiled) on fewer than SPLIT_MIN_GROUPS workgroups; then enough to reach that many,
 * each split at least SPLIT_MIN_VEC4 vec4 columns of the widest. loraBackwardLayout starts from
 * it (and may merge the segments' splits), which LinearBackward.run and the memory plan
 * (src/train/memory-plan.ts) both follow.
 */
export function dybSplitCount(variant: BackwardVariant, R: number, views: DView[], M: number): number {
  if (variant === 'tiled' || R <= 0 || R % 4 !== 0) return 1;
  const choices = views.map((d) => mmChoice(variant, R, false, 'dxF32', d, M, R));
  if (choices.some((c) => c.key !== 'dxF32:narrow' && c.key !== 'dxF32:rb' && c.key !== 'dxF32:wide')) return 1;
  const groups = Math.min(...choices.map((c) => c.grid.x * c.grid.y));
  const widest4 = Math.max(...views.map((d) => d.N / 4));
  return groups >= SPLIT_MIN_GROUPS ? 1 : Math.max(1, Math.min(Math.ceil(SPLIT_MIN_GROUPS / groups), Math.floor(widest4 / SPLIT_MIN_VEC4)));
}

export class LinearBackward {
  /** Include the LoRA path in dX (the forward ran with LoRA on). Default: true when spec.lora. */
  loraEnabled: boolean;
  /** Partial sums the last run split LoRA's dY B into (1: not split; see dybSplitCount). */
  lastDybSplit = 1;
  readonly NW: number;
  private readonly u = new Uint32Array(16);
  private readonly uf = new Float32Array(this.u.buffer);
  private readonly dummy: GPUBuffer;
  private readonly scratchBufs = new Map<'xa' | 'dyb' | 'dybParts', GPUBuffer>();
  private merged: GPUBuffer | null = null;

  private constructor(private readonly rt: GpuRuntime, readonly spec: LinearSpec, readonly variant: BackwardVariant,
    private readonly p: Map<string, Kernel>) {
    this.NW = spec.swiglu ? 2 * spec.N : spec.N;
    this.loraEnabled = Boolean(spec.lora);
    this.dummy = rt.storage(16, `${spec.label} bwd unused binding`);
  }

  /**
   * The f32 weight with this layer's LoRA folded in (W + scale B A, the one the forward ran):
   * while LoRA is on dX is one product with it instead of dY W plus (scale dY B) A; null: the
   * separate path again. The caller keeps it current and owns the buffer (Linear.useMergedWeight).
   */
  useMergedWeight(W: GPUBuffer | null): void {
    const { label, K } = this.spec;
    if (W && (this.spec.weight.format !== 'f32' || !this.spec.lora)) throw new Error(`linear_backward ${label}: a merged weight needs an f32 weight and a LoRA (this layer: ${this.spec.weight.format}, ${this.spec.lora ? 'LoRA' : 'no LoRA'})`);
    if (W) need(`linear_backward ${label}`, 'a merged weight', W, this.NW * K, `[${this.NW}, ${K}]`);
    this.merged = W;
  }

  static async create(rt: GpuRuntime, spec: LinearSpec, variant: BackwardVariant = defaultBackwardVariant(rt)): Promise<LinearBackward> {
    checkSpec(spec);
    const nf4 = spec.weight.format === 'nf4';
    const lora = Boolean(spec.lora);
    const p = new Map<string, Kernel>();
    const add = async (key: string, entry: string, o: Record<string, number> = {}, shader = 'linear_bwd') => {
      p.set(key, await rt.kernel({ shader, entry, overrides: o }));
      // dw_rb / dw_rb16 also without the steps for M % 4 != 0 (TAIL = 0; dwPipelineKey picks them), built at first use.
      if (entry === 'dw_rb' || entry === 'dw_rb16') p.set(`${key}${EVEN}`, await rt.kernel({ shader, entry, overrides: { ...o, TAIL: 0 } }));
    };
    const jobs: Promise<void>[] = [];
    // The tiled entries are always built: rb falls back to them for views not aligned to vec4.
    for (const v of new Set<BackwardVariant>([variant, ...(variant === 'rb16' ? ['rb' as const] : []), 'tiled'])) {
      const wg: Record<string, number> = v !== 'tiled' ? { WG_X: RB_WG, WG_Y: RB_WG } : {};
      jobs.push(add(`dx:${v}`, nf4 ? `dx_nf4_${v}` : `dx_${v}`, wg), add(`dw:${v}`, `dw_${v}`, wg));
      if (v === 'rb16' && nf4) jobs.push(add('dx:rb16:rows32', 'dx_nf4_rb32', wg)); // see mmChoice
      if (v === 'rb16') jobs.push(add('dw:rb16s', 'dw_rb16', { WG_X: RB_WG, WG_Y: 1 })); // see mmChoice
      if (lora) jobs.push(add(`dxF32:${v}`, `dx_${v}`, wg));
    }
    // LoRA's rank-wide products: 16 x 16 tiles on rb16 at ranks 16-64 (mmChoice takes them first), else the narrow 8 x 8 ones.
    const R = spec.lora?.R ?? 0;
    const wide = variant === 'rb16' ? wideWG(R) : null;
    if (wide) {
      const o = { WG_X: wide.x, WG_Y: wide.y };
      jobs.push(add('dxF32:wide', 'dx_rb16', o), add('dw:wide', 'dw_rb16', o));
    } else if (hasNarrow(R, variant)) {
      const nw = narrowWG(R);
      const o = { WG_X: nw.x, WG_Y: nw.y };
      jobs.push(add('dxF32:narrow', 'dx_rb', o), add('dw:narrow', 'dw_rb', o));
    }
    if (lora) {
      const xaShape = variant !== 'tiled' ? { WG_X: 4, WG_Y: 4, TM: 8, TN: 8, SWIGLU: 0 } : { WG_X: 16, WG_Y: 16, TM: 4, TN: 4, SWIGLU: 0 };
      jobs.push(add('dyb', 'lora_dyb'), add('db', 'lora_db'), add('xa', variant !== 'tiled' ? 'lin_rb' : 'lin_tiled', xaShape, 'linear'));
      if (variant !== 'tiled') jobs.push(add('sum', 'sum_split')); // dybSplitCount is 1 for tiled
    }
    if (spec.bias) jobs.push(add('bias', 'bias_grad'));
    await Promise.all(jobs);
    return new LinearBackward(rt, spec, variant, p);
  }

  /**
   * Records the backward of Y = X W^T (+ bias) (+ LoRA) for M rows. dY is [M, NW] (for a swiglu
   * spec: the gradient of the gate|up pre-activations, from SwiGluBackward), X the layer input.
   */
  run(dY: GPUBuffer, X: GPUBuffer, M: number, g: LinearGrads): void {
    const { K, label } = this.spec;
    const NW = this.NW;
    const op = `linear_backward ${label}`;
    need(op, 'dY', dY, M * NW, `[${M}, ${NW}]`);
    need(op, 'X', X, M * K, `[${M}, ${K}]`);
    if (g.dX) need(op, 'dX', g.dX, M * K, `[${M}, ${K}]`);
    const lora = this.spec.lora ?? null;
    if (g.lora && !lora) throw new ShapeError(op, 'a LoRA spec for LoRA gradients', 'a layer without LoRA');
    if (g.full) {
      if (this.spec.weight.format !== 'f32') throw new ShapeError(op, 'an f32 weight for full-mode dW', 'an NF4 weight (frozen base)');
      need(op, 'dW', g.full.dW, NW * K, `[${NW}, ${K}]`);
      if (g.full.dbias) {
        if (!this.spec.bias) throw new ShapeError(op, 'a bias in the spec for dbias', 'a layer without bias');
        need(op, 'dbias', g.full.dbias, NW, `[${NW}]`);
      }
    }
    if (g.lora && !this.loraEnabled) throw new ShapeError(op, 'loraEnabled (the forward ran with LoRA) for LoRA gradients', 'loraEnabled = false');
    // With the merged weight dX = dY (W + scale B A) in one product: dY B only for dA.
    const merged = lora && this.loraEnabled ? this.merged : null;
    let dyb: GPUBuffer | null = null;
    if (lora && this.loraEnabled && (g.lora || !merged)) {
      const { R, scale } = lora;
      const SR = segments(lora) * R;
      const vec = R % 4 === 0; // segments as strided views for the register-blocked kernels
      const views = dybViews(NW, lora.segmentStarts);
      const starts = lora.segmentStarts ?? [];
      const full: DView = { N: NW, ldD: NW, dOff: 0 };
      dyb = this.scratch('dyb', M * SR, `${label} bwd dY B`);
      const layout = loraBackwardLayout(this.variant, R, NW, starts, M);
      const { parts: P, split4 } = layout;
      this.lastDybSplit = P;
      if (vec) {
        const zStride = (M * SR) / 4;
        const out = P > 1 ? this.scratch('dybParts', P * M * SR, `${label} bwd dY B partials`) : dyb;
        if (layout.dybMerged) {
          // One dispatch: partial z covers dY's vec4 columns [z split4, (z + 1) split4), inside one
          // segment, and writes that segment's columns of its slab.
          const u = this.view({ M, ...full, K: R, ld2: SR / 4, alpha: scale, flags: 2 });
          u.set([...segmentFields(lora, NW), split4, zStride], 10);
          this.recordMM('dxF32', full, [dY, lora.B, out], u, M, R, P);
        } else {
          // Every segment's partial z covers the same vec4 columns [z split4, (z + 1) split4) of its
          // own width (a short segment's later partials are zeros), so no split is a sliver of work.
          views.forEach((d, s) => {
            const u = this.view({ M, ...d, K: R, rowOff: d.dOff, ld2: SR / 4, off2: s * R / 4, alpha: scale });
            if (P > 1) u.set([split4, zStride], 14);
            this.recordMM('dxF32', d, [dY, lora.B, out], u, M, R, P);
          });
        }
        if (P > 1) {
          this.u.fill(0);
          this.u.set([zStride, P], 0);
          if (layout.dybMerged) {
            // Segment s's columns sum its own partials: from starts[s - 1] / (4 split4).
            this.u[3] = 2;
            const [sr, r, seg1, seg2] = segmentFields(lora, NW);
            this.u.set([sr, r, ...[seg1, seg2].map((st) => Math.min(P, st / 4 / split4))], 10);
          }
          this.u[15] = zStride;
          this.record('sum', [out, dyb], this.u, { x: Math.ceil(zStride / 64) });
        }
      } else {
        this.record('dyb', [dY, lora.B, dyb], this.loraParams(lora, M, NW), this.flat(M * SR));
      }
      if (g.lora) {
        const { dA, dB } = g.lora;
        need(op, 'dA', dA, SR * K, `[${SR}, ${K}]`);
        need(op, 'dB', dB, NW * R, `[${NW}, ${R}]`);
        const xa = g.xa ?? this.recomputeXA(X, M, lora);
        need(op, 'xa', xa, M * SR, `[${M}, ${SR}]`);
        if (vec && layout.dbMerged) {
          // One dispatch over all NW out rows; each invocation reads its segment's XA columns.
          const u = this.view({ M, ...full, K: R, ld2: SR / 4, alpha: scale, flags: 2 });
          u.set(segmentFields(lora, NW), 10);
          this.recordMM('dw', full, [dY, xa, dB], u, M, R);
        } else if (vec) {
          views.forEach((d, s) => {
            const u = this.view({ M, ...d, K: R, rowOff: d.dOff, ld2: SR / 4, off2: s * R / 4, alpha: scale });
            this.recordMM('dw', d, [dY, xa, dB], u, M, R);
          });
        } else {
          this.record('db', [dY, xa, dB], this.loraParams(lora, M, NW), this.flat(NW * R));
        }
        this.recordMM('dw', { N: SR, ldD: SR, dOff: 0 }, [dyb, X, dA], this.view({ M, N: SR, K }), M, K);
      }
    }
    if (g.dX) {
      const w = this.spec.weight;
      const weights = merged ? [merged] : w.format === 'f32' ? [w.W] : [w.q.codes, w.q.absmax];
      const flags = g.accumulate ? 1 : 0;
      this.recordMM('dx', { N: NW, ldD: NW, dOff: 0 }, [dY, ...weights, g.dX], this.view({ M, N: NW, K, flags }), M, K);
      if (lora && dyb && !merged) {
        const SR = segments(lora) * lora.R;
        this.recordMM('dxF32', { N: SR, ldD: SR, dOff: 0 }, [dyb, lora.A, g.dX], this.view({ M, N: SR, K, flags: 1 }), M, K);
      }
    }
    if (g.full) {
      this.recordMM('dw', { N: NW, ldD: NW, dOff: 0 }, [dY, X, g.full.dW], this.view({ M, N: NW, K }), M, K);
      if (g.full.dbias) this.record('bias', [dY, g.full.dbias], this.view({ M, N: NW, K: 0 }), { x: Math.ceil(NW / 64) });
    }
  }

  /** Releases the scratch buffers this object owns (not the weights or gradients). */
  dispose(): void {
    this.rt.release(this.dummy);
    for (const b of this.scratchBufs.values()) this.rt.release(b);
    this.scratchBufs.clear();
  }

  /** Records a dx_* / dw_* dispatch (`z` workgroups deep: a split dx_rb) with the kernel mmChoice picks. */
  private recordMM(name: 'dx' | 'dxF32' | 'dw', d: DView, bufs: GPUBuffer[], u: Uint32Array, M: number, K: number, z = 1): void {
    const { key, grid } = mmChoice(this.variant, this.spec.lora?.R ?? 0, this.spec.weight.format === 'nf4', name, d, M, K);
    this.record(dwPipelineKey(key, M, this.p), bufs, u, { ...grid, z });
  }

  private record(name: string, bufs: GPUBuffer[], u: Uint32Array, wg: { x: number; y?: number; z?: number }): void {
    const pipeline = this.p.get(name);
    if (!pipeline) throw new Error(`linear_backward ${this.spec.label}: pipeline ${name} not built`);
    this.rt.dispatch(pipeline, bufs, u, wg);
  }

  /** Params of dx_* / dw_* / bias_grad over (views of) whole tensors; see shaders/linear_bwd.wgsl. */
  private view(v: { M: number; N: number; K: number; flags?: number; ldD?: number; dOff?: number; rowOff?: number; ld2?: number; off2?: number; alpha?: number }): Uint32Array {
    this.u.fill(0);
    this.u.set([v.M, v.N, v.K, v.flags ?? 0, v.ldD ?? v.N, v.dOff ?? 0, v.rowOff ?? 0, v.ld2 ?? v.K / 4, v.off2 ?? 0]);
    this.uf[9] = v.alpha ?? 1;
    return this.u;
  }

  /** Params of the scalar lora_dyb / lora_db kernels (any rank). */
  private loraParams(lora: LinearLora, M: number, NW: number): Uint32Array {
    this.u.fill(0);
    this.u.set([M, NW, 0, 0], 0);
    this.u.set(segmentFields(lora, NW), 10);
    this.uf[9] = lora.scale;
    return this.u;
  }

  private flat(n: number): { x: number; y: number } {
    const groups = Math.ceil(n / 64);
    const x = Math.min(groups, MAX_GROUPS);
    return { x, y: Math.ceil(groups / x) };
  }

  private scratch(kind: 'xa' | 'dyb' | 'dybParts', floats: number, label: string): GPUBuffer {
    const cur = this.scratchBufs.get(kind);
    if (cur && cur.size >= floats * 4) return cur;
    if (cur) this.rt.release(cur);
    const b = this.rt.storage(Math.max(16, floats * 4), label);
    this.scratchBufs.set(kind, b);
    return b;
  }

  private recomputeXA(X: GPUBuffer, M: number, lora: LinearLora): GPUBuffer {
    const SR = segments(lora) * lora.R;
    const xa = this.scratch('xa', M * SR, `${this.spec.label} bwd X A^T`);
    // The forward kernel's Params (shaders/linear.wgsl): M, N, K, flags, R, xaStride, seg1, seg2.
    const u = new Uint32Array([M, SR, this.spec.K, 0, 0, 0, SR, SR, 0, 0, 0, 0]);
    const tile = this.variant !== 'tiled' ? { TM: 8, TN: 8, WG: 4 } : { TM: 4, TN: 4, WG: 16 };
    const grid = { x: Math.ceil(Math.ceil(SR / tile.TN) / tile.WG), y: Math.ceil(M / (tile.TM * tile.WG)) };
    this.record('xa', [X, lora.A, this.dummy, this.dummy, this.dummy, xa], u, grid);
    return xa;
  }
}

/** Suffix of the dw_rb / dw_rb16 pipelines built with TAIL = false. */
const EVEN = ':even';

/**
 * The pipeline of a dw_* dispatch over M rows: at M % 4 == 0 the register-blocked dw kernels'
 * form without their two-row and one-row steps (SwiftShader runs every block of an `if` whether a
 * lane takes it or not, and those steps cost about a tenth of the kernel at M = 64), else `key`.
 */
export function dwPipelineKey(key: string, M: number, p: { has(key: string): boolean }): string {
  return M % 4 === 0 && p.has(`${key}${EVEN}`) ? `${key}${EVEN}` : key;
}

function segments(lora: LinearLora): number {
  return 1 + (lora.segmentStarts?.length ?? 0);
}

/** Params fields 10-13 (SR, R, seg1, seg2) of a LoRA over NW out rows: the segment starts, NW past the last. */
function segmentFields(lora: LinearLora, NW: number): number[] {
  const st = lora.segmentStarts ?? [];
  return [segments(lora) * lora.R, lora.R, st[0] ?? NW, st[1] ?? NW];
}

function need(op: string, name: string, b: GPUBuffer, floats: number, shape: string): void {
  if (b.size < floats * 4) throw new ShapeError(op, `${name} of ${shape} f32 (${floats * 4} bytes)`, `${b.size} bytes (${b.label})`);
}

function checkSpec(spec: LinearSpec): void {
  const op = `linear_backward ${spec.label}`;
  const NW = spec.swiglu ? 2 * spec.N : spec.N;
  const { K, weight } = spec;
  if (weight.format === 'nf4') {
    if (K % 64 !== 0) throw new ShapeError(op, 'K (in features) a multiple of 64 for NF4 weights', `K=${K}`);
    if (weight.q.rows !== NW || weight.q.cols !== K) throw new ShapeError(op, `NF4 weight of [${NW}, ${K}]`, `[${weight.q.rows}, ${weight.q.cols}]`);
  } else {
    if (K % 4 !== 0) throw new ShapeError(op, 'K (in features) a multiple of 4', `K=${K}`);
    need(op, 'W', weight.W, NW * K, `[${NW}, ${K}]`);
  }
  if (spec.lora) {
    const S = segments(spec.lora);
    if (S > 3) throw new ShapeError(op, 'at most 3 LoRA segments (2 segment starts)', `${S}`);
    need(op, 'LoRA A', spec.lora.A, S * spec.lora.R * K, `[${S * spec.lora.R}, ${K}]`);
    need(op, 'LoRA B', spec.lora.B, NW * spec.lora.R, `[${NW}, ${spec.lora.R}]`);
  }
}
