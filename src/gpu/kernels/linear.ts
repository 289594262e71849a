// Launcher for every projection of the model: Y (=|+=) X W^T + bias + scale * (X A^T) B^T, with
// W in f32 (shaders/linear.wgsl) or NF4 (shaders/matmul_nf4.wgsl), optional fused SwiGLU, LoRA
// switchable at run time (Linear.loraEnabled; disabled = the reference policy for RL).
// At most two dispatches: X A^T into a small [M, S*R] scratch, then one fused kernel.
// CPU twins: src/reference/{linear,swiglu,nf4}.ts. Tested by tests/unit/gpu/linear-forward.test.ts.
import type { GpuRuntime } from '../runtime';
import type { Kernel, KernelSpec } from '../pipelines';
import { ShapeError } from '../errors';
import { isCpuAdapter } from '../device';
import type { Nf4Weight } from './nf4';

/**
 * Kernel variants: rb* register-blocked (CPU adapters), tiled (GPUs, large M), gemv, dec and sg
 * (M <= 8; sg reduces with subgroup operations and needs the `subgroups` feature).
 */
export type LinearVariant = 'rb' | 'rb8' | 'rb8w' | 'rb16' | 'rb1' | 'tiled' | 'gemv' | 'dec' | 'sg';
export const LINEAR_VARIANTS: readonly LinearVariant[] = ['rb', 'rb8', 'rb8w', 'rb16', 'rb1', 'tiled', 'gemv', 'dec', 'sg'];
/** Decode candidates on any adapter; decodeCandidates adds sg where subgroups exist, and rb16 at 2-8 rows. */
export const DECODE_CANDIDATES: readonly LinearVariant[] = ['dec', 'rb1', 'gemv', 'rb', 'rb8'];
/** Every variant the decode1 bucket may run (DECODE_CANDIDATES and sg). */
export const DECODE_VARIANTS: readonly LinearVariant[] = [...DECODE_CANDIDATES, 'sg'];
/**
 * Every variant the decode8 bucket may run: the decode ones and rb16, whose 16-row tiles half
 * idle at 8 rows still beat dec at the default agent's fused gate|up (K = 64, 2 x 192 columns:
 * 1.2-1.3x on SwiftShader, where dec ran at 77-81 % of the best variant).
 */
export const DECODE8_VARIANTS: readonly LinearVariant[] = [...DECODE_VARIANTS, 'rb16'];
export const PREFILL_CANDIDATES: readonly LinearVariant[] = ['rb', 'rb8', 'rb8w', 'rb16', 'tiled', 'dec'];
/** Rows at or below which the decode variant is used (gemv handles at most 8). */
export const DECODE_MAX_M = 8;
/** Rows from which the `large` variant is used (training passes, long prefills). */
export const LARGE_MIN_M = 256;

/** Variants that need a device feature this one lacks are left out (sg: `subgroups`). */
export function linearVariants(rt: GpuRuntime): LinearVariant[] {
  return LINEAR_VARIANTS.filter((v) => v !== 'sg' || rt.hasFeature('subgroups'));
}

/**
 * Variants designed for GPUs (workgroup-memory tiles and reductions). On a CPU adapter they run
 * 5-100x slower than the register-blocked ones at every shape measured (`bench matmul`: gemv
 * 0.01-0.2 GFLOPS against dec's 0.2-1.3, tiled 0.23 against rb's 1.4 at 512^3), so its tuner does
 * not spend time compiling and timing them (about 4 s per shape class and format).
 */
const GPU_ONLY: readonly LinearVariant[] = ['gemv', 'tiled'];

function forAdapter(rt: GpuRuntime, list: readonly LinearVariant[]): readonly LinearVariant[] {
  return isCpuAdapter(rt.report) ? list.filter((v) => !GPU_ONLY.includes(v)) : list;
}

/** A decode bucket's tuning candidates on this device: DECODE_CANDIDATES, sg with subgroups and
 * rb16 at 2-8 rows (decode8), without the GPU-only variants on a CPU adapter. */
export function decodeCandidates(rt: GpuRuntime, bucket: 'decode1' | 'decode8' = 'decode1'): readonly LinearVariant[] {
  return forAdapter(rt, decodeVariants(bucket).filter((v) => v !== 'sg' || rt.hasFeature('subgroups')));
}

/** Every variant a decode bucket may run on any device (DECODE_VARIANTS, DECODE8_VARIANTS). */
export function decodeVariants(bucket: 'decode1' | 'decode8'): readonly LinearVariant[] {
  return bucket === 'decode8' ? DECODE8_VARIANTS : DECODE_VARIANTS;
}

/** The prefill / large buckets' tuning candidates on this device (no tiled on a CPU adapter). */
export function prefillCandidates(rt: GpuRuntime): readonly LinearVariant[] {
  return forAdapter(rt, PREFILL_CANDIDATES);
}

/**
 * Row-count buckets with a variant each: M = 1 (one sequence decoding), 1 < M <= 8 (batched
 * decode), 8 < M < 256, M >= 256. One row and eight want different kernels on some shapes (a
 * CPU adapter at a narrow k/v projection: dec at one row, rb8 at eight), hence two decode buckets.
 */
export type MBucket = 'decode1' | 'decode8' | 'prefill' | 'large';
export const M_BUCKETS: readonly MBucket[] = ['decode1', 'decode8', 'prefill', 'large'];

