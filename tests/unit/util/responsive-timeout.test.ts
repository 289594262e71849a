// Responsive timeouts: a synchronous stall of the event loop (as a pipeline build at a kernel's
// first dispatch in Node) must not fire a timeout before an answer that arrived during the stall
// is read; the time the loop is free still counts, and cancelling stops it.
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { responsiveSignal, responsiveTimeout } from '../../../src/util/responsive-timeout';
import { directHttpTransport } from '../../../src/tools/http-transport';

/** Blocks this thread for `ms` (what a synchronous createComputePipeline does). */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* busy */ }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('responsiveTimeout', () => {
  it('fires after its time when the loop is free, and not after cancel', async () => {
    const t0 = performance.now();
    const fired = await new Promise<number>((resolve) => { responsiveTimeout(250, () => resolve(performance.now() - t0), 50); });
    console.log(`free loop: 250 ms timeout fired after ${fired.toFixed(0)} ms`);
    expect(fired).toBeGreaterThanOrEqual(245);
    let late = false;
    const cancel = responsiveTimeout(60, () => { late = true; }, 20);
    cancel();
    await sleep(150);
    expect(late).toBe(false);
  });

  it('counts a stall as about two ticks, so an answer that arrived during it wins', async () => {
    let fired = false;
    responsiveTimeout(300, () => { fired = true; }, 50);
    // A plain timer of the same length fires after the stall; the responsive one does not.
    let plain = false;
    setTimeout(() => { plain = true; }, 300);
    stall(600);
    await sleep(60);
    expect(plain).toBe(true);
    expect(fired).toBe(false);
    await sleep(400);
    expect(fired).toBe(true);
  });

  it('an HTTP tool that answers during a 1.5 s stall of a 1 s timeout succeeds (it timed out with AbortSignal.timeout)', async () => {
    const server = createServer((_req, res) => res.end('sunny'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w`;
    try {
      const call = directHttpTransport([{ name: 'w', url, method: 'GET', timeout_ms: 1000 }])('w', { city: 'Paris' });
      await sleep(5); // the request is on its way
      stall(1500);
      expect(await call).toBe('sunny');
      // The same stall with the platform's wall-clock timeout aborts the request.
      const wall = fetch(url, { signal: AbortSignal.timeout(1000) });
      await sleep(5);
      stall(1500);
      await expect(wall).rejects.toThrow(/abort|timeout/i);
    } finally {
      server.close();
    }
  });

  it('responsiveSignal aborts with a TimeoutError', async () => {
    const { signal, clear } = responsiveSignal(50);
    await sleep(200);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
    clear();
  });
});
