// Browser Web Worker entry of the Python sandbox. Its script response carries a strict CSP
// (src/server/vite-plugins.ts): connect-src only the Pyodide asset path, so nothing Python does
// reaches the network. Pyodide is imported at run time from that path. Spawned by
// src/tools/python/browser-pool.ts; exercised by tests/e2e/tools.spec.ts.
import type { PyodideInterface } from 'pyodide';
import { createSandboxCore, type LoadOptions } from '../tools/python/sandbox-core';
import { scrubGlobals } from '../tools/python/js-hygiene';
import type { SandboxRequest } from '../tools/python/protocol';

type PyodideModule = { loadPyodide(opts: LoadOptions): Promise<PyodideInterface> };

interface WorkerScope {
  postMessage(msg: unknown): void;
  onmessage: ((ev: MessageEvent<SandboxRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const post = scope.postMessage.bind(scope);

const handle = createSandboxCore({
  post: (msg) => post(msg),
  async loadPyodide(opts) {
    const mod = (await import(/* @vite-ignore */ `${opts.indexURL}pyodide.mjs`)) as PyodideModule;
    return mod.loadPyodide(opts);
  },
  scrubGlobals: () => scrubGlobals(scope),
  readSnapshot(data) {
    if ('bytes' in data) return data.bytes;
    throw new Error('the browser sandbox takes a snapshot as bytes, not a file');
  },
  writeSnapshot: (bytes) => ({ bytes }),
});
scope.onmessage = (ev: MessageEvent<SandboxRequest>) => handle(ev.data);
