// timeRuns, the timing behind the tuner and the benches: an untimed first run (pipelines build at
// their first dispatch), one timed run, then a batch of runs when that run was quick; a slow run
// is timed once.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { timeRuns } from '../../../src/gpu/kernels/linear-tune';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* host work standing in for a run */ }
}

describe('timeRuns', () => {
  it('runs once untimed, then times a quick run over a batch and a slow one once', async () => {
    const rt = await nodeRuntime();
    let runs = 0;
    const quick = await timeRuns(rt, () => { runs++; busy(0.05); }, 400);
    console.log(`quick run: ${quick.toFixed(4)} ms over ${runs} runs`);
    expect(runs).toBe(1 + 1 + 32); // warm-up, one timed run, the batch (at most 32)
    expect(quick).toBeGreaterThanOrEqual(0.05);
    expect(quick).toBeLessThan(2); // per run (a loaded machine slows the busy wait)

    runs = 0;
    const slow = await timeRuns(rt, () => { runs++; busy(15); }, 40);
    expect(runs).toBe(2); // warm-up + one run of at least a quarter of the budget
    expect(slow).toBeGreaterThanOrEqual(15);
  });
});
