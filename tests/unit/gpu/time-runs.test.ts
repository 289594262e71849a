// timeRuns, the timing behind the tuner and the benches: an untimed first run (pipelines build at
// their first dispatch), one timed run, then a batch of runs when that run was quick; a slow run
// is timed once. timeBest skips its second timing for a clear loser; pickFastest (src/gpu/tuning.ts)
// times a close runner-up and the fastest again, a clear loser not, and below NOISY_MS times the
// contenders some more rounds first.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { MAX_BATCH, PROBE_RUNS, batchSize, timeBest, timeRuns } from '../../../src/gpu/kernels/linear-tune';
import { CLOSE_CALL, NOISY_MS, NOISY_ROUNDS, getTuning, pickFastest } from '../../../src/gpu/tuning';
import { mapTuningStore, useTestTuningStore } from '../helpers/tuning-store';
import type { AdapterReport } from '../../../src/gpu/device';

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
    // Warm-up, one timed run, (when that run alone would size a batch under MAX_BATCH) a probe of
    // PROBE_RUNS, then a batch sized from them (their time, mostly a submit-and-wait, varies with
    // the machine's load: the sizes themselves are checked below).
    expect(runs).toBeGreaterThanOrEqual(1 + 1 + 2);
    expect(runs).toBeLessThanOrEqual(1 + 1 + PROBE_RUNS + MAX_BATCH);
    expect(quick).toBeGreaterThanOrEqual(0.05);
    expect(quick).toBeLessThan(2); // per run (a loaded machine slows the busy wait)

    runs = 0;
    const slow = await timeRuns(rt, () => { runs++; busy(15); }, 40);
    expect(runs).toBe(2); // warm-up + one run of at least a quarter of the budget
    expect(slow).toBeGreaterThanOrEqual(15);
  });

  it('a batch fills about a quarter of the budget, 2 to MAX_BATCH runs', () => {
    expect(batchSize(0.05, 400)).toBe(MAX_BATCH); // 0.1 ms runs: 256 (the old cap of 32 timed 3 ms)
    expect(batchSize(1, 400)).toBe(100);
    expect(batchSize(5, 150)).toBe(7); // 5 ms runs: about 37 ms, not 150 ms
    expect(batchSize(30, 150)).toBe(2);
  });

  it('timeBest times twice, or once when the first timing is over 1.5 times the one to beat', async () => {
    const rt = await nodeRuntime();
    let runs = 0;
    const run = () => { runs++; busy(10); };
    await timeBest(rt, run, 40);
    expect(runs).toBe(3); // warm-up, two timings of one run each (10 ms is a quarter of 40)
    runs = 0;
    const ms = await timeBest(rt, run, 40, 2);
    expect(runs).toBe(2); // warm-up, one timing: 10 ms loses to 2 ms clearly
    expect(ms).toBeGreaterThanOrEqual(10);
    runs = 0;
    await timeBest(rt, run, 40, 20);
    expect(runs).toBe(3); // under 30 ms (1.5 x 20; room for a loaded machine): timed twice
  });
});

describe('pickFastest', () => {
  const report = { vendor: 'test', architecture: 'pick-fastest', device: '', description: '' } as AdapterReport;

  it('times a runner-up within CLOSE_CALL and the fastest again, each keeping its best time', async () => {
    const store = new Map<string, string>();
    useTestTuningStore(mapTuningStore(store));
    // b is 10 % behind a in the first pass (a burst of load), ahead when timed back to back; c loses clearly.
    const plan: Record<string, number[]> = { a: [1.0, 1.0], b: [1.1, 0.9], c: [3.0] };
    const calls: string[] = [];
    const time = async (c: string) => { calls.push(c); return plan[c].shift() ?? Infinity; };
    expect(1.1).toBeLessThanOrEqual(CLOSE_CALL);
    expect(await pickFastest(report, 'close', ['a', 'b', 'c'], time)).toBe('b');
    expect(calls).toEqual(['a', 'b', 'c', 'b', 'a']);
    expect(getTuning(report, 'close')).toBe('b');

    // A runner-up 2x behind is not timed again; a candidate that throws is never chosen.
    calls.length = 0;
    const clear: Record<string, number> = { x: 2, y: 1 };
    const t2 = async (c: string) => { calls.push(c); if (c === 'z') throw new Error('does not build'); return clear[c]; };
    expect(await pickFastest(report, 'clear', ['x', 'y', 'z'], t2)).toBe('y');
    expect(calls).toEqual(['x', 'y', 'z']);
  });

  it('runs under NOISY_MS: the contenders timed NOISY_ROUNDS more times in turn, each keeping its best', async () => {
    useTestTuningStore(mapTuningStore(new Map()));
    // A dispatch-bound cell: p wins the first pass by a burst; q is faster in the later rounds;
    // r (over 1.6x the fastest) is not timed again.
    const plan: Record<string, number[]> = { p: [0.10, 0.13, 0.12, 0.12], q: [0.14, 0.09, 0.095, 0.09], r: [0.2] };
    const calls: string[] = [];
    const time = async (c: string) => { calls.push(c); return plan[c].shift() ?? Infinity; };
    expect(0.14).toBeLessThan(NOISY_MS);
    expect(await pickFastest(report, 'noisy', ['p', 'q', 'r'], time)).toBe('q');
    expect(NOISY_ROUNDS).toBe(2);
    // First pass, two rounds over p and q, then (q within CLOSE_CALL of p's 0.10) the close call.
    expect(calls).toEqual(['p', 'q', 'r', 'p', 'q', 'p', 'q', 'p', 'q']);
  });
});
