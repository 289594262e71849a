// The one WebGPU runtime used by the browser, workers and Node: device with raised limits,
// pipeline cache, buffer pool with byte counters, one command encoder per step, uploads and
// scalar readbacks, device-loss and uncaptured-error reporting.
// Exercised by tests/unit/gpu/gpu-runtime.test.ts, the kernels' tests and the GPU panel.
import { openDevice, type AdapterReport, type OpenDeviceOptions } from './device';
import { BufferPool, type PoolStats } from './pool';
import { PipelineCache, type Kernel, type KernelSpec } from './pipelines';
import { GpuDeviceLostError, GpuError } from './errors';
import type { DispatchProfiler } from './profiler';
import type { PhaseTimer } from './phase-timer';
import { gpuWait } from './node-wait';


export type ErrorListener = (err: GpuError) => void;

/** A device and what the runtimes on it share: its compiled pipelines, and how many runtimes use it. */
interface SharedDevice {
  readonly device: GPUDevice;
  readonly report: AdapterReport;
  readonly pipelines: PipelineCache;
  users: number;
}

/** Runtimes not destroyed yet (settleGpuWork). */
const live = new Set<GpuRuntime>();

/**
 * Waits until every live runtime has finished what was submitted. A Node process should call it
 * before process.exit: work still queued then (a decode session's look-ahead step, say) runs on
 * the threads of a CPU adapter that exit tears down.
 */
export async function settleGpuWork(): Promise<void> {
  await Promise.all([...live].map((rt) => (rt.lost ? undefined : rt.sync().catch(() => undefined))));
}

export interface Workgroups {
  x: number;
  y?: number;
  z?: number;
}

export class GpuRuntime {
  readonly device: GPUDevice;
  readonly report: AdapterReport;
  readonly pool: BufferPool;
  /** Compiled pipelines: shared by every runtime on this device (sibling). */
  readonly pipelines: PipelineCache;
  /** Set once the device is lost; every later call throws it. */
  lost: GpuDeviceLostError | null = null;
  /** Dispatches recorded since creation (for dispatches-per-token figures). */
  dispatchCount = 0;
  /** GPU -> host round trips (read / readParts calls) since creation. */
  readbackCount = 0;
  /**
   * Advances whenever commands are submitted or a buffer is written: work recorded at one value saw
   * every change queued before it (DecodeSession's look-ahead step is stale once this moves on).
   */
  queueEpoch = 0;
  /** When set, each dispatch runs in its own timestamped pass (benchmarks only; see profiler.ts). */
  profiler: DispatchProfiler | null = null;
  /** When set, phase() marks are stamped (GPU time per step phase; see phase-timer.ts). */
  phases: PhaseTimer | null = null;
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  /** Uniform buffers of this step's dispatches and buffers retired during it: back to the pool at submit. */
  private frameUniforms: GPUBuffer[] = [];
  private readonly listeners = new Set<ErrorListener>();
  /** Set by destroy(): the device's 'destroyed' loss that follows is expected. */
  private destroying = false;

  private readonly onUncaptured = (ev: Event) => {
    const e = (ev as GPUUncapturedErrorEvent).error;
    this.emit(new GpuError(`GPU error (${e.constructor.name}): ${e.message}`));
  };

  private constructor(private readonly shared: SharedDevice) {
    const { device } = shared;
    this.device = device;
    this.report = shared.report;
    this.pool = new BufferPool(device);
    this.pipelines = shared.pipelines;
    shared.users++;
    live.add(this);
    device.lost.then((info) => {
      // Our own destroy() is the end of the runtime, not a loss; a device destroyed by anything
      // else (or lost by the driver) is.
      if (info.reason === 'destroyed' && this.destroying) return;
      this.lost = new GpuDeviceLostError(info.reason, info.message);
      this.emit(this.lost);
    });
    device.addEventListener('uncapturederror', this.onUncaptured);
  }

