// This adapter's measured limits, the yardsticks of every benchmark figure: peak f32 matmul
// GFLOPS (the best Linear prefill variant on a large square product) and streaming-read memory
// bandwidth (shaders/bandwidth.wgsl, best layout), measured in the same run as the benchmark.
// Used by scripts/bench-*.ts; the stream kernel is tested by tests/unit/gpu/kernels-limits.test.ts.
import type { GpuRuntime } from './runtime';
import { Linear, PREFILL_CANDIDATES, type LinearVariant } from './kernels/linear';
import { timeBest } from './kernels/linear-tune';
import { randomArray } from './selftest';
import type { StreamLayout } from '../reference/bandwidth';
import { median } from '../util/median';

export interface AdapterLimits {
  /** Best f32 GFLOPS over the prefill variants at size^3 (2 size^3 flops per run). */
  peakGflops: number;
  peakVariant: LinearVariant;
  /** Best GB/s (10^9 bytes per second) of a streaming read of `streamBytes`. */
  bandwidthGBs: number;
  bandwidthLayout: StreamLayout;
  size: number;
  streamBytes: number;
}

export interface LimitsOptions {
  /** Side of the square matmul (default 512). */
  size?: number;
  /** Bytes read by the streaming kernel (default 64 MiB: past the caches). */
  streamBytes?: number;
  /** Rough time per measurement, milliseconds (default 400). */
  budgetMs?: number;
}

/** Invocations of the streaming read: enough for every core of a CPU adapter and a GPU's SMs. */
export const STREAM_THREADS = 4096;

/** Records one streaming read of src [n4 vec4] into partial [threads vec4] with `layout`. */
export async function streamReadKernel(rt: GpuRuntime, layout: StreamLayout): Promise<(src: GPUBuffer, n4: number, partial: GPUBuffer, threads: number) => void> {
  const pipeline = await rt.kernel({ shader: 'bandwidth', entry: `stream_${layout}`, overrides: { WG: 64 } });
  const u = new Uint32Array(4);
  return (src, n4, partial, threads) => {
    if (src.size < n4 * 16) throw new Error(`stream_read: src of [${n4}] vec4 (${n4 * 16} bytes) expected, got ${src.size} bytes (${src.label})`);
    if (partial.size < threads * 16) throw new Error(`stream_read: partial of [${threads}] vec4 (${threads * 16} bytes) expected, got ${partial.size} bytes (${partial.label})`);
    u.set([n4, threads, 0, 0]);
    rt.dispatch(pipeline, [src, partial], u, { x: Math.ceil(threads / 64) });
  };
}

/** Measures peak matmul GFLOPS and streaming bandwidth on `rt` (a few seconds on SwiftShader). */
export async function measureLimits(rt: GpuRuntime, opts: LimitsOptions = {}): Promise<AdapterLimits> {
  const size = opts.size ?? 512, streamBytes = opts.streamBytes ?? 64 * 1024 * 1024, budget = opts.budgetMs ?? 400;
  let peakGflops = 0, peakVariant: LinearVariant = PREFILL_CANDIDATES[0];
  const sq = await SquareProduct.create(rt, size, 'limits');
  try {
    for (const v of PREFILL_CANDIDATES) {
      const gf = await sq.gflops(v, budget);
      if (gf > peakGflops) { peakGflops = gf; peakVariant = v; }
    }
  } finally {
    sq.dispose();
  }
  const n4 = Math.floor(streamBytes / 16);
  const src = rt.upload(randomArray(n4 * 4, 3), 'limits stream'), partial = rt.storage(STREAM_THREADS * 16, 'limits partial');
  let bandwidthGBs = 0, bandwidthLayout: StreamLayout = 'grid';
  try {
    for (const layout of ['grid', 'chunk'] as const) {
      const k = await streamReadKernel(rt, layout);
      const run = () => k(src, n4, partial, STREAM_THREADS);
      const ms = await timeBest(rt, run, budget);
      const gbs = (n4 * 16) / (ms * 1e6);
      if (gbs > bandwidthGBs) { bandwidthGBs = gbs; bandwidthLayout = layout; }
    }
  } finally {
    rt.release(src, partial);
  }
  return { peakGflops, peakVariant, bandwidthGBs, bandwidthLayout, size, streamBytes: n4 * 16 };
}

/** The f32 product of two random size x size matrices that the peak is measured on. */
class SquareProduct {
  private constructor(private readonly rt: GpuRuntime, private readonly lin: Linear, private readonly bufs: GPUBuffer[], readonly size: number) {}