export function mBucket(M: number): MBucket {
  return M <= 1 ? 'decode1' : M <= DECODE_MAX_M ? 'decode8' : M < LARGE_MIN_M ? 'prefill' : 'large';
}

/** Size class of in or out features: the power of two at or above n. */
function sizeClass(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, n)));
}

/**
 * Shape class of a weight [NW, K] for tuning: `k<K>n<NW>`, each rounded up to a power of two, and
 * `s` with the fused SwiGLU (half the outputs, other grids): the default agent's five projections
 * are a class each. Coarser classes (<= 256, <= 2048, above), or fused and plain gate|up in one
 * class, let a shape run another one's winner at 60-78 % of its best (`bench matmul`: the agent's
 * LM head at 8 rows ran rb8, tuned on gate|up, at 61 % of dec; docs/speed.md).
 */
export function shapeClass(K: number, NW: number, swiglu = false): string {
  return `k${sizeClass(K)}n${sizeClass(NW)}${swiglu ? 's' : ''}`;
}

interface VariantShape {
  kind: 'rb' | 'rb8' | 'rb16' | 'tiled' | 'gemv' | 'dec' | 'sg'; TM: number; TN: number; WG_X: number; WG_Y: number;
}
const SHAPES: Record<LinearVariant, VariantShape> = {
  rb: { kind: 'rb', TM: 4, TN: 4, WG_X: 8, WG_Y: 8 },
  // f32: lin_rb8 (named registers); NF4: nf4_rb with an 8 x 8 tile.
  rb8: { kind: 'rb8', TM: 8, TN: 8, WG_X: 4, WG_Y: 4 },
  // The same tile in workgroups of 8 x 8 (64 x 64 outputs): a quarter of the workgroups, which
  // SwiftShader runs one per CPU thread; faster there at K = 64 with many rows (training).
  rb8w: { kind: 'rb8', TM: 8, TN: 8, WG_X: 8, WG_Y: 8 },
  // f32: lin_rb16, 16 x 16 outputs per invocation, workgroups of 4 invocations (one SIMD group
  // on a CPU adapter) along the columns: at 9-40 rows and 64 outputs 4 x 4 made one workgroup,
  // one CPU thread (1.1-1.9x there; the same at Qwen shapes). NF4: nf4_dec16, the same tile in
  // workgroups of 16 invocations along the columns (NF4_RB16).
  rb16: { kind: 'rb16', TM: 16, TN: 16, WG_X: 4, WG_Y: 1 },
  rb1: { kind: 'rb', TM: 1, TN: 8, WG_X: 64, WG_Y: 1 },
  tiled: { kind: 'tiled', TM: 4, TN: 4, WG_X: 16, WG_Y: 16 },
  gemv: { kind: 'gemv', TM: 1, TN: 2, WG_X: 32, WG_Y: 8 },
  // 8 columns x MR rows per invocation, MR a compile-time 1, 2, 4 or 8 (decodeRows): each weight
  // read (and NF4 word unpacked) once per step for every row. 16 invocations per workgroup keep
  // both workgroups of a narrow projection (k/v: 128 columns) busy on a 2-core CPU adapter.
  dec: { kind: 'dec', TM: 8, TN: 8, WG_X: 16, WG_Y: 1 },
  // 4 columns x MR rows per workgroup of one subgroup (WG_X set per device: sgWidth); K split
  // across the subgroup's invocations, summed with subgroupAdd.
  sg: { kind: 'sg', TM: 8, TN: 4, WG_X: 4, WG_Y: 1 },
};

/** Workgroup width of the sg variant: the adapter's smallest subgroup (4, the least WebGPU allows,
 * when the adapter does not say), at most 64, so that a workgroup is one subgroup. */
export function sgWidth(rt: GpuRuntime): number {
  const min = rt.report.subgroupMinSize ?? 4;
  return 2 ** Math.floor(Math.log2(Math.min(64, Math.max(4, min))));
}

/** Rows per invocation of the dec variant for M rows: 1, 2, 4 or 8 (M > 8 runs in blocks of 8). */
export function decodeRows(M: number): number {
  return M <= 1 ? 1 : M <= 2 ? 2 : M <= 4 ? 4 : 8;
}
/**
 * X A^T (R to 3 R columns) under the register-blocked variants: lin_rb8 in a workgroup with as many
 * invocations across as the columns need (at most 4) and the rest down, so that the four lanes of
 * a CPU adapter's SIMD group (adjacent invocations) all have columns; the variant's own shape
 * (rb16: 16 columns per invocation, four across) left 3 of 4 lanes idle at R = 8.
 */
function narrowXA(SR: number): VariantShape {
  const x = Math.min(4, Math.ceil(SR / 8));
  return { kind: 'rb8', TM: 8, TN: 8, WG_X: x, WG_Y: Math.floor(16 / x) };
}
const REGISTER_BLOCKED: readonly VariantShape['kind'][] = ['rb', 'rb8', 'rb16'];

/**
 * f32 lin_rb8 (rb8, dec, narrowXA) reads its workgroup's layout from flags bits 8-15
 * (shaders/linear.wgsl), so every layout of at most RB8_FLAT invocations runs one pipeline of
 * RB8_FLAT across, with MR 8 spelled out as dec's eight-row pipeline has it: one compile where
 * there were one per layout (4 x 4, 2 x 8, 3 x 5, 1 x 16, 16 x 1; ~0.3 s each on SwiftShader).
 * SwiGLU too is read from the flags there (runFlags, shapeOverrides).
 */
