// gpuWait (src/gpu/node-wait.ts): while the engine waits for the GPU in Node, the global
// setImmediate that dawn.node polls the device with is throttled to a 1 ms timer, and restored
// afterwards (nested waits, failures); readbacks through GpuRuntime still read the right bytes.
import { describe, expect, it } from 'vitest';
import { gpuWait, gpuWaitActive, hostSpinsOnWait } from '../../../src/gpu/node-wait';
import { nodeRuntime } from '../helpers/gpu-helpers';

describe('gpuWait', () => {
  it('throttles the global setImmediate only while a wait is pending, nested waits included', async () => {
    expect(hostSpinsOnWait()).toBe(true);
    const original = globalThis.setImmediate;
    expect(gpuWaitActive()).toBe(false);
    let inner: typeof setImmediate | null = null;
    const out = await gpuWait(async () => {
      expect(gpuWaitActive()).toBe(true);
      expect(globalThis.setImmediate).not.toBe(original);
      inner = globalThis.setImmediate;
      await gpuWait(async () => { expect(globalThis.setImmediate).toBe(inner); });
      expect(globalThis.setImmediate).toBe(inner); // still throttled after the nested wait
      // The throttled setImmediate still runs its callback with its arguments, from a timer
      // (a Timeout handle, which has refresh(); an Immediate has not).
      let handle: unknown;
      const got = await new Promise<number>((resolve) => { handle = globalThis.setImmediate((v: number) => resolve(v), 42); });
      expect(got).toBe(42);
      expect(typeof (handle as { refresh?: unknown }).refresh).toBe('function');
      return 'done';
    });
    expect(out).toBe('done');
    expect(globalThis.setImmediate).toBe(original);
    expect(gpuWaitActive()).toBe(false);
  });

  it('restores setImmediate when the wait fails', async () => {
    const original = globalThis.setImmediate;
    await expect(gpuWait(async () => { throw new Error('mapAsync failed'); })).rejects.toThrow('mapAsync failed');
    expect(globalThis.setImmediate).toBe(original);
    expect(gpuWaitActive()).toBe(false);
  });

  it('GpuRuntime readbacks and sync go through it and read the same bytes', async () => {
    const rt = await nodeRuntime();
    const original = globalThis.setImmediate;
    const data = Float32Array.from({ length: 1024 }, (_, i) => i * 0.5);
    const buf = rt.upload(data, 'node-wait test');
    const reads = await Promise.all([rt.readF32(buf), rt.readF32(buf, 4, 8)]); // overlapping waits
    expect(Array.from(reads[0])).toEqual(Array.from(data));
    expect(Array.from(reads[1])).toEqual([4, 4.5, 5, 5.5]);
    const parts = await rt.readParts([{ buf, bytes: 16 }, { buf, bytes: 8, offset: 16 }]);
    expect(Array.from(new Float32Array(parts.parts[1]))).toEqual([2, 2.5]);
    await rt.sync();
    expect(globalThis.setImmediate).toBe(original);
    rt.release(buf);
  });
});
