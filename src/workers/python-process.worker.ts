// Entry of one Node sandbox process (see src/tools/python/process-port.ts): bundled with esbuild,
// started with an empty environment under Node's permission model, and driven over the IPC
// channel with the same protocol as the browser worker. Pyodide is imported from the indexURL the
// pool sends. Exercised by tests/unit/tools/tools-python*.test.ts and the CLI `python` command.
import { constants as fsConstants, readFileSync, writeFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { PyodideInterface } from 'pyodide';
import { createSandboxCore, type LoadOptions } from '../tools/python/sandbox-core';
import { scrubGlobals } from '../tools/python/js-hygiene';
import type { SandboxReply, SandboxRequest } from '../tools/python/protocol';

type PyodideModule = { loadPyodide(opts: LoadOptions): Promise<PyodideInterface> };

/** The file a snapshot this process makes is written to, in its scratch folder. */
const SNAPSHOT_OUT = 'made.snapshot';

const send = process.send?.bind(process);
if (!send) throw new Error('python-process.worker must be started with an IPC channel');

// Pyodide's NODEFS reads flag values through process.binding('constants'), which the permission
// model forbids; the same values are public in fs/os.constants.
const binding = (name: string): unknown => {
  if (name === 'constants') return { fs: fsConstants, os: osConstants };
  throw new Error(`process.binding('${name}') is not available in the sandbox`);
};
Object.defineProperty(process, 'binding', { value: binding });

const handle = createSandboxCore({
  post: (msg: SandboxReply) => void send(msg),
  async loadPyodide(opts) {
    const mod = (await import(pathToFileURL(`${opts.indexURL}pyodide.mjs`).href)) as PyodideModule;
    return mod.loadPyodide(opts);
  },
  scrubGlobals: () => scrubGlobals(globalThis),
  // Snapshot files live in this process's scratch folder, its working directory (process-port.ts).
  readSnapshot: (data) => ('bytes' in data ? data.bytes : readFileSync(data.file)),
  writeSnapshot(bytes) {
    writeFileSync(SNAPSHOT_OUT, bytes);
    return { file: SNAPSHOT_OUT };
  },
});
process.on('message', (req: SandboxRequest) => handle(req));
process.on('disconnect', () => process.exit(0));