const RB8_FLAT = 16;
function flatRb8(format: 'f32' | 'nf4', s: VariantShape): boolean {
  return format === 'f32' && (s.kind === 'rb8' || s.kind === 'dec') && s.WG_X * s.WG_Y <= RB8_FLAT;
}
/**
 * The flags bits a flat lin_rb8 pipeline runs by (0 for other shapes): the shape's layout (bits
 * 8-15) and, for a SwiGLU layer, bit 4: the pipeline is compiled with SWIGLU_FLAG instead of
 * SWIGLU, so plain and SwiGLU layers share it too (shaders/linear.wgsl swiglu()).
 */
function runFlags(format: 'f32' | 'nf4', s: VariantShape, swiglu: boolean): number {
  return flatRb8(format, s) ? (s.WG_X << 8) | (swiglu ? 16 : 0) : 0;
}
/**
 * The override constants a shape compiles with (mr rows per block for dec / sg, 0 otherwise): a
 * flat lin_rb8 shape as RB8_FLAT x 1 with MR spelled out and SwiGLU read from the flags; any other
 * as itself with SWIGLU compiled in.
 */
function shapeOverrides(format: 'f32' | 'nf4', s: VariantShape, mr: number, swiglu: boolean): Record<string, number> {
  if (flatRb8(format, s)) return { WG_X: RB8_FLAT, WG_Y: 1, TM: s.TM, TN: s.TN, MR: mr || 8, SWIGLU: 0, SWIGLU_FLAG: 1 };
  return { WG_X: s.WG_X, WG_Y: s.WG_Y, TM: s.TM, TN: s.TN, ...(mr ? { MR: mr } : {}), SWIGLU: swiglu ? 1 : 0 };
}

/** The rb16 variant's shapes with NF4 weights: nf4_dec16, and nf4_dec32 (see nf4TileRows). */
const NF4_RB16: VariantShape = { kind: 'rb16', TM: 16, TN: 16, WG_X: 16, WG_Y: 1 };
const NF4_RB32: VariantShape = { ...NF4_RB16, TM: 32 };

/**
 * Rows per invocation of the NF4 rb16 kernels at M rows (the forward nf4_dec16 / nf4_dec32, dX
 * dx_nf4_rb16 / dx_nf4_rb32, generated by scripts/gen-nf4-tiles.ts). Each code unpacked feeds
 * twice the rows at 32 (1.2-1.25x per row on SwiftShader), so 32 wherever the rows its tiles
 * cover, at 4/5 of a 16-row tile's cost each, cost no more than the 16-row tiles' rows: every M
 * but 1-16 and 33-48 (at M = 65 and 80, with up to 31 rows of the last tile idle, the two
 * measured within 5 %). Every row sums the same terms in the same order at either height, so the
 * outputs do not depend on the choice.
 */
export function nf4TileRows(M: number): 16 | 32 {
  return 4 * 32 * Math.ceil(M / 32) <= 5 * 16 * Math.ceil(M / 16) ? 32 : 16;
}

/**
 * Columns per invocation of the NF4 dec variant on a layer of NW weight rows: nf4_dec's 8, or the
 * wide nf4_dec_c32 / nf4_dec_c64 (scripts/gen-nf4-tiles.ts: the same outputs bit for bit), where
 * each word of X and each row's X load feed 4-8x the columns. The widest whose invocations still
 * spread over the cores of a CPU adapter (workgroups of 16), as measured on SwiftShader (2 cores):
 * 64 from 8,192 rows (128 invocations; the Qwen-sized head, 32,768 x 896: one row 65 -> 55 ms
 * against 32, eight 103 -> 94 ms; at 896 rows its 14 invocations, one workgroup, ran 1.6-2x slower
 * than 32), 32 from 768 rows (24 invocations; Qwen's 896-row q/o and down: 1.05-1.27x nf4_dec at
 * one row, 1.4-1.65x at eight). Narrower layers keep nf4_dec, and so do layers of fewer than
 * DEC_WIDE_MIN_WEIGHTS weights (a small model's 1,024-row head at K = 64 runs in a fraction of a
 * millisecond either way, while SwiftShader takes 1-6 s to compile each wide pipeline).
 */
export function nf4DecodeWidth(NW: number, K: number): 8 | 32 | 64 {
  if (NW * K < DEC_WIDE_MIN_WEIGHTS) return 8;
  return NW >= 64 * 128 ? 64 : NW >= 32 * 24 ? 32 : 8;
}
const DEC_WIDE_MIN_WEIGHTS = 1 << 19;

export type LinearWeight = { format: 'f32'; W: GPUBuffer } | { format: 'nf4'; q: Nf4Weight };

export interface LinearLora {
  /** [S*R, K]: the A matrices of the S segments stacked (S = 1 unless the projection is fused). */
  A: GPUBuffer;
  /** [NW, R]: B of each segment, stacked along out like W. */
  B: GPUBuffer;
  R: number;
  /** alpha / r, or alpha / sqrt(r) with rsLoRA (model/types.ts loraScale). */
  scale: number;
  /** W rows where LoRA segments 1 and 2 start (fused q|k|v: [NQ, NQ + NKV]). Default: one segment. */
  segmentStarts?: number[];
}

