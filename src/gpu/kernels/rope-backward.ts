// Launcher for shaders/rope.wgsl (qkv_rope_backward): the gradient of the fused QKV projection
// output from dQ [M, NH, HS] and the cache-layout dK, dV: q and k rotated back by -angle, k and
// v gathered at each row's (slot, position), in one dispatch. Owns its [Tmax, HS/2] cos/sin
// table. CPU twin: src/reference/rope.ts (rope_backward) + a gather. Tested by
// tests/unit/gpu/rope-backward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { pairsPerHead, ropeEntry, ropeTable, type QkvRopeOptions } from './rope';
import { flatGrid } from '../grid';

/** The cache geometry dK/dV follow ([B, KVH, Tmax, HS]); a KvCache's `cfg` fits. */
export interface CacheGeometry {
  B: number;
  KVH: number;
  HS: number;
  Tmax: number;
}

export class QkvRopeBackward {
  private readonly uniforms = new Uint32Array(8);

  private constructor(
    private readonly rt: GpuRuntime,
    private readonly pipeline: Kernel,
    private readonly table: GPUBuffer,
    readonly opts: Required<QkvRopeOptions>,
  ) {}

  /** Same options as the forward QkvRope (the table must match it: same theta, HS). */
  static async create(rt: GpuRuntime, opts: QkvRopeOptions): Promise<QkvRopeBackward> {
    const o: Required<QkvRopeOptions> = { wg: 64, ...opts };
    const { NH, KVH, HS, Tmax } = o;
    if (HS % 2 !== 0) throw new ShapeError('qkv_rope_backward', 'HS even', `HS=${HS}`);
    if (KVH <= 0 || NH % KVH !== 0) throw new ShapeError('qkv_rope_backward', 'NH a multiple of KVH', `NH=${NH}, KVH=${KVH}`);
    if (!(Tmax > 0)) throw new ShapeError('qkv_rope_backward', 'Tmax > 0', `Tmax=${Tmax}`);
    const pipeline = await rt.kernel({ shader: 'rope', entry: ropeEntry('qkv_rope_backward', HS), overrides: { WG: o.wg } });
    const table = rt.upload(ropeTable(Tmax, HS, o.theta), `rope backward cos/sin [${Tmax}, ${HS / 2}]`);
    return new QkvRopeBackward(rt, pipeline, table, o);
  }

  /**
   * Records dQKV [M, (NH + 2 KVH) HS] (=) from dQ [M, NH, HS] and dK, dV [B, KVH, Tmax, HS]
   * (geometry `g`), rows the [M, 2] u32 (slot, position) table of the forward.
   */
  run(dQ: GPUBuffer, rows: GPUBuffer, dK: GPUBuffer, dV: GPUBuffer, g: CacheGeometry, dQKV: GPUBuffer, M: number): void {
    const { NH, KVH, HS, Tmax, wg } = this.opts;
    const op = 'qkv_rope_backward';
    if (g.KVH !== KVH || g.HS !== HS) throw new ShapeError(op, `a cache geometry with KVH=${KVH}, HS=${HS}`, `KVH=${g.KVH}, HS=${g.HS}`);
    if (g.Tmax > Tmax) throw new ShapeError(op, `a cache with Tmax <= ${Tmax} (the rope table)`, `Tmax=${g.Tmax}`);
    const F = (NH + 2 * KVH) * HS;
    const cacheBytes = g.B * KVH * g.Tmax * HS * 4;
    const cacheShape = `[${g.B}, ${KVH}, ${g.Tmax}, ${HS}]`;
    if (dQ.size < M * NH * HS * 4) throw new ShapeError(op, `dQ of [${M}, ${NH}, ${HS}] f32 (${M * NH * HS * 4} bytes)`, `${dQ.size} bytes (${dQ.label})`);
    if (rows.size < M * 8) throw new ShapeError(op, `rows of [${M}, 2] u32 (${M * 8} bytes)`, `${rows.size} bytes (${rows.label})`);
    if (dK.size < cacheBytes) throw new ShapeError(op, `dK of ${cacheShape} f32 (${cacheBytes} bytes)`, `${dK.size} bytes (${dK.label})`);
    if (dV.size < cacheBytes) throw new ShapeError(op, `dV of ${cacheShape} f32 (${cacheBytes} bytes)`, `${dV.size} bytes (${dV.label})`);
    if (dQKV.size < M * F * 4) throw new ShapeError(op, `dQKV of [${M}, ${F}] f32 (${M * F * 4} bytes)`, `${dQKV.size} bytes (${dQKV.label})`);
    if (M === 0) return;
    this.uniforms.set([M, NH, KVH, HS, g.Tmax, g.B, 0, 0]);
    this.rt.dispatch(this.pipeline, [dQ, rows, this.table, dK, dV, dQKV], this.uniforms,
      flatGrid(M * (NH + 2 * KVH) * pairsPerHead(HS), wg, this.rt.device.limits.maxComputeWorkgroupsPerDimension));
  }

  destroy(): void {
    this.rt.release(this.table);
  }
}
