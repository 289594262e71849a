// The Python pool in the browser: each sandbox worker is a dedicated module Web Worker
// (src/workers/python-sandbox.worker.ts, served with a strict CSP) loading Pyodide from
// <base>pyodide/. Interrupts need the page to be cross-origin isolated (COOP/COEP).
// Used by the studio and src/harness/tools.harness.ts (tests/e2e/tools.spec.ts).
import type { SandboxPort, SandboxReply } from './protocol';
import { PythonPool } from './pool';
import { snapshotStore } from './snapshot-store';
import { browserSnapshotFile } from './browser-snapshot-cache';
import type { PoolConfig } from './types';

export function browserSandboxPort(): SandboxPort {
  const worker = new Worker(new URL('../../workers/python-sandbox.worker.ts', import.meta.url), { type: 'module', name: 'python-sandbox' });
  return {
    sharesMemory: true,
    post: (msg) => worker.postMessage(msg),
    listen(onReply, onExit) {
      worker.onmessage = (ev: MessageEvent<SandboxReply>) => onReply(ev.data);
      worker.onerror = (ev) => {
        ev.preventDefault();
        onExit(`worker error: ${ev.message || 'failed to load (check the worker script and its CSP)'}`);
      };
    },
    terminate: () => worker.terminate(),
  };
}

export function pyodideBaseUrl(): string {
  return new URL(`${import.meta.env.BASE_URL}pyodide/`, location.href).href;
}

/**
 * The browser pool. Its workers start from a Pyodide snapshot kept for the page or worker and in
 * Cache Storage (browser-snapshot-cache.ts) when there is one, and load Pyodide otherwise; the
 * image is made in the background once a worker has to be replaced (`config.snapshot`, default
 * 'lazy'). Making it first (true) put a maker worker before the first run's tools, and a run hides
 * a worker's start behind its model load and first step (docs/speed.md, "Python workers from a
 * Pyodide snapshot").
 */
export function createBrowserPythonPool(config: Partial<PoolConfig> = {}): PythonPool {
  const base = pyodideBaseUrl();
  return new PythonPool(browserSandboxPort, base, { ...config, snapshot: config.snapshot ?? 'lazy' }, snapshotStore(base, browserSnapshotFile(base)));
}
