// The Node copy of the Pyodide snapshot (snapshot-store.ts), so that a later CLI run or test
// process starts its sandbox workers from it too: one file per Pyodide build and Node version in
// ~/.cache/rl-studio/pyodide/, written atomically. Only the pool reads and writes it; sandbox
// processes get the bytes in their own scratch folder (process-port.ts) and cannot write here.
// A file a worker could not start from is removed, and the next process makes a new one.
// Used by node-pool.ts; tests/unit/tools/tools-python-snapshot.test.ts.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIN_SNAPSHOT_BYTES, type SnapshotFile } from './snapshot-store';
import { CACHE_DIR } from '../../util/cache-dir';

export const DEFAULT_SNAPSHOT_DIR = join(CACHE_DIR, 'pyodide');

export function nodeSnapshotFile(pyodideDir: string, dir = DEFAULT_SNAPSHOT_DIR): SnapshotFile & { path: string } {
  const { version } = JSON.parse(readFileSync(join(pyodideDir, 'package.json'), 'utf8')) as { version: string };
  const wasmBytes = statSync(join(pyodideDir, 'pyodide.asm.wasm')).size;
  const path = join(dir, `pyodide-${version}-${wasmBytes}-node${process.versions.node}.snapshot`);
  return {
    path,
    load() {
      try {
        const b = readFileSync(path);
        return b.length >= MIN_SNAPSHOT_BYTES ? b : null;
      } catch {
        return null; // none yet, or unreadable: make one
      }
    },
    save(bytes) {
      mkdirSync(dir, { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, path);
    },
    remove() {
      rmSync(path, { force: true });
    },
  };
}
