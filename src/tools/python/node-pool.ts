// The Python pool in Node: each sandbox worker is a separate OS process (process-port.ts) with
// an empty environment, Node's permission model, heap and rlimit caps and no network, at the
// isolation level detectIsolation() reports; below MINIMUM_LEVEL it refuses unless allowed.
// Used by the CLI (`python`, `train`, `eval`), scripts/bench-tools.ts and the unit tests.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { PythonPool } from './pool';
import { snapshotStore } from './snapshot-store';
import { nodeSnapshotFile } from './node-snapshot-file';
import { resolvePoolConfig, type PoolConfig } from './types';
import { describeIsolation, detectIsolation, requireIsolation, type Isolation, type IsolationOptions, type SandboxLimits } from './isolation';
import { processSandboxPort } from './process-port';

const require = createRequire(import.meta.url);

/** Directory of the `pyodide` npm package (pyodide.mjs, the wasm, the stdlib zip). */
export function pyodideDir(): string {
  return dirname(require.resolve('pyodide/package.json')) + '/';
}

export interface NodeSandboxOptions {
  /** Run model-written code even below the minimum isolation level (CLI --allow-weak-sandbox). */
  allowWeakSandbox?: boolean;
  /** Features to leave out on purpose (tests). */
  isolation?: IsolationOptions;
  /** V8 heap cap of each sandbox process, MiB (JS reached from Python allocates here). */
  jsHeapMb?: number;
  /** Folder of the Pyodide snapshot file (default ~/.cache/rl-studio/pyodide; node-snapshot-file.ts). */
  snapshotDir?: string;
}

/**
 * The one-line hook for commands that start a pool (`python`, `train`, `eval`): detects the
 * isolation level, prints it with `log`, and throws when it is below the minimum and not allowed.
 */
export function announceSandbox(log: (line: string) => void, opts: NodeSandboxOptions = {}): Isolation {
  const iso = detectIsolation(opts.isolation);
  log(describeIsolation(iso));
  requireIsolation(iso, opts.allowWeakSandbox ?? false);
  return iso;
}

export function createNodePythonPool(config: Partial<PoolConfig> & NodeSandboxOptions = {}): PythonPool {
  const { allowWeakSandbox, isolation, jsHeapMb = 256, snapshotDir, ...poolConfig } = config;
  const iso = detectIsolation(isolation);
  requireIsolation(iso, allowWeakSandbox ?? false);
  const resolved = resolvePoolConfig(poolConfig);
  const limits: SandboxLimits = {
    jsHeapMb,
    // wasm heap + JS heap + the runtime itself (code, wasm compilation, buffers).
    dataBytes: resolved.maxMemoryBytes + jsHeapMb * 2 ** 20 + 768 * 2 ** 20,
    fileBytes: 64 * 2 ** 20,
  };
  const file = nodeSnapshotFile(pyodideDir(), snapshotDir);
  return new PythonPool(() => processSandboxPort(iso, pyodideDir(), limits), pyodideDir(), resolved, snapshotStore(file.path, file));
}