export interface LinearSpec {
  label: string;
  /** In features. */
  K: number;
  /** Output columns (I when swiglu). W has NW = N rows, or 2N (gate rows then up rows) with swiglu. */
  N: number;
  weight: LinearWeight;
  /** [NW] f32, or null. */
  bias?: GPUBuffer | null;
  /** Y = silu(X Wg^T + ...) * (X Wu^T + ...), with W = [Wg; Wu] concatenated along out. */
  swiglu?: boolean;
  lora?: LinearLora | null;
  /**
   * The runs add into Y (o_proj and down_proj: the residual add). f32 rb16's whole-tile pipeline
   * is built for this mode (its stores fixed at compile time); a run the other way builds its own
   * on first use.
   */
  accumulate?: boolean;
}

/** What Linear.runSample needs of the draw (Sampler.epilogue in src/gpu/kernels/sampling.ts). */
export interface SampleEpilogue {
  /** 1 / temperature (1 when greedy). */
  invT: number;
  seed: number;
  step: number;
  greedy: boolean;
  /** The draw's row of X's row 0 (default 0): the noise is keyed by the row of the whole draw. */
  row0?: number;
  /** The draw's per-row noise keys ([2 * rows] f32 pairs, rowKeyPairs), bound in bias's place; null: (row, step). */
  keys?: GPUBuffer | null;
}

/** The variants the LM head fuses sampling into (Linear.runSample), with the columns per partial. */
export const SAMPLE_GROUP: Partial<Record<LinearVariant, number>> = { dec: 8, gemv: 8, sg: 4 };

/** Bytes of the partials Linear.runSample writes for M rows of N columns: [M, ceil(N / group)] vec4. */
export function samplePartialBytes(M: number, N: number, group = 8): number {
  return M * Math.ceil(N / group) * 16;
}

export interface LinearRunOptions {
  /** Y += result (residual add fused into o_proj / down_proj). Default: Y = result. */
  accumulate?: boolean;
  /** Overrides the variant chosen for this M. */
  variant?: LinearVariant;
  /** [M, S*R] scratch for X A^T; default: one owned by this Linear, grown as needed. */
  xa?: GPUBuffer;
}

/** Kernel choices of one Linear that the tuner does not make (tests and benchmarks). */
export interface LinearOptions {
  /** nf4_sg unpacks codes through the workgroup's code-pair table (default: where the subgroup
   * is at least 16 wide, so filling the table costs each invocation at most 16 reads). */
  sgPairs?: boolean;
  /** Columns per invocation of NF4 dec (8, 32 or 64; default nf4DecodeWidth): tests and benches. */
  decWidth?: 8 | 32 | 64;
}

/** The variant per row bucket (see mBucket). */
export type LinearVariantChoice = Record<MBucket, LinearVariant>;

/** Variants compiled once per rows-per-block count MR (decodeRows). */
const PER_ROWS: readonly VariantShape['kind'][] = ['dec', 'sg'];

/** Pipeline map key of a variant at M rows (dec and sg compile one pipeline per row count). */
function pipelineKey(variant: LinearVariant, M: number): string {
  return PER_ROWS.includes(SHAPES[variant].kind) ? `${variant}:${decodeRows(M)}` : variant;
}

function entry(format: 'f32' | 'nf4', kind: VariantShape['kind'], rows = 16, decWidth = 8): { shader: string; entry: string } {
  // The subgroup kernels live in their own files (`enable subgroups`).
  if (kind === 'sg') return format === 'f32' ? { shader: 'linear_sg', entry: 'lin_sg' } : { shader: 'matmul_nf4_sg', entry: 'nf4_sg' };
  // f32 decode is lin_rb8 with fewer rows (MR); NF4 has its own nf4_dec.
  if (format === 'f32') return { shader: 'linear', entry: `lin_${kind === 'dec' ? 'rb8' : kind}` };
  if (kind === 'rb16') return { shader: 'matmul_nf4', entry: `nf4_dec${rows}` };
  if (kind === 'dec' && decWidth > 8) return { shader: 'matmul_nf4', entry: `nf4_dec_c${decWidth}` };
  return { shader: 'matmul_nf4', entry: `nf4_${kind === 'rb8' ? 'rb' : kind}` };
}

/**
 * Variants used where nothing is tuned (the studio's engine worker, `--tune false`). On CPU
 * adapters the measured typical winners (`bench matmul` at the agent's, stories260K's and Qwen's
 * shapes): dec at 1-8 rows (1.5-4x rb1, the old default); beyond, rb16 with f32 weights (1.1-1.3x
 * rb8) and dec with NF4 (2-2.5x rb8, within ~10 % of nf4_dec16 at these shapes, whose pipelines
 * take ~5 s to compile on SwiftShader). Elsewhere the GPU designs: gemv and tiled.
 */
export function defaultVariants(rt: GpuRuntime, format: 'f32' | 'nf4' = 'f32'): LinearVariantChoice {
  if (!isCpuAdapter(rt.report)) return { decode1: 'gemv', decode8: 'gemv', prefill: 'tiled', large: 'tiled' };
  const many: LinearVariant = format === 'f32' ? 'rb16' : 'dec';
  return { decode1: 'dec', decode8: 'dec', prefill: many, large: many };
}

