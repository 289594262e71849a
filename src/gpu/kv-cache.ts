// The KV cache: per layer one K and one V buffer [B, KVH, Tmax, HS] (f32) from the runtime's
// pool, per-sequence lengths on the host, and the packed row table (sequence, position) of
// each step. Written by qkv_rope (src/gpu/kernels/rope.ts), read by attention; exercised by
// tests/unit/gpu/attention-forward.test.ts. An f16 layout (half the bytes) is a later option
// when the device has `shader-f16`; `dtype` is where it will show.
import type { GpuRuntime } from './runtime';
import { ShapeError, formatBytes } from './errors';

export interface KvCacheConfig {
  /** L */
  numLayers: number;
  /** B: sequence slots. */
  B: number;
  /** KVH */
  KVH: number;
  /** HS */
  HS: number;
  /** Tmax: positions per sequence slot. */
  Tmax: number;
}

/** The rows of one step: sequences appending tokens, packed in slot order. */
export interface StepRows {
  /** M: rows in the step (sum of new tokens). */
  M: number;
  /** [M, 2] (sequence slot, absolute position): upload and pass to qkv_rope and attention. */
  rows: Uint32Array;
  /** Per slot, the row of its last new token (-1 when it appends nothing): for next-token logits. */
  lastRow: Int32Array;
}

export class KvCache {
  readonly dtype = 'f32' as const;
  /** K per layer, [B, KVH, Tmax, HS]. */
  readonly k: GPUBuffer[] = [];
  /** V per layer, [B, KVH, Tmax, HS]. */
  readonly v: GPUBuffer[] = [];
  /** Tokens held per sequence slot. */
  readonly lengths: Int32Array;
  private freed = false;

  constructor(private readonly rt: GpuRuntime, readonly cfg: KvCacheConfig) {
    const { numLayers, B, KVH, HS, Tmax } = cfg;
    for (const [name, val] of Object.entries(cfg)) {
      if (!Number.isInteger(val) || val <= 0) throw new ShapeError('KvCache', `${name} a positive integer`, `${name}=${val}`);
    }
    const bytes = this.layerBytes;
    const maxBinding = rt.device.limits.maxStorageBufferBindingSize;
    if (bytes > maxBinding) {
      throw new ShapeError('KvCache', `[B, KVH, Tmax, HS] = [${B}, ${KVH}, ${Tmax}, ${HS}] f32 within the ${formatBytes(maxBinding)} binding limit`,
        `${formatBytes(bytes)} per layer; lower the batch or the maximum sequence length`);
    }
    for (let l = 0; l < numLayers; l++) {
      this.k.push(rt.storage(bytes, `kv-cache K layer ${l}`));
      this.v.push(rt.storage(bytes, `kv-cache V layer ${l}`));
    }
    this.lengths = new Int32Array(B);
  }

  /** Bytes of one K (or V) buffer. */
  get layerBytes(): number {
    const { B, KVH, HS, Tmax } = this.cfg;
    return B * KVH * Tmax * HS * 4;
  }

  /** Bytes of the whole cache (all layers, K and V). */
  get bytes(): number {
    return 2 * this.cfg.numLayers * this.layerBytes;
  }

  /**
   * Plans a step in which slot s appends newTokens[s] tokens at positions lengths[s]..., and
   * advances the host lengths (the GPU writes land in queue order, before any later read).
   */
  append(newTokens: ArrayLike<number>): StepRows {
    this.checkAlive();
    const { B, Tmax } = this.cfg;
    if (newTokens.length !== B) throw new ShapeError('KvCache.append', `newTokens of [B] = [${B}]`, `${newTokens.length} values`);
    let M = 0;
    for (let s = 0; s < B; s++) {
      const n = newTokens[s];
      if (!Number.isInteger(n) || n < 0) throw new ShapeError('KvCache.append', 'non-negative token counts', `${n} for slot ${s}`);
      if (this.lengths[s] + n > Tmax) {
        throw new ShapeError('KvCache.append', `at most Tmax = ${Tmax} tokens per sequence`,
          `${this.lengths[s]} + ${n} for slot ${s}; raise the maximum sequence length or stop generating earlier`);
      }
      M += n;
    }
    const rows = new Uint32Array(2 * M);
    const lastRow = new Int32Array(B).fill(-1);
    let r = 0;
    for (let s = 0; s < B; s++) {
      for (let i = 0; i < newTokens[s]; i++, r++) {
        rows[2 * r] = s;
        rows[2 * r + 1] = this.lengths[s] + i;
      }
      if (newTokens[s] > 0) lastRow[s] = r - 1;
      this.lengths[s] += newTokens[s];
    }
    return { M, rows, lastRow };
  }

  /**
   * Makes each slot of `dsts` hold what slot `src` holds: its keys and values at positions
   * [0, lengths[src]) of every layer (copied on the queue, through a staging buffer: WebGPU does
   * not copy within one buffer) and its length. A sequence that starts with the same tokens as
   * another is computed once (DecodeSession's shared prompts).
   */
  copySlot(src: number, dsts: readonly number[]): void {
    this.checkAlive();
    const { B, KVH, HS, Tmax } = this.cfg;
    for (const s of [src, ...dsts]) {
      if (!(Number.isInteger(s) && s >= 0 && s < B)) throw new ShapeError('KvCache.copySlot', `slots in [0, ${B})`, `${s}`);
    }
    const to = dsts.filter((d) => d !== src), n = this.lengths[src];
    if (to.length === 0) return;
    if (n > 0) {
      const headBytes = n * HS * 4, at = (slot: number, h: number) => (slot * KVH + h) * Tmax * HS * 4;
      const staging = this.rt.storage(KVH * headBytes, 'kv-cache slot copy');
      for (const buf of [...this.k, ...this.v]) {
        for (let h = 0; h < KVH; h++) this.rt.copy(buf, at(src, h), staging, h * headBytes, headBytes);
        for (const d of to) {
          for (let h = 0; h < KVH; h++) this.rt.copy(staging, h * headBytes, buf, at(d, h), headBytes);
        }
      }
      this.rt.release(staging); // commands run in order: a later reuse comes after these copies
    }
    for (const d of to) this.lengths[d] = n;
  }

  /** Empties one sequence slot for reuse (its old keys are never read again). */
  reset(seq: number): void {
    if (!(seq >= 0 && seq < this.cfg.B)) throw new ShapeError('KvCache.reset', `a slot in [0, ${this.cfg.B})`, `${seq}`);
    this.lengths[seq] = 0;
  }

  resetAll(): void {
    this.lengths.fill(0);
  }

  /** Returns every buffer to the pool; the cache is unusable afterwards. */
  free(): void {
    if (this.freed) return;
    this.freed = true;
    this.rt.release(...this.k, ...this.v);
  }

  private checkAlive(): void {
    if (this.freed) throw new Error('KvCache: used after free()');
  }
}
