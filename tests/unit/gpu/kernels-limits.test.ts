// The streaming-read kernel behind the bandwidth limit (shaders/bandwidth.wgsl, both layouts)
// against stream_read, including a size that does not divide evenly; and measureLimits giving
// positive figures on a small problem. Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { measureLimits, streamReadKernel } from '../../../src/gpu/limits';
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
});
