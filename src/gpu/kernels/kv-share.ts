// Launcher for shaders/kv_share.wgsl: a training pass's shared prefixes in the KV cache. The
// forward copies each root slot's keys and values of the shared positions into its sharer slots
// (copy); the backward adds the sharers' key / value gradients on those positions into the root's
// (sum). CPU twins: kvShareCopy / kvShareSum (src/reference/kv-share.ts). Tested by
// tests/unit/gpu/kv-share.test.ts; used by src/train/train-step.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import type { KvCacheConfig } from '../kv-cache';
import { ShapeError } from '../errors';
import { flatGrid } from '../grid';

const WG = 64;

/** The shared prefixes of a pass: per slot (root slot, shared positions), uploaded once per pass. */
export interface KvSharePlan {
  /** [B, 2] u32 (root slot, shared positions); a root (or unshared slot) is its own root with 0. */
  table: GPUBuffer;
  /** Most shared positions of any slot. */
  maxN: number;
}

/** The cache shape the kernels index ([B, KVH, Tmax, HS] per K or V buffer). */
type KvShape = Pick<KvCacheConfig, 'B' | 'KVH' | 'HS' | 'Tmax'>;

export class KvShare {
  private readonly uniforms = new Uint32Array(8);

  private constructor(private readonly rt: GpuRuntime, private readonly copyK: Kernel, private readonly sumK: Kernel) {}

  static async create(rt: GpuRuntime): Promise<KvShare> {
    const k = (entry: string) => rt.kernel({ shader: 'kv_share', entry, overrides: { WG } });
    return new KvShare(rt, await k('kv_share_copy'), await k('kv_share_sum'));
  }

  /** Records K[b, :, t] = K[root_b, :, t] and the same for V, for every sharer b and t below its shared positions. */
  copy(k: GPUBuffer, v: GPUBuffer, plan: KvSharePlan, cfg: KvShape): void {
    this.record(this.copyK, 'kv_share_copy', k, v, plan, cfg);
  }

  /** Records dK[a, :, t] += the sharers' dK[b, :, t] (b with root a, t below b's shared positions), and the same for dV. */
  sum(dK: GPUBuffer, dV: GPUBuffer, plan: KvSharePlan, cfg: KvShape): void {
    this.record(this.sumK, 'kv_share_sum', dK, dV, plan, cfg);
  }

  private record(kernel: Kernel, op: string, k: GPUBuffer, v: GPUBuffer, plan: KvSharePlan, cfg: KvShape): void {
    const { B, KVH, HS, Tmax } = cfg;
    if (HS % 4 !== 0) throw new ShapeError(op, 'a head size HS divisible by 4', `HS=${HS}`);
    if (!(Number.isInteger(plan.maxN) && plan.maxN >= 0 && plan.maxN <= Tmax)) throw new ShapeError(op, `maxN in [0, Tmax = ${Tmax}]`, `maxN=${plan.maxN}`);
    const bytes = B * KVH * Tmax * HS * 4;
    for (const [name, b] of [['K', k], ['V', v]] as const) {
      if (b.size < bytes) throw new ShapeError(op, `${name} of [${B}, ${KVH}, ${Tmax}, ${HS}] f32 (${bytes} bytes)`, `${b.size} bytes (${b.label})`);
    }
    if (plan.table.size < B * 8) throw new ShapeError(op, `a share table of [${B}, 2] u32`, `${plan.table.size} bytes (${plan.table.label})`);
    if (plan.maxN === 0) return;
    const g = flatGrid(B * KVH * plan.maxN * (HS / 4), WG, this.rt.device.limits.maxComputeWorkgroupsPerDimension);
    this.uniforms.set([B, KVH, Tmax, HS / 4, plan.maxN, g.x * WG, 0, 0]);
    this.rt.dispatch(kernel, [k, v, plan.table], this.uniforms, g);
  }
}
