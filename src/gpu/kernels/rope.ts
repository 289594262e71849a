// Launcher for shaders/rope.wgsl (qkv_rope): splits the fused QKV projection, rotates q and k
// (HF rotate_half) and writes k, v into the KV cache at each row's (sequence, position), in one
// dispatch. Owns the [Tmax, HS/2] cos/sin table. CPU twin: src/reference/rope.ts + a scatter.
// Tested by tests/unit/gpu/rope-forward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import type { KvCache } from '../kv-cache';
import { ShapeError } from '../errors';
import { flatGrid } from '../grid';

export interface QkvRopeOptions {
  NH: number;
  KVH: number;
  HS: number;
  /** RoPE base (config rope_theta). */
  theta: number;
  /** Positions in the table; at least the cache's Tmax. */
  Tmax: number;
  /** Invocations per workgroup (default 64). */
  wg?: number;
}

/**
 * The cos/sin table [Tmax, HS/2] as vec2 pairs, rounded the way Hugging Face (and
 * rope_forward) do: inv_freq and the angle in f32, cos/sin of that angle.
 */
export function ropeTable(Tmax: number, HS: number, theta: number): Float32Array {
  const half = HS / 2;
  const tab = new Float32Array(Tmax * half * 2);
  for (let i = 0; i < half; i++) {
    const invFreq = Math.fround(1 / Math.pow(theta, (2 * i) / HS));
    for (let t = 0; t < Tmax; t++) {
      const angle = Math.fround(t * invFreq);
      tab[(t * half + i) * 2] = Math.cos(angle);
      tab[(t * half + i) * 2 + 1] = Math.sin(angle);
    }
  }
  return tab;
}

export class QkvRope {
  private readonly uniforms = new Uint32Array(8);

  private constructor(
    private readonly rt: GpuRuntime,
    private readonly pipeline: Kernel,
    private readonly table: GPUBuffer,
    readonly opts: Required<QkvRopeOptions>,
  ) {}

  static async create(rt: GpuRuntime, opts: QkvRopeOptions): Promise<QkvRope> {
    const o: Required<QkvRopeOptions> = { wg: 64, ...opts };
    const { NH, KVH, HS, Tmax } = o;
    if (HS % 2 !== 0) throw new ShapeError('qkv_rope', 'HS even', `HS=${HS}`);
    if (KVH <= 0 || NH % KVH !== 0) throw new ShapeError('qkv_rope', 'NH a multiple of KVH', `NH=${NH}, KVH=${KVH}`);
    if (!(Tmax > 0)) throw new ShapeError('qkv_rope', 'Tmax > 0', `Tmax=${Tmax}`);
    const pipeline = await rt.kernel({ shader: 'rope', entry: ropeEntry('qkv_rope', HS), overrides: { WG: o.wg } });
    const table = rt.upload(ropeTable(Tmax, HS, o.theta), `rope cos/sin [${Tmax}, ${HS / 2}]`);
    return new QkvRope(rt, pipeline, table, o);
  }

  /**
   * Records: Q [M, NH, HS] = rope(q part of QKV); cache.k[layer], cache.v[layer] at rows'
   * (sequence, position) = rope(k part), v part. rows is the [M, 2] u32 table from KvCache.append.
   */
  run(QKV: GPUBuffer, rows: GPUBuffer, Q: GPUBuffer, cache: KvCache, layer: number, M: number): void {
    const { NH, KVH, HS, Tmax, wg } = this.opts;
    const c = cache.cfg;
    if (c.KVH !== KVH || c.HS !== HS) throw new ShapeError('qkv_rope', `a cache with KVH=${KVH}, HS=${HS}`, `KVH=${c.KVH}, HS=${c.HS}`);
    if (c.Tmax > Tmax) throw new ShapeError('qkv_rope', `a cache with Tmax <= ${Tmax} (the rope table)`, `Tmax=${c.Tmax}`);
    if (!(layer >= 0 && layer < c.numLayers)) throw new ShapeError('qkv_rope', `layer in [0, ${c.numLayers})`, `${layer}`);
    const F = (NH + 2 * KVH) * HS;
    if (QKV.size < M * F * 4) throw new ShapeError('qkv_rope', `QKV of [${M}, ${F}] f32 (${M * F * 4} bytes)`, `${QKV.size} bytes (${QKV.label})`);
    if (rows.size < M * 8) throw new ShapeError('qkv_rope', `rows of [${M}, 2] u32 (${M * 8} bytes)`, `${rows.size} bytes (${rows.label})`);
    if (Q.size < M * NH * HS * 4) throw new ShapeError('qkv_rope', `Q of [${M}, ${NH}, ${HS}] f32 (${M * NH * HS * 4} bytes)`, `${Q.size} bytes (${Q.label})`);
    if (M === 0) return;
    this.uniforms.set([M, NH, KVH, HS, c.Tmax, c.B, 0, 0]);
    this.rt.dispatch(this.pipeline, [QKV, rows, this.table, Q, cache.k[layer], cache.v[layer]], this.uniforms,
      flatGrid(M * (NH + 2 * KVH) * pairsPerHead(HS), wg, this.rt.device.limits.maxComputeWorkgroupsPerDimension));
  }

  destroy(): void {
    this.rt.release(this.table);
  }
}

/** Four pairs per invocation (qkv_rope4 and its backward) where HS is a multiple of 8, else one. */
const fourPairs = (HS: number): boolean => HS % 8 === 0;
/** The entry of `base` (qkv_rope, qkv_rope_backward) for heads of HS. */
export const ropeEntry = (base: string, HS: number): string => (fourPairs(HS) ? `${base}4` : base);
/** Invocations per (row, head): one per pair, or per four pairs (ropeEntry). */
export const pairsPerHead = (HS: number): number => (fourPairs(HS) ? HS / 8 : HS / 2);