export class Linear {
  /** LoRA on or off for the next runs; no recompiling or reallocation either way. */
  loraEnabled: boolean;
  readonly NW: number;
  /** NF4 dec's shape on this layer: TN = its columns per invocation (nf4DecodeWidth unless the options say). */
  private readonly nf4Dec: VariantShape;
  private readonly kernels = new Map<string, Kernel>();
  /** Variants prepare() has loaded (dec / sg: their other row counts are asked for on first use). */
  private readonly prepared = new Set<LinearVariant>();
  private readonly uniforms = new Uint32Array(12);
  private readonly uniformsF32 = new Float32Array(this.uniforms.buffer);
  private readonly xaUniforms = new Uint32Array(12);
  private readonly dummy: GPUBuffer;
  private xaScratch: GPUBuffer | null = null;
  private merged: GPUBuffer | null = null;

  private constructor(private readonly rt: GpuRuntime, readonly spec: LinearSpec, public variants: LinearVariantChoice, private readonly options: LinearOptions) {
    this.NW = spec.swiglu ? 2 * spec.N : spec.N;
    this.nf4Dec = { ...SHAPES.dec, TN: options.decWidth ?? nf4DecodeWidth(this.NW, spec.K) };
    this.loraEnabled = Boolean(spec.lora);
    this.dummy = rt.storage(16, `${spec.label} unused binding`);
  }

  /** Builds the layer and loads the kernels of the chosen (or default) variants (pipelines built on first use). */
  static async create(rt: GpuRuntime, spec: LinearSpec, variants?: LinearVariantChoice, options: LinearOptions = {}): Promise<Linear> {
    const lin = new Linear(rt, spec, variants ?? defaultVariants(rt, spec.weight.format), options);
    lin.checkSpec();
    for (const b of M_BUCKETS) await lin.prepare(lin.variants[b]);
    return lin;
  }

  get format(): 'f32' | 'nf4' {
    return this.spec.weight.format;
  }

  /**
   * The f32 weight with this layer's LoRA folded in (W + scale B A: LoraMerge), run instead of W
   * plus the LoRA path while LoRA is on; null: the separate path again. The caller keeps it current
   * (the adapter changes with every update) and owns the buffer.
   */
  useMergedWeight(W: GPUBuffer | null): void {
    const { label, K } = this.spec;
    if (W && (this.spec.weight.format !== 'f32' || !this.spec.lora)) throw new Error(`linear ${label}: a merged weight needs an f32 weight and a LoRA (this layer: ${this.spec.weight.format}, ${this.spec.lora ? 'LoRA' : 'no LoRA'})`);
    if (W && W.size < this.NW * K * 4) throw new ShapeError(`linear ${label}`, `a merged weight of [${this.NW}, ${K}] f32 (${this.NW * K * 4} bytes)`, `${W.size} bytes (${W.label})`);
    this.merged = W;
  }

  /**
   * Loads a variant's kernels (needed before run uses it): the layer's, and with LoRA the plain f32
   * one that computes X A^T (the variant's own, or narrowXA's for the register-blocked ones). Their
   * pipelines are built on first dispatch, or here with `build` (the tuner: a candidate that does not
   * build on this device then rejects here). dec and sg have one pipeline per rows-per-block count
   * (decodeRows): with `M` the one M rows run, else the one-row pipeline; the others are asked for
   * when a run first needs them.
   */
  async prepare(variant: LinearVariant, M = 1, build = false): Promise<void> {
    if (variant === 'sg' && !this.rt.hasFeature('subgroups')) {
      throw new Error(`linear ${this.spec.label}: the sg variant needs the WebGPU 'subgroups' feature, which this device lacks; use dec or gemv`);
    }
    const kind = this.base(variant).kind, mr = PER_ROWS.includes(kind) ? decodeRows(M) : 0;
    const key = this.pipelineKey(variant, M);
    const get = (spec: KernelSpec) => (build ? this.rt.builtKernel(spec) : this.rt.kernel(spec));
    // The runtime caches kernels by key: asking again returns the same one (built, with `build`).
    this.kernels.set(`main:${key}`, await get(this.kernelSpec(variant, 'main', mr, false, this.tileRows(variant, M))));
    const acc = Boolean(this.spec.accumulate);
    if (this.splitsWhole(variant)) this.kernels.set(`whole:${key}:${acc}`, await get(this.kernelSpec(variant, 'whole', mr, acc)));
    if (this.spec.lora && !REGISTER_BLOCKED.includes(kind)) this.kernels.set(`xa:${key}`, await get(this.kernelSpec(variant, 'xa', mr)));
    if (this.spec.lora && REGISTER_BLOCKED.includes(kind)) this.kernels.set('xa:narrow', await get(this.kernelSpec(variant, 'narrow', 0)));
    this.prepared.add(variant);
  }

  /**
   * f32 rb16 has two pipelines (shaders/linear.wgsl WHOLE): a lean one for layers without LoRA
   * whose column groups are whole (every row tile, rows past M clamped), lean enough to keep its
   * sums in registers (1.4x at K = 64), and the general one for the rest.
   */
  private splitsWhole(variant: LinearVariant): boolean {
    return this.format === 'f32' && this.base(variant).kind === 'rb16';
  }

