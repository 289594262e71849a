// The Python pool in Node: each sandbox worker is a worker_threads Worker running
// src/workers/python-node.worker.ts through tsx, with Pyodide loaded from node_modules.
// No CSP exists in Node: this isolates time, memory and output, not capabilities (see README).
// Used by the CLI (`npm run cli -- python`), scripts/bench-tools.ts and the unit tests.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SandboxPort, SandboxReply } from './protocol';
import { PythonPool } from './pool';
import type { PoolConfig } from './types';

const require = createRequire(import.meta.url);

/** Directory of the `pyodide` npm package (pyodide.mjs, the wasm, the stdlib zip). */
export function pyodideDir(): string {
  return dirname(require.resolve('pyodide/package.json')) + '/';
}

/** tsx's ESM API (resolved through its package exports), used to run the TS worker entry. */
function tsxApiUrl(): string {
  const pkgPath = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import?: { default?: string } }> };
  const rel = pkg.exports['./esm/api']?.import?.default;
  if (!rel) throw new Error('python pool: cannot find tsx/esm/api (is tsx installed?)');
  return pathToFileURL(join(dirname(pkgPath), rel)).href;
}

const workerEntry = new URL('../../workers/python-node.worker.ts', import.meta.url).href;

export function nodeSandboxPort(): SandboxPort {
  const api = tsxApiUrl();
  const boot = `import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(workerEntry)}, ${JSON.stringify(workerEntry)}))`;
  // stdout/stderr piped so a crashing interpreter's dumps never reach the CLI's JSON output.
  const worker = new Worker(boot, { eval: true, stdout: true, stderr: true, resourceLimits: { stackSizeMb: 8 } });
  worker.stdout.resume();
  worker.stderr.resume();
  return {
    post: (msg) => worker.postMessage(msg),
    listen(onReply, onExit) {
      worker.on('message', (m: SandboxReply) => onReply(m));
      worker.on('error', (e) => onExit(`worker error: ${e.message}`));
      worker.on('exit', (code) => onExit(`worker exited with code ${code}`));
    },
    terminate: () => void worker.terminate(),
  };
}

export function createNodePythonPool(config: Partial<PoolConfig> = {}): PythonPool {
  return new PythonPool(nodeSandboxPort, pyodideDir(), config);
}
