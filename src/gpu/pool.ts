// Buffer pool keyed by (size, usage), with the byte counters every memory figure is built on:
// bytes held by callers (inUse), bytes allocated on the device (allocated, including free
// buffers kept for reuse) and the peak of allocated. Exercised by tests/unit/gpu/gpu-runtime.test.ts.
import { GpuOutOfMemoryError, formatBytes } from './errors';

export interface PoolStats {
  /** Bytes in buffers currently handed out. */
  inUse: number;
  /** Bytes of all live device buffers made by the pool (in use + free for reuse). */
  allocated: number;
  /** Highest value `allocated` has reached since the last resetPeak(). */
  peak: number;
  /** Buffers created / reused since start. */
  created: number;
  reused: number;
}

const ALIGN = 16;

export class BufferPool {
  private readonly free = new Map<string, GPUBuffer[]>();
  private readonly sizes = new WeakMap<GPUBuffer, number>();
  private readonly held = new Set<GPUBuffer>();
  private stats: PoolStats = { inUse: 0, allocated: 0, peak: 0, created: 0, reused: 0 };

  /**
   * Most bytes the pool may allocate (default: no budget). WebGPU reports no VRAM size, so a
   * budget is how a user keeps the studio inside the memory they want it to use.
   */
  budgetBytes = Infinity;

  constructor(private readonly device: GPUDevice) {}

  /** Rounds a byte size the way the pool allocates it (keys and counters use this size). */
  static roundSize(bytes: number): number {
    return Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
  }

  /** A buffer of at least `bytes` with exactly `usage`, reused when one is free. */
  acquire(bytes: number, usage: GPUBufferUsageFlags, label: string): GPUBuffer {
    const size = BufferPool.roundSize(bytes);
    const key = `${size}:${usage}`;
    const list = this.free.get(key);
    let buf = list?.pop();
    if (buf) {
      this.stats.reused++;
      buf.label = label;
    } else {
      this.checkLimits(size, label);
      buf = this.device.createBuffer({ size, usage, label });
      this.sizes.set(buf, size);
      this.stats.created++;
      this.stats.allocated += size;
      this.stats.peak = Math.max(this.stats.peak, this.stats.allocated);
    }
    this.held.add(buf);
    this.stats.inUse += size;
    return buf;
  }

  /**
   * Like acquire, but checks with an error scope that the device really allocated the buffer,
   * and throws GpuOutOfMemoryError naming `label` when it did not. For large, long-lived tensors.
   */
  async acquireChecked(bytes: number, usage: GPUBufferUsageFlags, label: string): Promise<GPUBuffer> {
    this.device.pushErrorScope('out-of-memory');
    const buf = this.acquire(bytes, usage, label);
    const err = await this.device.popErrorScope();
    if (err) {
      this.destroy(buf);
      throw new GpuOutOfMemoryError(label, bytes, `${err.message}. Use a smaller model, batch or sequence length, or 4-bit weights.`);
    }
    return buf;
  }

  /** Returns a buffer to the pool for reuse. */
  release(buf: GPUBuffer): void {
    if (!this.held.delete(buf)) throw new Error(`BufferPool.release: "${buf.label}" is not held (released twice?)`);
    const size = this.sizes.get(buf) ?? 0;
    this.stats.inUse -= size;
    const key = `${size}:${buf.usage}`;
    const list = this.free.get(key) ?? [];
    list.push(buf);
    this.free.set(key, list);
  }

  /** Destroys a held buffer now (for big one-off tensors that should not linger in the pool). */
  destroy(buf: GPUBuffer): void {
    const size = this.sizes.get(buf) ?? 0;
    if (this.held.delete(buf)) this.stats.inUse -= size;
    this.stats.allocated -= size;
    buf.destroy();
  }

  /** Destroys every free buffer (keeps held ones). */
  trim(): void {
    for (const list of this.free.values()) {
      for (const buf of list) {
        this.stats.allocated -= this.sizes.get(buf) ?? 0;
        buf.destroy();
      }
    }
    this.free.clear();
  }

  resetPeak(): void {
    this.stats.peak = this.stats.allocated;
  }

  snapshot(): PoolStats {
    return { ...this.stats };
  }

  private checkLimits(size: number, label: string): void {
    if (this.stats.allocated + size > this.budgetBytes) {
      this.trim();
      if (this.stats.allocated + size > this.budgetBytes) {
        throw new GpuOutOfMemoryError(label, size,
          `over the GPU memory budget (${formatBytes(this.stats.allocated)} of ${formatBytes(this.budgetBytes)} already allocated)`);
      }
    }
    const max = this.device.limits.maxBufferSize;
    if (size > max) {
      throw new GpuOutOfMemoryError(label, size,
        `larger than this device's maxBufferSize (${formatBytes(max)}); split the tensor or use 4-bit weights.`);
    }
  }
}
