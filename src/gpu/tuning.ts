// Remembers per-adapter choices (which kernel variant is fastest), measured once. Stored in
// localStorage in the browser; in Node, node-gpu.ts installs a file store (setTuningStore);
// in memory otherwise. Used by the self-test and the engine.
import { adapterKey, type AdapterReport } from './device';

const memory = new Map<string, string>();
const PREFIX = 'rl-studio:tuning:';

export type TuningStore = Pick<Storage, 'getItem' | 'setItem'>;
let custom: TuningStore | null = null;

/** Replaces the persistent store (Node: a JSON file; see node-gpu.ts). */
export function setTuningStore(store: TuningStore | null): void {
  custom = store;
}

function storage(): TuningStore | null {
  const ls = (globalThis as { localStorage?: Storage }).localStorage;
  return custom ?? ls ?? null;
}

export function getTuning(report: AdapterReport, family: string): string | undefined {
  const key = `${PREFIX}${adapterKey(report)}:${family}`;
  return memory.get(key) ?? storage()?.getItem(key) ?? undefined;
}

export function setTuning(report: AdapterReport, family: string, choice: string): void {
  const key = `${PREFIX}${adapterKey(report)}:${family}`;
  memory.set(key, choice);
  try {
    storage()?.setItem(key, choice);
  } catch { /* storage full or blocked: the in-memory choice still holds */ }
}

/**
 * The remembered choice for `family` if it is one of `candidates`; otherwise times every
 * candidate once with `time` (milliseconds; Infinity or a throw disqualifies it), remembers the
 * fastest and returns it. Used by the kernel launchers on first use (src/gpu/kernels/linear-tune.ts).
 */
export async function pickFastest<T extends string>(report: AdapterReport, family: string, candidates: readonly T[],
  time: (candidate: T) => Promise<number>): Promise<T> {
  const known = getTuning(report, family);
  const hit = candidates.find((c) => c === known);
  if (hit) return hit;
  let best = candidates[0], bestMs = Infinity;
  for (const c of candidates) {
    let ms = Infinity;
    try {
      ms = await time(c);
    } catch { /* a candidate that fails to build or run is simply not chosen */ }
    if (ms < bestMs) { best = c; bestMs = ms; }
  }
  if (bestMs < Infinity) setTuning(report, family, best);
  return best;
}
