// HostWait (src/gpu/host-wait.ts): how long the host sleeps before mapping a readback, learned per
// kind of work; and that GpuRuntime uses it for its readbacks in Node without changing what they read.
import { describe, expect, it } from 'vitest';
import { HostWait } from '../../../src/gpu/host-wait';
import { nodeRuntime } from '../helpers/gpu-helpers';

describe('HostWait', () => {
  it('does not sleep for a kind seen less than twice, then sleeps 0.6 of the shorter of its first two (spinning) waits', () => {
    const hw = new HostWait();
    expect(hw.sleepFor('44:120')).toBe(0);
    hw.record('44:120', 0, 3000); // the first one compiled pipelines
    expect(hw.sleepFor('44:120')).toBe(0);
    hw.record('44:120', 0, 40);
    expect(hw.sleepFor('44:120')).toBeCloseTo(24, 6);
    expect(hw.sleepFor('44:121')).toBe(0); // another kind
  });

  it('grows after a sleep the work outlasted, shrinks after one that covered it, never below the short one', () => {
    const hw = new HostWait();
    hw.record('k', 0, 25);
    hw.record('k', 0, 25); // sleep 15
    hw.record('k', 15, 30); // mapped 15 ms after the sleep: too short -> 18, short = 15
    expect(hw.sleepFor('k')).toBeCloseTo(18, 6);
    hw.record('k', 18, 18.5, 0.5); // covered -> max(15 * 0.995 * 1.03, 18 * 0.95) = 17.1
    expect(hw.sleepFor('k')).toBeCloseTo(17.1, 6);
    for (let i = 0; i < 5; i++) hw.record('k', hw.sleepFor('k'), hw.sleepFor('k') + 0.2, 0.2);
    // Shrinking stops just above the sleep known to be too short (decayed 0.5 % per readback).
    const floor = 15 * 0.995 ** 6 * 1.03;
    expect(hw.sleepFor('k')).toBeCloseTo(floor, 6);
    expect(hw.sleepFor('k')).toBeGreaterThan(0.99 * 15);
  });

  it('skips sleeps under 2 ms (timer granularity)', () => {
    const hw = new HostWait();
    hw.record('tiny', 0, 3);
    hw.record('tiny', 0, 3); // 1.8 ms
    expect(hw.sleepFor('tiny')).toBe(0);
  });

  it('a timer that fires late is not taken for work that ran long, and no sleep grows past the wait it came from', () => {
    const hw = new HostWait();
    hw.record('t', 0, 20);
    hw.record('t', 0, 20); // sleep 12
    // Slept 12, the timer fired 30 ms late, the map then resolved at once: the work was done.
    hw.record('t', 12, 42.5, 0.5);
    expect(hw.sleepFor('t')).toBeCloseTo(11.4, 6);
    // Too short a hundred times in a row: the sleep grows, but never past the whole wait seen.
    for (let i = 0; i < 100; i++) hw.record('t', hw.sleepFor('t'), 25, 10);
    expect(hw.sleepFor('t')).toBeLessThanOrEqual(25);
  });

  it('around() sleeps the learned time before mapping and learns from the wait', async () => {
    const slept: number[] = [];
    const hw = new HostWait(async (ms) => { slept.push(ms); });
    const order: string[] = [];
    expect(await hw.around('x', async () => { order.push('map'); return 7; })).toBe(7);
    expect(slept).toEqual([]);
    hw.record('y', 0, 50);
    hw.record('y', 0, 50);
    await hw.around('y', async () => { order.push('map y'); });
    expect(slept).toEqual([30]);
    expect(hw.sleptMs).toBe(30);
    expect(order).toEqual(['map', 'map y']);
  });
});

describe('GpuRuntime readbacks with HostWait (Node)', () => {
  it('installs one in Node and reads the same bytes through repeated readbacks of one kind', async () => {
    const rt = await nodeRuntime();
    expect(rt.hostWait).toBeInstanceOf(HostWait);
    const data = Float32Array.from({ length: 1024 }, (_, i) => i * 0.5);
    const buf = rt.upload(data, 'host-wait test');
    for (let i = 0; i < 4; i++) expect(Array.from(await rt.readF32(buf))).toEqual(Array.from(data));
    const parts = await rt.readParts([{ buf, bytes: 16 }, { buf, bytes: 8, offset: 16 }]);
    expect(Array.from(new Float32Array(parts.parts[0]))).toEqual([0, 0.5, 1, 1.5]);
    expect(Array.from(new Float32Array(parts.parts[1]))).toEqual([2, 2.5]);
    rt.release(buf);
  });
});
