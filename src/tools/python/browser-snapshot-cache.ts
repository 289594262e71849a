// The browser's lasting copy of the Pyodide snapshot (snapshot-store.ts): one Cache Storage entry
// per origin, keyed by the Pyodide build and the browser (a new version of either makes a new
// image), so that a page's first Python pool starts its workers from the image a maker worker of
// an earlier page made, instead of loading Pyodide. Only the pool's own realm (the page or the
// engine worker) reads and writes it: the sandbox workers have no `caches` (js-hygiene.ts removes
// it, and their CSP allows no request but Pyodide's files). A copy a worker could not start from
// is removed, and the next page makes a new one. Other images (older builds) are deleted when
// one is saved. Used by browser-pool.ts; tests/e2e/tools.spec.ts.
import pyodidePackage from 'pyodide/package.json';
import { MIN_SNAPSHOT_BYTES, type SnapshotFile } from './snapshot-store';
import { fnvText, hex32 } from '../../util/fnv';

export const SNAPSHOT_CACHE = 'rl-studio-pyodide-snapshot';

/** The key of the image for Pyodide served at `base` in this browser (a URL that is never fetched). */
export function snapshotCacheKey(base: string, browser = navigator.userAgent): string {
  return new URL(`snapshot-${pyodidePackage.version}-${hex32(fnvText(browser))}.bin`, base).href;
}

/** The Cache Storage copy for Pyodide at `base`, or undefined where the page has no Cache Storage (not a secure context). */
export function browserSnapshotFile(base: string): SnapshotFile | undefined {
  if (typeof caches === 'undefined') return undefined;
  const key = snapshotCacheKey(base);
  const open = () => caches.open(SNAPSHOT_CACHE);
  return {
    async load() {
      try {
        const hit = await (await open()).match(key);
        if (!hit) return null;
        const bytes = new Uint8Array(await hit.arrayBuffer());
        return bytes.length >= MIN_SNAPSHOT_BYTES ? bytes : null;
      } catch {
        return null; // storage refused or evicted meanwhile: make one
      }
    },
    save(bytes) {
      void (async () => {
        const cache = await open();
        for (const old of await cache.keys()) if (old.url !== key) await cache.delete(old);
        await cache.put(key, new Response(bytes.slice(), { headers: { 'content-type': 'application/octet-stream' } }));
      })().catch(() => { /* over quota or storage off: the image still serves this realm */ });
    },
    remove() {
      void open().then((cache) => cache.delete(key)).catch(() => {});
    },
  };
}

/** An image kept in Cache Storage: its size and whether this page's pools would start from it. */
export interface StoredSnapshot {
  key: string;
  bytes: number;
  /** Made for this Pyodide build and browser; otherwise the next image made replaces it. */
  current: boolean;
}

/** The images kept in Cache Storage (null where the page has none: not a secure context). */
export async function listStoredSnapshots(base: string): Promise<StoredSnapshot[] | null> {
  if (typeof caches === 'undefined') return null;
  const cache = await caches.open(SNAPSHOT_CACHE);
  const key = snapshotCacheKey(base);
  const out: StoredSnapshot[] = [];
  for (const req of await cache.keys()) {
    const hit = await cache.match(req);
    out.push({ key: req.url, bytes: hit ? (await hit.blob()).size : 0, current: req.url === key });
  }
  return out;
}

/** Deletes every kept image; returns how many there were. Pools already running keep theirs in memory. */
export async function deleteStoredSnapshots(): Promise<number> {
  if (typeof caches === 'undefined') return 0;
  const cache = await caches.open(SNAPSHOT_CACHE);
  const keys = await cache.keys();
  for (const req of keys) await cache.delete(req);
  return keys.length;
}