  /** The kernel of one of this layer's pipelines: the layer's (main; whole: its whole-tile half,
   * see splitsWhole, adding into Y with `accumulate`), LoRA's X A^T in the variant's own shape
   * (xa) or narrowXA's (narrow); mr rows per block for dec / sg (0 otherwise). */
  private kernelSpec(variant: LinearVariant, which: 'main' | 'whole' | 'xa' | 'narrow', mr: number, accumulate = false, rows = 16): KernelSpec {
    if (which === 'narrow') {
      const n = narrowXA(this.segments(this.spec.lora!) * this.spec.lora!.R);
      return { ...entry('f32', n.kind), overrides: shapeOverrides('f32', n, mr, false) };
    }
    const s = this.base(variant);
    if (which === 'xa') return { ...entry('f32', s.kind), overrides: shapeOverrides('f32', s, mr, false) };
    const m = this.shape(variant);
    // nf4_sg unpacks through the workgroup's code-pair table only where filling it is cheap.
    const pairs: Record<string, number> = s.kind === 'sg' && this.format === 'nf4' ? { PAIRS: (this.options.sgPairs ?? m.WG_X >= 16) ? 1 : 0 } : {};
    const whole: Record<string, number> = which === 'whole' ? { WHOLE: 1, ACCUM: accumulate ? 1 : 0 } : {};
    return { ...entry(this.format, s.kind, rows, m.TN), overrides: { ...shapeOverrides(this.format, m, mr, Boolean(this.spec.swiglu)), ...pairs, ...whole } };
  }

  /** A prepared variant's kernel at M rows, a dec / sg one for a new row count (or NF4 rb16's for a new tile height) asked for now. */
  private kernelFor(variant: LinearVariant, which: 'main' | 'xa', M: number): Kernel | undefined {
    // X A^T runs on rb16 only through the narrow pipeline (recordXA), so `xa` here always has 16.
    const rows = this.tileRows(variant, M);
    const k = `${which}:${this.pipelineKey(variant, M)}`;
    let p = this.kernels.get(k);
    const perRows = PER_ROWS.includes(this.base(variant).kind);
    if (!p && this.prepared.has(variant) && (perRows || rows !== 16)) {
      p = this.rt.kernelNow(this.kernelSpec(variant, which, perRows ? decodeRows(M) : 0, false, rows)) ?? undefined;
      if (p) this.kernels.set(k, p);
    }
    return p;
  }

  /** The whole-tile pipeline of a prepared variant for this store mode, built now if the layer's runs went the other way so far. */
  private wholeKernel(variant: LinearVariant, M: number, accumulate: boolean): Kernel | undefined {
    const k = `whole:${pipelineKey(variant, M)}:${accumulate}`;
    let p = this.kernels.get(k);
    if (!p && this.prepared.has(variant)) {
      p = this.rt.kernelNow(this.kernelSpec(variant, 'whole', PER_ROWS.includes(this.base(variant).kind) ? decodeRows(M) : 0, accumulate)) ?? undefined;
      if (p) this.kernels.set(k, p);
    }
    return p;
  }

  variantFor(M: number): LinearVariant {
    return this.variants[mBucket(M)];
  }

  /** Records Y[M, N] (=|+=) X[M, K] W^T (+ bias) (+ LoRA) into the runtime's current step. */
  run(X: GPUBuffer, Y: GPUBuffer, M: number, opts: LinearRunOptions = {}): void {
    const { K, N, label } = this.spec;
    const op = `linear ${label}`;
    if (X.size < M * K * 4) throw new ShapeError(op, `X of [${M}, ${K}] f32 (${M * K * 4} bytes)`, `${X.size} bytes (${X.label})`);
    if (Y.size < M * N * 4) throw new ShapeError(op, `Y of [${M}, ${N}] f32 (${M * N * 4} bytes)`, `${Y.size} bytes (${Y.label})`);
    const variant = opts.variant ?? this.variantFor(M);
    if (variant === 'gemv' && M > DECODE_MAX_M) throw new ShapeError(op, `M <= ${DECODE_MAX_M} for the gemv variant`, `M=${M}`);
    const pipeline = this.kernelFor(variant, 'main', M);
    if (!pipeline) throw new Error(`${op}: variant ${variant} is not prepared; await linear.prepare('${variant}') first`);
    // The merged weight replaces W plus the LoRA path while LoRA is on; a caller asking for X A^T
    // (training's forward: the backward's dB reads it) gets it from its own dispatch.
    const merged = this.loraEnabled ? this.merged : null;
    const lora = this.spec.lora && this.loraEnabled && !merged ? this.spec.lora : null;
    let xa = this.dummy;
    if (lora) xa = this.recordXA(X, M, lora, opts.xa, variant);
    else if (merged && opts.xa && this.spec.lora) this.recordXA(X, M, this.spec.lora, opts.xa, variant);
    const bias = this.spec.bias ?? null;
    const S = lora ? this.segments(lora) : 1;
    const starts = lora?.segmentStarts ?? [];
    const flags = (bias ? 1 : 0) | (lora ? 2 : 0) | (opts.accumulate ? 4 : 0) | runFlags(this.format, this.shape(variant), Boolean(this.spec.swiglu));
    this.uniforms.set([M, N, K, flags, lora?.R ?? 0, S * (lora?.R ?? 0), starts[0] ?? this.NW, starts[1] ?? this.NW, 0, 0, 0, 0]);
    this.uniformsF32[8] = lora?.scale ?? 0;
    const w = this.spec.weight;
    const weights = merged ? [merged] : w.format === 'f32' ? [w.W] : [w.q.codes, w.q.absmax];
    const buffers = [X, ...weights, bias ?? this.dummy, xa, lora?.B ?? this.dummy, Y];
    const grid = this.grid(this.shape(variant, M), M, N, Boolean(this.spec.swiglu));
    if (!this.splitsWhole(variant)) {
      this.rt.dispatch(pipeline, buffers, this.uniforms, grid);
      return;
    }
    // Without LoRA and with whole column groups the lean pipeline takes every tile (rows past M
    // included: put8_row in shaders/linear.wgsl); else the other one. A partial column group stays
    // out of the lean one: the lanes of a SIMD group are adjacent columns.
    const cols = this.spec.swiglu ? 8 : 16;
    const whole = !lora && N % cols === 0 ? this.wholeKernel(variant, M, Boolean(opts.accumulate)) : pipeline;
    if (!whole) throw new Error(`${op}: variant ${variant} is not prepared; await linear.prepare('${variant}') first`);
    this.rt.dispatch(whole, buffers, this.uniforms, grid);
  }

