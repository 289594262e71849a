// The streaming-read kernel behind the bandwidth limit (shaders/bandwidth.wgsl, both layouts)
// against stream_read, including a size that does not divide evenly; and measureLimits giving
// positive figures on a small problem; PeakProbe / interleaved pairing timings with peak samples.
// Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { PeakProbe, interleaved, measureLimits, ofPeakInterleaved, streamReadKernel } from '../../../src/gpu/limits';
import { stream_read } from '../../../src/reference/bandwidth';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';

describe('adapter limits', () => {
  for (const layout of ['grid', 'chunk'] as const) {
    it(`stream_${layout}: per-invocation sums match the twin`, async () => {
      const rt = await nodeRuntime();
      const n4 = 1037, threads = 70;
      const src = randomArray(n4 * 4, 5);
      const sb = rt.upload(src, 'src'), pb = rt.storage(threads * 16, 'partial');
      const k = await streamReadKernel(rt, layout);
      k(sb, n4, pb, threads);
      const d = maxAbsDiff(await rt.readF32(pb, threads * 4), stream_read(src, threads, layout));
      console.log(`stream_${layout} n4=${n4} threads=${threads} maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThan(1e-5);
      expect(() => k(sb, n4 + 1, pb, threads)).toThrow(/stream_read: src/);
      rt.release(sb, pb);
    });
  }

  it('measureLimits: positive peak and bandwidth on a small problem', async () => {
    const rt = await nodeRuntime();
    const l = await measureLimits(rt, { size: 64, streamBytes: 1 << 20, budgetMs: 20 });
    console.log(`limits at small sizes: ${l.peakGflops.toFixed(2)} GFLOPS (${l.peakVariant}), ${l.bandwidthGBs.toFixed(2)} GB/s (${l.bandwidthLayout})`);
    expect(l.peakGflops).toBeGreaterThan(0);
    expect(l.bandwidthGBs).toBeGreaterThan(0);
    expect(l.streamBytes).toBe(1 << 20);
  });

  it('PeakProbe / interleaved: one peak sample per round, the median time, each round its share', async () => {
    const rt = await nodeRuntime();
    const limits = await measureLimits(rt, { size: 64, streamBytes: 1 << 20, budgetMs: 20 });
    const probe = await PeakProbe.create(rt, limits);
    try {
      expect(await probe.sample(20)).toBeGreaterThan(0);
      const times = [100, 1, 2];
      let i = 0;
      const t = await interleaved(probe, async () => times[i++], 1e6, 3);
      expect(i).toBe(3);
      expect(t.ms).toBe(2);
      expect(t.shares).toHaveLength(3);
      // 1e6 flops in 100, 1, 2 ms: 0.01, 1, 0.5 GFLOPS, each over its own peak sample (which
      // moves with the machine's load, but not by 100x)
      for (const s of t.shares) expect(Number.isFinite(s) && s > 0).toBe(true);
      expect(t.shares[1] / t.shares[0]).toBeGreaterThan(1);
      expect(ofPeakInterleaved(1e6, t, limits.peakGflops)).toMatch(/^0\.50 GFLOPS \(\d+% of peak\); \d+-\d+ % of the peak sampled next to each of 3 timings, median \d+ %$/);
    } finally {
      probe.dispose();
    }
  });
});
