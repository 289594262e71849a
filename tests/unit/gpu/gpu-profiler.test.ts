// DispatchProfiler (src/gpu/profiler.ts): with it attached, every dispatch is stamped in its own
// pass and collect() sums the GPU time per kernel and grid; the results still match the CPU twin.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { DispatchProfiler } from '../../../src/gpu/profiler';
import { RmsNorm } from '../../../src/gpu/kernels/rmsnorm';
import { rmsnorm_forward } from '../../../src/reference/rmsnorm';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';

describe('DispatchProfiler', () => {
  it('counts calls and GPU time per kernel; results unchanged', async () => {
    const rt = await nodeRuntime();
    if (!rt.hasFeature('timestamp-query')) {
      expect(() => new DispatchProfiler(rt.device)).toThrow(/timestamp-query/);
      return;
    }
    const N = 300, C = 64;
    const x = randomArray(N * C, 1), w = randomArray(C, 2);
    const xb = rt.upload(x, 'x'), wb = rt.upload(w, 'w'), yb = rt.storage(N * C * 4, 'y');
    const norm = await RmsNorm.create(rt, C, 1e-6, 'thread');
    rt.profiler = new DispatchProfiler(rt.device, 8);
    for (let i = 0; i < 3; i++) norm.run(xb, wb, yb, N);
    const d = maxAbsDiff(await rt.readF32(yb, N * C), rmsnorm_forward(x, w, N, C, 1e-6));
    await rt.profiler.collect();
    const rows = rt.profiler.report();
    console.log(`profiler: ${rows.map((r) => `${r.kernel} ${r.calls} calls ${r.ms.toFixed(3)} ms`).join('; ')}; rmsnorm maxdiff=${d.toExponential(2)}`);
    expect(rows).toHaveLength(1);
    expect(rows[0].kernel).toBe('rmsnorm:rmsnorm_t:WG=64 [5x1x1]');
    expect(rows[0].calls).toBe(3);
    expect(rows[0].ms).toBeGreaterThanOrEqual(0);
    expect(d).toBeLessThan(1e-5);
    rt.profiler.destroy();
    rt.profiler = null;
    rt.release(xb, wb, yb);
  });
});