  /**
   * Records the LM head fused with sampling: `variant` (default the one chosen for M rows; dec,
   * gemv or sg: SAMPLE_GROUP, the others do not fuse), compiled with SAMPLE (shaders/linear_sample.wgsl),
   * writes, instead of Y = X W^T, the per-(row, group of columns) partials `part`
   * [M, ceil(N / group)] vec4 that Sampler.runFused reduces to tokens. The logits are those of
   * run() with the same variant bit for bit. Plain layers only (no bias, LoRA or SwiGLU).
   * Returns the group (columns per partial) for Sampler.runFused.
   */
  runSample(X: GPUBuffer, part: GPUBuffer, M: number, s: SampleEpilogue, variant = this.variantFor(M)): number {
    const { K, N, label, bias, swiglu } = this.spec;
    const op = `linear ${label} (fused sampling)`;
    const group = SAMPLE_GROUP[variant];
    if (group === undefined) throw new Error(`${op}: the ${variant} variant does not fuse sampling (only ${Object.keys(SAMPLE_GROUP).join(', ')} do); draw from its logits`);
    if (bias || swiglu || (this.spec.lora && this.loraEnabled)) throw new Error(`${op}: only a plain layer (no bias, LoRA or SwiGLU) fuses sampling`);
    if (variant === 'gemv' && M > DECODE_MAX_M) throw new ShapeError(op, `M <= ${DECODE_MAX_M} for the gemv variant`, `M=${M}`);
    if (X.size < M * K * 4) throw new ShapeError(op, `X of [${M}, ${K}] f32 (${M * K * 4} bytes)`, `${X.size} bytes (${X.label})`);
    const bytes = samplePartialBytes(M, N, group);
    if (part.size < bytes) throw new ShapeError(op, `partials of [${M}, ${Math.ceil(N / group)}] vec4 (${bytes} bytes)`, `${part.size} bytes (${part.label})`);
    const shape = this.shape(variant);
    const mr = PER_ROWS.includes(shape.kind) ? decodeRows(M) : 0, key = `sample:${variant}:${mr}`;
    let kernel = this.kernels.get(key);
    if (!kernel) {
      if (!this.prepared.has(variant)) throw new Error(`${op}: the ${variant} variant is not prepared; create the layer with Linear.create or call prepare('${variant}')`);
      const spec = this.kernelSpec(variant, 'main', mr);
      // The variant's shader module is loaded (by prepare), so the kernel is at hand.
      kernel = this.rt.kernelNow({ ...spec, overrides: { ...spec.overrides, SAMPLE: 1 } }) ?? undefined;
      if (!kernel) throw new Error(`${op}: the layer's shader is not loaded; create it with Linear.create`);
      this.kernels.set(key, kernel);
    }
    const row0 = (s.row0 ?? 0) >>> 0, keys = s.keys ?? null;
    if (keys && keys.size < 8 * (row0 + M)) throw new ShapeError(op, `keys of [2 * ${row0 + M}] f32 (${8 * (row0 + M)} bytes)`, `${keys.size} bytes (${keys.label})`);
    // flags bit 5: the noise keyed by the pairs in keys (shaders/linear_sample.wgsl sample_key).
    this.uniforms.set([M, N, K, keys ? 32 : 0, row0, 0, this.NW, this.NW, 0, s.seed >>> 0, s.step >>> 0, s.greedy ? 1 : 0]);
    this.uniformsF32[8] = s.invT;
    const w = this.spec.weight;
    const weights = w.format === 'f32' ? [w.W] : [w.q.codes, w.q.absmax];
    this.rt.dispatch(kernel, [X, ...weights, keys ?? this.dummy, this.dummy, this.dummy, part], this.uniforms, this.grid(shape, M, N, false));
    return group;
  }

  /** Releases the buffers this Linear owns (not the weights, bias or LoRA it was given). */
  dispose(): void {
    this.rt.release(this.dummy);
    if (this.xaScratch) this.rt.release(this.xaScratch);
    this.xaScratch = null;
  }

  private segments(lora: LinearLora): number {
    return 1 + (lora.segmentStarts?.length ?? 0);
  }

