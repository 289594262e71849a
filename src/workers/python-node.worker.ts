// Node worker_threads entry of the Python sandbox: wires the shared sandbox core to the parent
// port. Started by src/tools/python/node-pool.ts (through tsx); exercised by the unit tests,
// the CLI `python` command and scripts/bench-tools.ts.
import { parentPort } from 'node:worker_threads';
import { loadPyodide } from 'pyodide';
import { createSandboxCore } from '../tools/python/sandbox-core';
import { scrubGlobals } from '../tools/python/js-hygiene';
import type { SandboxRequest } from '../tools/python/protocol';

const port = parentPort;
if (!port) throw new Error('python-node.worker.ts must run inside worker_threads');

const handle = createSandboxCore({
  post: (msg) => port.postMessage(msg),
  loadPyodide: (opts) => loadPyodide(opts),
  scrubGlobals: () => scrubGlobals(globalThis),
});
port.on('message', (req: SandboxRequest) => handle(req));
