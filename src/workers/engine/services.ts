// The environment's services inside the engine worker: the Python pool as nested module workers
// (src/tools/python/browser-pool.ts, Pyodide from <base>pyodide/) and the search corpus fetched
// from the served <base>datasets/ (vite-plugins.ts datasetsPlugin), started through the logic the
// CLI shares (src/rl/env-services.ts). Exercised by tests/e2e/run-worker.spec.ts (agent preset).
import type { RlConfig } from '../../rl/config-validate';
import { startEnvServices, type RunServices } from '../../rl/env-services';
import { createBrowserPythonPool } from '../../tools/python/browser-pool';

/** A loaded shared machine can take minutes to start Pyodide (tools.harness.ts uses the same budget). */
const START_TIMEOUT_MS = 240_000;

/** The text of a file shipped in datasets/ (named `datasets/x.jsonl` or `x.jsonl`), from the app's server. */
export async function shippedText(file: string, field: string): Promise<string> {
  const name = file.replace(/^(\.\/)?datasets\//, '');
  if (name.includes('/')) {
    throw new Error(`${field} ${file}: the engine worker reads only the files shipped in datasets/; send the file's text instead, or use \`npm run cli -- train\``);
  }
  const url = new URL(`${import.meta.env.BASE_URL}datasets/${encodeURIComponent(name)}`, location.href).href;
  const r = await fetch(url);
  if (!r.ok || (r.headers.get('content-type') ?? '').includes('text/html')) {
    throw new Error(`${field} ${file}: ${url} is not served (HTTP ${r.status}); rebuild or restart the studio, or send the file's text instead`);
  }
  return r.text();
}

/** The pool and corpus the config's env needs; close `pool` when the run ends. */
export function workerServices(cfg: RlConfig): Promise<RunServices> {
  return startEnvServices(cfg, {
    // The browser's boundary is the CSP on the sandbox worker's script (vite-plugins.ts), not an OS level:
    // rollout.allow_weak_sandbox has nothing to relax here.
    createPool: ({ allowWeakSandbox: _unused, ...settings }) => createBrowserPythonPool({ ...settings, startTimeoutMs: START_TIMEOUT_MS }),
    readText: (file) => shippedText(file, cfg.tools.search.corpus ? 'tools.search.corpus' : cfg.data.corpus ? 'data.corpus' : 'corpus'),
  });
}
