// Responsive timeouts: a synchronous stall of the event loop (as a pipeline build at a kernel's
// first dispatch in Node) must not fire a timeout before an answer that arrived during the stall
// is read; the time the loop is free still counts, and cancelling stops it.
import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
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

  it('an HTTP tool called just before a 1.5 s stall answers within its 1 s timeout (AbortSignal.timeout aborts it)', async () => {
    // The agent loop calls a tool and goes on recording other episodes' GPU work: the request
    // leaves only after the stall, and a wall-clock timer that expired meanwhile fires first.
    // The server runs on a thread of its own (a tool elsewhere), answering at once.
    const server = new Worker(`
      const { parentPort } = require('node:worker_threads');
      const s = require('node:http').createServer((_req, res) => res.end('sunny'));
      s.listen(0, '127.0.0.1', () => parentPort.postMessage(s.address().port));`, { eval: true });
    const port = await new Promise<number>((r) => server.once('message', r));
    const url = `http://127.0.0.1:${port}/w`;
    try {
      const call = directHttpTransport([{ name: 'w', url, method: 'GET', timeout_ms: 1000 }])('w', { city: 'Paris' });
      stall(1500);
      expect(await call).toBe('sunny');
      // The same with the platform's wall-clock timeout.
      const wall = fetch(url, { signal: AbortSignal.timeout(1000) }).then((r) => r.text());
      stall(1500);
      await expect(wall).rejects.toThrow(/abort|timeout/i);
    } finally {
      await server.terminate();
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
