// The engine worker's kernel-tuning store: the remembered kernel-variant choices (src/gpu/tuning.ts;
// a worker has no localStorage) kept as one JSON file in a RunStorage (OPFS engine/tuning.json in
// the browser), read when the worker opens its device and rewritten after each new choice, so a
// choice timed once per GPU outlives the worker and the page, as the CLI's ~/.cache file does.
// Tested by tests/unit/workers/tuning-store.test.ts (Node storage) and tests/e2e/run-worker.spec.ts (OPFS).
import type { RunStorage } from '../../run/storage';
import type { TuningStore } from '../../gpu/tuning';

export const TUNING_FILE = 'tuning.json';

export interface PersistentTuningStore extends TuningStore {
  /** Resolves once every choice made so far is written. */
  flushed(): Promise<void>;
}

/** The store over `storage`/tuning.json; an unreadable file starts empty (it is rewritten at the next choice). */
export async function openTuningStore(storage: RunStorage): Promise<PersistentTuningStore> {
  const map = new Map<string, string>();
  const bytes = await storage.read(TUNING_FILE);
  if (bytes) {
    try {
      const obj = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
      if (obj && typeof obj === 'object') {
        for (const [k, v] of Object.entries(obj)) if (typeof v === 'string') map.set(k, v);
      }
    } catch { /* not JSON: choices are measured again */ }
  }
  let writing: Promise<void> = Promise.resolve();
  return {
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => {
      map.set(k, v);
      const json = JSON.stringify(Object.fromEntries(map), null, 1);
      // Writes in order; a failed one (storage full) loses only persistence, not the choice.
      writing = writing.then(() => storage.writeFile(TUNING_FILE, json)).catch(() => undefined);
    },
    flushed: () => writing,
  };
}
