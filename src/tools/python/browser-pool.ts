// The Python pool in the browser: each sandbox worker is a dedicated module Web Worker
// (src/workers/python-sandbox.worker.ts, served with a strict CSP) loading Pyodide from
// <base>pyodide/. Interrupts need the page to be cross-origin isolated (COOP/COEP).
// Used by the studio and src/harness/tools.harness.ts (tests/e2e/tools.spec.ts).
import type { SandboxPort, SandboxReply } from './protocol';
import { PythonPool } from './pool';
import { snapshotStore } from './snapshot-store';
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
 * The browser pool. Starting workers from a Pyodide snapshot is off unless `config.snapshot` says
 * otherwise: the image is kept for this page or worker only, so the first pool of every page
 * pays for the worker that makes it, and in Chromium that cost more than it saved (docs/speed.md,
 * "Python workers from a Pyodide snapshot").
 */
export function createBrowserPythonPool(config: Partial<PoolConfig> = {}): PythonPool {
  const base = pyodideBaseUrl();
  return new PythonPool(browserSandboxPort, base, { snapshot: false, ...config }, snapshotStore(base));
}