  private recordXA(X: GPUBuffer, M: number, lora: LinearLora, given: GPUBuffer | undefined, variant: LinearVariant): GPUBuffer {
    const SR = this.segments(lora) * lora.R;
    const bytes = M * SR * 4;
    let xa = given;
    if (xa) {
      if (xa.size < bytes) throw new ShapeError(`linear ${this.spec.label}`, `xa scratch of [${M}, ${SR}] f32 (${bytes} bytes)`, `${xa.size} bytes (${xa.label})`);
    } else {
      if (!this.xaScratch || this.xaScratch.size < bytes) {
        if (this.xaScratch) this.rt.release(this.xaScratch);
        this.xaScratch = this.rt.storage(Math.max(bytes, 16), `${this.spec.label} lora XA`);
      }
      xa = this.xaScratch;
    }
    const narrow = REGISTER_BLOCKED.includes(SHAPES[variant].kind);
    const pipeline = narrow ? this.kernels.get('xa:narrow') : this.kernelFor(variant, 'xa', M);
    if (!pipeline) throw new Error(`linear ${this.spec.label}: LoRA pipeline for ${variant} missing (the Linear was created without lora)`);
    const shape = narrow ? narrowXA(SR) : this.base(variant);
    this.xaUniforms.set([M, SR, this.spec.K, runFlags('f32', shape, false), 0, 0, SR, SR, 0, 0, 0, 0]);
    this.rt.dispatch(pipeline, [X, lora.A, this.dummy, this.dummy, this.dummy, xa], this.xaUniforms, this.grid(shape, M, SR, false));
    return xa;
  }

  /** A variant's shape on this device (the one X A^T runs in): sg's workgroup is one subgroup. */
  private base(variant: LinearVariant): VariantShape {
    return variant === 'sg' ? { ...SHAPES.sg, WG_X: sgWidth(this.rt) } : SHAPES[variant];
  }

  /** A variant's shape for this layer's weight format (at M rows: NF4 rb16's tile height, tileRows). */
  private shape(variant: LinearVariant, M = 1): VariantShape {
    if (variant === 'dec' && this.format === 'nf4') return this.nf4Dec;
    if (variant !== 'rb16' || this.format !== 'nf4') return this.base(variant);
    return this.tileRows(variant, M) === 32 ? NF4_RB32 : NF4_RB16;
  }

  /** Rows per invocation of NF4 rb16 (nf4_dec16 / nf4_dec32) at M rows: nf4TileRows; 16 for anything else. */
  private tileRows(variant: LinearVariant, M: number): 16 | 32 {
    return this.format === 'nf4' && this.base(variant).kind === 'rb16' ? nf4TileRows(M) : 16;
  }

  /** The layer pipeline's key at M rows: pipelineKey, with NF4 rb16's 32-row tile marked. */
  private pipelineKey(variant: LinearVariant, M: number): string {
    return `${pipelineKey(variant, M)}${this.tileRows(variant, M) === 32 ? ':rows32' : ''}`;
  }

  private grid(s: VariantShape, M: number, N: number, swiglu: boolean): { x: number; y: number } {
    if (s.kind === 'gemv') return { x: Math.ceil(N / (swiglu ? s.WG_Y / 2 : s.WG_Y)), y: 1 };
    if (s.kind === 'dec') return { x: Math.ceil(Math.ceil(N / (swiglu ? s.TN / 2 : s.TN)) / s.WG_X), y: Math.ceil(M / decodeRows(M)) };
    // One workgroup (one subgroup) per group of TN virtual columns and block of rows.
    if (s.kind === 'sg') return { x: Math.ceil(N / (swiglu ? s.TN / 2 : s.TN)), y: Math.ceil(M / decodeRows(M)) };
    const groups = Math.ceil(N / (swiglu ? s.TN / 2 : s.TN));
    return { x: Math.ceil(groups / s.WG_X), y: Math.ceil(M / (s.TM * s.WG_Y)) };
  }

  private checkSpec(): void {
    const { K, label, weight, bias, lora } = this.spec;
    const op = `linear ${label}`;
    const NW = this.NW;
    if (weight.format === 'nf4') {
      if (K % 64 !== 0) throw new ShapeError(op, 'K (in features) a multiple of 64 for NF4 weights (one absmax per 64 inputs of a row)', `K=${K}`);
      if (weight.q.rows !== NW || weight.q.cols !== K) throw new ShapeError(op, `NF4 weight of [${NW}, ${K}]`, `[${weight.q.rows}, ${weight.q.cols}]`);
      if (weight.q.codes.size < NW * K / 2) throw new ShapeError(op, `NF4 codes of ${NW * K / 2} bytes`, `${weight.q.codes.size} bytes`);
    } else {
      if (K % 4 !== 0) throw new ShapeError(op, 'K (in features) a multiple of 4', `K=${K}`);
      if (weight.W.size < NW * K * 4) throw new ShapeError(op, `W of [${NW}, ${K}] f32 (${NW * K * 4} bytes)`, `${weight.W.size} bytes (${weight.W.label})`);
    }
    if (bias && bias.size < NW * 4) throw new ShapeError(op, `bias of [${NW}] f32`, `${bias.size} bytes (${bias.label})`);
    if (lora) {
      const S = this.segments(lora);
      if (lora.A.size < S * lora.R * K * 4) throw new ShapeError(op, `LoRA A of [${S * lora.R}, ${K}] f32`, `${lora.A.size} bytes (${lora.A.label})`);
      if (lora.B.size < NW * lora.R * 4) throw new ShapeError(op, `LoRA B of [${NW}, ${lora.R}] f32`, `${lora.B.size} bytes (${lora.B.label})`);
      if (S > 3) throw new ShapeError(op, 'at most 3 LoRA segments (2 segment starts)', `${S}`);
    }
  }
}
