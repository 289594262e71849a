// Where Python pools keep the Pyodide snapshot their workers start from: a memory image of the
// interpreter just after it loaded, before any code ran (sandbox-core.ts makes it in a worker that
// serves nothing else). Starting from it loads Pyodide in about a third of the time
// (docs/speed.md, "Python workers from a snapshot"). One snapshot per Pyodide location and JS
// realm (the page, the engine worker, a Node process), made once even when several pools ask at
// the same time; in Node also kept in a file for later processes (node-pool.ts).
// Used by pool.ts; tests/unit/tools/tools-python-snapshot.test.ts.

/** A file copy of the snapshot (Node): read, written atomically, removed when it proved bad. */
export interface SnapshotFile {
  load(): Uint8Array | null;
  save(bytes: Uint8Array): void;
  remove(): void;
}

export interface SnapshotStore {
  /** The snapshot workers start from: the kept one, or the one `make` returns (then kept). Rejects
   * when making one failed, here or before in this realm: the pool then loads Pyodide as before. */
  get(make: () => Promise<Uint8Array>): Promise<Uint8Array>;
  /** Forgets `bytes` (a worker could not start from them) unless another snapshot replaced them. */
  discard(bytes: Uint8Array, reason: string): void;
}

interface Kept {
  snapshot?: Promise<Uint8Array>;
  /** Why the last attempt failed; no second maker runs in this realm after one failed. */
  failed?: string;
}

const realm = new Map<string, Kept>();

/** Drops every snapshot this realm keeps (about 30 MB each) and any failure it remembers; pools
 * made later make or load theirs again (from the file, in Node). */
export function forgetKeptSnapshots(): void {
  realm.clear();
}

/** The store of the snapshot for Pyodide at `key` (its index URL or folder) in this realm. */
export function snapshotStore(key: string, file?: SnapshotFile): SnapshotStore {
  const keptHere = (): Kept => {
    let k = realm.get(key);
    if (!k) realm.set(key, (k = {}));
    return k;
  };
  return {
    get(make) {
      const kept = keptHere();
      if (kept.failed) return Promise.reject(new Error(kept.failed));
      kept.snapshot ??= (async () => {
        const stored = file?.load();
        if (stored) return stored;
        const bytes = await make();
        try {
          file?.save(bytes);
        } catch { /* an unwritable cache: the snapshot still serves this process */ }
        return bytes;
      })().catch((e: unknown) => {
        kept.failed = `no Pyodide snapshot: ${(e as Error).message}`;
        kept.snapshot = undefined;
        throw e;
      });
      return kept.snapshot;
    },
    discard(bytes, reason) {
      const kept = keptHere();
      const current = kept.snapshot;
      void current?.then((b) => {
        if (b !== bytes || kept.snapshot !== current) return;
        kept.snapshot = undefined;
        kept.failed = `a worker could not start from the Pyodide snapshot (${reason})`;
        file?.remove();
      }, () => {});
    },
  };
}
