// Builds the Node sandbox process's entry (src/workers/python-process.worker.ts) into one .mjs
// with esbuild, once per parent process, in a private temp folder: the sandbox process runs under
// Node's permission model, so it may only read this file and Pyodide's folder (no tsx, no src/).
// Used by process-port.ts; exercised by every Node sandbox test.
import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../../workers/python-process.worker.ts', import.meta.url));

let built: { root: string; file: string } | undefined;

/** Folder owned by this parent process: the bundle and every sandbox's scratch folder live here. */
export function sandboxRoot(): { root: string; file: string } {
  if (built) return built;
  const root = mkdtempSync(join(tmpdir(), 'rl-studio-python-'));
  const out = buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'silent' });
  const file = join(root, 'sandbox-worker.mjs');
  writeFileSync(file, out.outputFiles[0].contents);
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  built = { root, file };
  return built;
}
