// Per-kernel GPU time with timestamp queries: while a profiler is attached to the runtime
// (GpuRuntime.profiler), every dispatch gets its own compute pass whose start and end are
// stamped; collect() reads the stamps back and sums nanoseconds per pipeline key. Only for
// benchmarks (scripts/bench-train.ts --profile): one pass per dispatch costs a little time.
// Exercised by tests/unit/gpu/gpu-profiler.test.ts.
import { gpuWait } from './node-wait';

export interface KernelTime {
  /** Pipeline key (shaders/<file>:<entry>:<overrides>) or the dispatch's own label. */
  kernel: string;
  calls: number;
  ms: number;
}

export class DispatchProfiler {
  private readonly querySet: GPUQuerySet;
  private readonly resolve: GPUBuffer;
  private labels: string[] = [];
  private readonly totals = new Map<string, KernelTime>();

  /** `capacity`: most dispatches between two collect() calls. */
  constructor(private readonly device: GPUDevice, readonly capacity = 2048) {
    if (!device.features.has('timestamp-query')) throw new Error('DispatchProfiler: the device has no timestamp-query feature');
    this.querySet = device.createQuerySet({ label: 'profiler timestamps', type: 'timestamp', count: 2 * capacity });
    const u = (globalThis as unknown as { GPUBufferUsage: GPUBufferUsage }).GPUBufferUsage;
    this.resolve = device.createBuffer({ label: 'profiler resolve', size: 16 * capacity, usage: u.QUERY_RESOLVE | u.COPY_SRC });
  }

  /** Timestamp writes for the next dispatch's pass, or undefined when the query set is full. */
  next(label: string): GPUComputePassTimestampWrites | undefined {
    const i = this.labels.length;
    if (i >= this.capacity) return undefined;
    this.labels.push(label);
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 };
  }

  /** Resolves the stamps recorded so far (after their commands were submitted) into the totals. */
  async collect(): Promise<void> {
    const n = this.labels.length;
    if (n === 0) return;
    const u = (globalThis as unknown as { GPUBufferUsage: GPUBufferUsage }).GPUBufferUsage;
    const staging = this.device.createBuffer({ label: 'profiler staging', size: 16 * n, usage: u.MAP_READ | u.COPY_DST });
    const enc = this.device.createCommandEncoder({ label: 'profiler resolve' });
    enc.resolveQuerySet(this.querySet, 0, 2 * n, this.resolve, 0);
    enc.copyBufferToBuffer(this.resolve, 0, staging, 0, 16 * n);
    this.device.queue.submit([enc.finish()]);
    const mode = (globalThis as unknown as { GPUMapMode: GPUMapMode }).GPUMapMode;
    await gpuWait(() => staging.mapAsync(mode.READ));
    const stamps = new BigUint64Array(staging.getMappedRange().slice(0));
    staging.unmap();
    staging.destroy();
    for (let i = 0; i < n; i++) {
      const ns = Number(stamps[2 * i + 1] - stamps[2 * i]);
      const t = this.totals.get(this.labels[i]) ?? { kernel: this.labels[i], calls: 0, ms: 0 };
      t.calls++;
      t.ms += Math.max(0, ns) / 1e6;
      this.totals.set(this.labels[i], t);
    }
    this.labels = [];
  }

  /** Totals per kernel since creation or the last reset, slowest first. */
  report(): KernelTime[] {
    return [...this.totals.values()].sort((a, b) => b.ms - a.ms);
  }

  reset(): void {
    this.totals.clear();
    this.labels = [];
  }

  destroy(): void {
    this.querySet.destroy();
    this.resolve.destroy();
  }
}