  /**
   * On an error path: the device loss behind the error, if any. A call that meets a lost device
   * often fails (a mapAsync "unmapped before mapping was resolved") before device.lost settles, so
   * this waits for it at most `ms`; null when the device is not lost.
   */
  async lossBehind(ms = 500): Promise<GpuDeviceLostError | null> {
    if (!this.lost) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.device.lost, new Promise((r) => { timer = setTimeout(r, ms); })]);
      clearTimeout(timer);
    }
    return this.lost;
  }

  /** Opens a device on `gpu` (navigator.gpu, or getNodeGpu() in Node). */
  static async create(gpu: GPU, opts?: OpenDeviceOptions & { memoryBudget?: number }): Promise<GpuRuntime> {
    const { device, report } = await openDevice(gpu, opts);
    const rt = new GpuRuntime({ device, report, pipelines: new PipelineCache(device), users: 0 });
    if (opts?.memoryBudget) rt.pool.budgetBytes = opts.memoryBudget;
    return rt;
  }

  /**
   * Another runtime on this one's device: its own buffer pool, counters, command encoder and
   * error listeners, the same compiled pipelines (a Node process's commands share one device:
   * src/gpu/node-runtime.ts). The device is destroyed with the last runtime on it; its loss
   * reaches every one. An uncaptured GPU error, which the device does not tie to a runtime,
   * reaches every one too.
   */
  sibling(): GpuRuntime {
    this.checkAlive();
    if (this.destroying) throw new GpuError('This GPU runtime was destroyed: open a new one.');
    return new GpuRuntime(this.shared);
  }

  get usage(): GPUBufferUsage {
    return (globalThis as unknown as { GPUBufferUsage: GPUBufferUsage }).GPUBufferUsage;
  }

  hasFeature(f: GPUFeatureName): boolean {
    return this.device.features.has(f);
  }

  onError(listener: ErrorListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  memory(): PoolStats {
    return this.pool.snapshot();
  }

  /** The kernel of `spec`, its shader module loaded and checked; the pipeline is built on its first dispatch. */
  kernel(spec: KernelSpec): Promise<Kernel> {
    this.checkAlive();
    return this.pipelines.get(spec);
  }

  /** As kernel, with the pipeline built now; a build error rejects (tuning candidates, self-tests). */
  builtKernel(spec: KernelSpec): Promise<Kernel> {
    this.checkAlive();
    return this.pipelines.build(spec);
  }

  /** A kernel at once, if its shader is already loaded (PipelineCache.getNow), else null. */
  kernelNow(spec: KernelSpec): Kernel | null {
    this.checkAlive();
    return this.pipelines.getNow(spec);
  }

  /** A storage buffer from the pool (STORAGE | COPY_SRC | COPY_DST). */
  storage(bytes: number, label: string): GPUBuffer {
    const u = this.usage;
    return this.pool.acquire(bytes, u.STORAGE | u.COPY_SRC | u.COPY_DST, label);
  }

  /** A storage buffer holding `data`. */
  upload(data: ArrayBufferView, label: string): GPUBuffer {
    const buf = this.storage(data.byteLength, label);
    this.write(buf, data);
    return buf;
  }

  write(buf: GPUBuffer, data: ArrayBufferView, offsetBytes = 0): void {
    this.checkAlive();
    this.queueEpoch++;
    // writeBuffer needs a multiple of 4 bytes.
    const bytes = new Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
    if (bytes.byteLength % 4 === 0) {
      this.device.queue.writeBuffer(buf, offsetBytes, bytes);
    } else {
      const padded = new Uint8Array(Math.ceil(bytes.byteLength / 4) * 4);
      padded.set(bytes);
      this.device.queue.writeBuffer(buf, offsetBytes, padded);
    }
  }

  release(...bufs: GPUBuffer[]): void {
    for (const b of bufs) this.pool.release(b);
  }

  /** Returns buffers to the pool once the step being recorded is submitted (dispatches already recorded may still read them). */
  releaseAfterSubmit(...bufs: GPUBuffer[]): void {
    this.frameUniforms.push(...bufs);
  }

  /**
   * Records one dispatch in the current step's encoder. `buffers` are bound at 0..n-1 in the
   * kernel's order (inputs, outputs); `uniforms`, when given, is bound next, then `after` (for
   * a kernel that adds bindings past the uniforms its siblings share).
   */
  dispatch(kernel: Kernel, buffers: GPUBuffer[], uniforms: ArrayBufferView | null, wg: Workgroups, after: GPUBuffer[] = []): void {
    this.checkAlive();
    const pipeline = kernel.pipeline;
    const all = buffers.slice();
    if (uniforms) {
      const u = this.usage;
      const ub = this.pool.acquire(Math.max(16, uniforms.byteLength), u.UNIFORM | u.COPY_DST, `${pipeline.label} uniforms`);
      this.write(ub, uniforms);
      this.frameUniforms.push(ub);
      all.push(ub);
    }
    all.push(...after);
    const max = this.device.limits.maxComputeWorkgroupsPerDimension;
    const y = wg.y ?? 1, z = wg.z ?? 1;
    if (wg.x > max || y > max || z > max) {
      throw new GpuError(`${pipeline.label}: ${wg.x}x${y}x${z} workgroups exceed the device limit ${max} per dimension`);
    }
    const stamps = this.profiler?.next(`${pipeline.label} [${wg.x}x${y}x${z}]`);
    if (stamps) this.endPass();
    const pass = this.computePass(stamps);
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, this.pipelines.bindGroup(pipeline, all));
    pass.dispatchWorkgroups(wg.x, y, z);
    if (stamps) this.endPass();
    this.dispatchCount++;
  }

  /** Records a buffer copy in the current step. */
  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, bytes: number): void {
    this.endPass();
    this.getEncoder().copyBufferToBuffer(src, srcOffset, dst, dstOffset, bytes);
  }

  /** Starts GPU phase `label` (null: ends the current one) when a PhaseTimer is attached; else nothing. */
  phase(label: string | null): void {
    if (!this.phases) return;
    this.endPass();
    this.phases.mark(this.getEncoder(), label);
  }

  /**
   * Reads several buffer ranges back in ONE round trip (copies into one staging buffer, one map):
   * the per-step metrics readback. `phases: true` prepends the attached PhaseTimer's resolved
   * stamps (returned as `stamps`, u64 ns) and clears its marks into `phaseMs`.
   */
  async readParts(parts: { buf: GPUBuffer; bytes: number; offset?: number }[], phases = false):
    Promise<{ parts: ArrayBuffer[]; phaseMs: Record<string, number> | null }> {
    const timer = phases ? this.phases : null;
    let stampBytes = 0;
    if (timer) {
      this.endPass();
      stampBytes = timer.resolve(this.getEncoder());
    }
    const all = stampBytes > 0 && timer ? [{ buf: timer.resolveBuf, bytes: stampBytes, offset: 0 }, ...parts] : parts;
    const sizes = all.map((p) => Math.ceil(p.bytes / 4) * 4);
    const total = Math.max(4, sizes.reduce((a, b) => a + b, 0));
    this.readbackCount++;
    const u = this.usage;
    const staging = this.pool.acquire(total, u.MAP_READ | u.COPY_DST, 'readback staging (parts)');
    let o = 0;
    all.forEach((p, i) => { this.copy(p.buf, p.offset ?? 0, staging, o, sizes[i]); o += sizes[i]; });
    this.submit();
    try {
      await this.mapForRead(staging, total);
      this.checkAlive();
      const bytes = staging.getMappedRange(0, total).slice(0);
      const out: ArrayBuffer[] = [];
      o = 0;
      all.forEach((p, i) => { out.push(bytes.slice(o, o + p.bytes)); o += sizes[i]; });
      const phaseMs = timer ? timer.totals(stampBytes > 0 ? new BigUint64Array(out.shift() as ArrayBuffer) : new BigUint64Array(0)) : null;
      return { parts: out, phaseMs };
    } finally {
      if (staging.mapState === 'mapped') staging.unmap();
      this.pool.release(staging);
    }
  }

  /** Submits the current step's commands (no-op when nothing was recorded). */
  submit(): void {
    this.endPass();
    if (this.encoder) {
      this.device.queue.submit([this.encoder.finish()]);
      this.encoder = null;
      this.queueEpoch++;
    }
    // Queue order makes the uniform buffers safe to rewrite for the next step. Release in
    // reverse so the next step, recording the same dispatches, gets the same buffers back
    // (and so hits the bind-group cache).
    for (let i = this.frameUniforms.length - 1; i >= 0; i--) this.pool.release(this.frameUniforms[i]);
    this.frameUniforms = [];
  }

  /** Submits and waits until the GPU has finished everything submitted so far. */
  async sync(): Promise<void> {
    this.submit();
    await gpuWait(() => this.device.queue.onSubmittedWorkDone());
    this.checkAlive();
  }

  /** Submits pending work and reads `bytes` (default: all) of `buf` back. */
  async read(buf: GPUBuffer, bytes = buf.size, offset = 0): Promise<ArrayBuffer> {
    const size = Math.ceil(bytes / 4) * 4;
    this.readbackCount++;
    const u = this.usage;
    const staging = this.pool.acquire(size, u.MAP_READ | u.COPY_DST, 'readback staging');
    this.copy(buf, offset, staging, 0, size);
    this.submit();
    try {
      await this.mapForRead(staging, size);
      this.checkAlive();
      return staging.getMappedRange(0, size).slice(0, bytes);
    } finally {
      if (staging.mapState === 'mapped') staging.unmap();
      this.pool.release(staging);
    }
  }

  async readF32(buf: GPUBuffer, count?: number, offsetElems = 0): Promise<Float32Array> {
    const n = count ?? buf.size / 4 - offsetElems;
    return new Float32Array(await this.read(buf, n * 4, offsetElems * 4));
  }

  async readU32(buf: GPUBuffer, count?: number, offsetElems = 0): Promise<Uint32Array> {
    const n = count ?? buf.size / 4 - offsetElems;
    return new Uint32Array(await this.read(buf, n * 4, offsetElems * 4));
  }

  /** True once destroy() ran or the device was lost: nothing more can run on this runtime. */
  get closed(): boolean {
    return this.destroying || this.lost !== null;
  }

  /** Frees this runtime's buffers; the device goes with the last runtime on it (sibling). */
  destroy(): void {
    if (this.destroying) return;
    live.delete(this);
    this.destroying = true;
    this.pool.trim();
    this.device.removeEventListener('uncapturederror', this.onUncaptured);
    if (--this.shared.users === 0) this.device.destroy();
  }

  /** Maps a staging buffer for reading once the submitted work is done (Node: see node-wait.ts). */
  private mapForRead(staging: GPUBuffer, size: number): Promise<void> {
    return gpuWait(() => staging.mapAsync(GPUMapModeConst().READ, 0, size));
  }

  private getEncoder(): GPUCommandEncoder {
    if (!this.encoder) this.encoder = this.device.createCommandEncoder({ label: 'step' });
    return this.encoder;
  }

  private computePass(timestampWrites?: GPUComputePassTimestampWrites): GPUComputePassEncoder {
    if (!this.pass) this.pass = this.getEncoder().beginComputePass({ label: 'step compute', timestampWrites });
    return this.pass;
  }

  private endPass(): void {
    if (this.pass) {
      this.pass.end();
      this.pass = null;
    }
  }

  private checkAlive(): void {
    if (this.lost) throw this.lost;
  }

  private emit(err: GpuError): void {
    if (this.listeners.size === 0) console.error(err.message);
    for (const l of this.listeners) l(err);
  }
}

function GPUMapModeConst(): GPUMapMode {
  return (globalThis as unknown as { GPUMapMode: GPUMapMode }).GPUMapMode;
}
