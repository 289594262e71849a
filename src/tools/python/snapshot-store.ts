// Where Python pools keep the Pyodide snapshot their workers start from: a memory image of the
// interpreter just after it loaded, before any code ran (sandbox-core.ts makes it in a worker that
// serves nothing else). Starting from it loads Pyodide in about a third of the time
// (docs/speed.md, "Python workers from a snapshot"). One snapshot per Pyodide location and JS
// realm (the page, the engine worker, a Node process), made once even when several pools ask at
// the same time; also kept for later processes or pages: a file in Node (node-snapshot-file.ts),
// Cache Storage in the browser (browser-snapshot-cache.ts).
// Used by pool.ts; tests/unit/tools/tools-python-snapshot.test.ts, tests/e2e/tools.spec.ts.

/** Smaller than any real image (Pyodide's heap alone is tens of MB): a truncated copy is ignored. */
export const MIN_SNAPSHOT_BYTES = 1 << 20;

/**
 * A lasting copy of the snapshot (a file in Node, a Cache Storage entry in the browser): read
 * (null when there is none or it is unusable), written whole, removed when it proved bad. `save`
 * and `remove` may finish in the background; their failures are the copy's own business.
 */
export interface SnapshotFile {
  load(): Uint8Array | null | Promise<Uint8Array | null>;
  save(bytes: Uint8Array): void;
  remove(): void;
}

/** Where the snapshot a store serves came from: its lasting copy, or a maker worker here. */
export type SnapshotSource = 'stored' | 'made';

export interface SnapshotStore {
  /** The snapshot workers start from: the kept one, or the one `make` returns (then kept). Rejects
   * when making one failed, here or before in this realm: the pool then loads Pyodide as before. */
  get(make: () => Promise<Uint8Array>): Promise<Uint8Array>;
  /** A snapshot to start from without waiting for a maker: the kept one when it is ready, else the
   * lasting copy (then kept), else null (none yet, one is being made, or one failed). */
  peek(): Promise<Uint8Array | null>;
  /** Where the snapshot last had came from (undefined before one was had). */
  source(): SnapshotSource | undefined;
  /** Forgets `bytes` (a worker could not start from them) unless another snapshot replaced them. */
  discard(bytes: Uint8Array, reason: string): void;
}

interface Kept {
  /** The snapshot being had (read from the lasting copy, or made) or had. */
  snapshot?: Promise<Uint8Array>;
  /** The same, once had. */
  ready?: Uint8Array;
  /** The lasting copy's read (null: none, or unusable), once per realm. */
  copy?: Promise<Uint8Array | null>;
  source?: SnapshotSource;
  /** Why the last attempt failed; no second maker runs in this realm after one failed. */
  failed?: string;
}

const realm = new Map<string, Kept>();

/** Drops every snapshot this realm keeps (about 30 MB each) and any failure it remembers; pools
 * made later make or load theirs again (from the lasting copy, if any). */
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
  const readCopy = (kept: Kept): Promise<Uint8Array | null> => (kept.copy ??= (async () => {
    try {
      return (await file?.load()) ?? null;
    } catch {
      return null; // an unreadable copy: as if there were none
    }
  })());
  const had = (kept: Kept, bytes: Uint8Array, source: SnapshotSource): Uint8Array => {
    kept.ready = bytes;
    kept.source = source;
    return bytes;
  };
  return {
    get(make) {
      const kept = keptHere();
      if (kept.failed) return Promise.reject(new Error(kept.failed));
      kept.snapshot ??= (async () => {
        const stored = await readCopy(kept);
        if (stored) return had(kept, stored, 'stored');
        const bytes = await make();
        try {
          file?.save(bytes);
        } catch { /* an unwritable cache: the snapshot still serves this realm */ }
        return had(kept, bytes, 'made');
      })().catch((e: unknown) => {
        kept.failed = `no Pyodide snapshot: ${(e as Error).message}`;
        kept.snapshot = undefined;
        throw e;
      });
      return kept.snapshot;
    },
    async peek() {
      const kept = keptHere();
      if (kept.ready || kept.failed) return kept.ready ?? null;
      const stored = await readCopy(kept);
      if (!stored || kept.failed) return null;
      if (kept.ready) return kept.ready; // a maker finished meanwhile
      kept.snapshot ??= Promise.resolve(stored);
      return had(kept, stored, 'stored');
    },
    source: () => keptHere().source,
    discard(bytes, reason) {
      const kept = keptHere();
      if (kept.ready !== bytes) return;
      kept.snapshot = kept.ready = kept.copy = undefined;
      kept.failed = `a worker could not start from the Pyodide snapshot (${reason})`;
      file?.remove();
    },
  };
}