  static async create(rt: GpuRuntime, size: number, label: string): Promise<SquareProduct> {
    const X = rt.upload(randomArray(size * size, 1), `${label} X`), W = rt.upload(randomArray(size * size, 2), `${label} W`);
    const Y = rt.storage(size * size * 4, `${label} Y`);
    const lin = await Linear.create(rt, { label, K: size, N: size, weight: { format: 'f32', W } });
    return new SquareProduct(rt, lin, [X, W, Y], size);
  }

  /** GFLOPS of `variant` now (best of two timings of about `budgetMs` each). */
  async gflops(variant: LinearVariant, budgetMs: number): Promise<number> {
    const [X, , Y] = this.bufs, n = this.size;
    await this.lin.prepare(variant);
    const ms = await timeBest(this.rt, () => this.lin.run(X, Y, n, { variant }), budgetMs);
    return (2 * n ** 3) / (ms * 1e6);
  }

  dispose(): void {
    this.lin.dispose();
    this.rt.release(...this.bufs);
  }
}

/**
 * The peak matmul measured again, next to each figure of a benchmark: on a shared machine the
 * adapter's speed moves by tens of per cent within a run (other processes' load), so a share of a
 * peak measured minutes before is noise. `sample()` times `limits.peakVariant` at `limits.size`^3
 * (a fraction of measureLimits' time: one variant); interleaved() pairs it with a timing.
 */
export class PeakProbe {
  private constructor(private readonly sq: SquareProduct, readonly limits: AdapterLimits) {}

  static async create(rt: GpuRuntime, limits: AdapterLimits): Promise<PeakProbe> {
    return new PeakProbe(await SquareProduct.create(rt, limits.size, 'peak probe'), limits);
  }

  /** GFLOPS of the peak variant now (best of two timings of about `budgetMs` each). */
  sample(budgetMs = 200): Promise<number> {
    return this.sq.gflops(this.limits.peakVariant, budgetMs);
  }

  dispose(): void {
    this.sq.dispose();
  }
}

/** Timings of one run, each next to a peak sample: the median time and each round's share of its peak. */
export interface InterleavedTiming {
  /** Median of the rounds' times, ms. */
  ms: number;
  /** Per round: GFLOPS of `flops` at that round's time over the peak sampled just before it. */
  shares: number[];
}

/**
 * `rounds` times: a peak sample, then `time()` (ms per run). Each round's share pairs a timing
 * with the peak of the same seconds, so a load change between rounds moves both.
 */
export async function interleaved(probe: PeakProbe, time: () => Promise<number>, flops: number, rounds = 3): Promise<InterleavedTiming> {
  const times: number[] = [], shares: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const peak = await probe.sample();
    const ms = await time();
    times.push(ms);
    shares.push(flops / (ms * 1e6) / peak);
  }
  return { ms: median(times), shares };
}

/** The per-round shares of an interleaved timing as whole per cents: lowest, highest, median. */
export function shareRange(t: InterleavedTiming): { lo: string; hi: string; median: string } {
  const pc = (x: number) => (100 * x).toFixed(0);
  return { lo: pc(Math.min(...t.shares)), hi: pc(Math.max(...t.shares)), median: pc(median(t.shares)) };
}

/** `3.42 GFLOPS (44% of peak); 52-58 % of the peak sampled next to each of 3 timings, median 55 %`. */
export function ofPeakInterleaved(flops: number, t: InterleavedTiming, peak: number): string {
  const r = shareRange(t);
  return `${ofPeak(flops / (t.ms * 1e6), peak, 'GFLOPS')}; ${r.lo}-${r.hi} % of the peak sampled next to each of ${t.shares.length} timings, median ${r.median} %`;
}

/** `12.3 GFLOPS (45% of peak)`: a figure with its share of the measured limit. */
export function ofPeak(value: number, peak: number, unit: string): string {
  return `${value.toFixed(2)} ${unit} (${peak > 0 ? ((100 * value) / peak).toFixed(0) : '?'}% of peak)`;
}

/** One line describing the limits, for the head of a benchmark's output. */
export function describeLimits(l: AdapterLimits): string {
  return `adapter limits (measured now): peak ${l.peakGflops.toFixed(2)} GFLOPS f32 (${l.peakVariant}, ${l.size}^3), ` +
    `bandwidth ${l.bandwidthGBs.toFixed(2)} GB/s (streaming read of ${(l.streamBytes / 2 ** 20).toFixed(0)} MiB, ${l.bandwidthLayout})`;
}
