// timeRuns, the timing behind the tuner and the benches: an untimed first run (pipelines build at
// their first dispatch), then batches of 1, 4, 16, ... runs until a batch fills a quarter of the
// budget, so a quick kernel is timed over many runs and a slow one over one.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { timeRuns } from '../../../src/gpu/kernels/linear-tune';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* host work standing in for a run */ }
}

describe('timeRuns', () => {
  it('runs once untimed, then grows the batch until it fills a quarter of the budget', async () => {
    const rt = await nodeRuntime();
    let runs = 0;
    const quick = await timeRuns(rt, () => { runs++; busy(0.05); }, 400);
    // 0.05 ms a run, 100 ms wanted: batches 1, 4, ..., 1,024 (51 ms: the cap), after the warm-up.
    console.log(`quick run: ${quick.toFixed(4)} ms over ${runs} runs`);
    expect(runs).toBe(1 + 1 + 4 + 16 + 64 + 256 + 1024);
    expect(quick).toBeGreaterThanOrEqual(0.05);
    expect(quick).toBeLessThan(2); // per run, not the batch's >= 51 ms (a loaded machine slows the busy wait)

    runs = 0;
    const slow = await timeRuns(rt, () => { runs++; busy(15); }, 40);
    expect(runs).toBe(2); // warm-up + one run of at least a quarter of the budget
    expect(slow).toBeGreaterThanOrEqual(15);
  });
});
