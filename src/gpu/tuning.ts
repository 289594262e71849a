// Remembers per-adapter choices (which kernel variant is fastest), measured once. Stored in
// localStorage in the browser; in Node, node-gpu.ts installs a file store (setTuningStore);
// in memory otherwise. Used by the self-test and the engine.
import { adapterKey, type AdapterReport } from './device';

const memory = new Map<string, string>();
const PREFIX = 'rl-studio:tuning:';

export type TuningStore = Pick<Storage, 'getItem' | 'setItem'>;
let custom: TuningStore | null = null;

/**
 * Replaces the persistent store (Node: a JSON file; see node-gpu.ts) and forgets the choices held
 * in memory (they came from, or went to, the previous store). Returns the previous store, for a
 * caller that puts it back.
 */
export function setTuningStore(store: TuningStore | null): TuningStore | null {
  const previous = custom;
  custom = store;
  memory.clear();
  return previous;
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

/** A runner-up within this factor of the fastest is timed again against it (pickFastest). */
export const CLOSE_CALL = 1.15;

/**
 * Below this many milliseconds per run (the fastest after the first pass) a run is mostly the
 * dispatch, whose cost on a CPU adapter moves by +-30 % from one timing to the next (SwiftShader
 * at 0.1 ms: 87-158 us for one variant, 118-234 for another): pickFastest then times the
 * candidates within CONTENDER of the fastest NOISY_ROUNDS more times, in turn, each keeping its
 * best time.
 */
export const NOISY_MS = 1;
export const NOISY_ROUNDS = 2;
const CONTENDER = 1.6;

/**
 * The remembered choice for `family` if it is one of `candidates`; otherwise times every
 * candidate once with `time` (milliseconds; Infinity or a throw disqualifies it; its second
 * argument is the best time so far, Infinity for the first), remembers the fastest and returns it.
 * A runner-up within CLOSE_CALL of the fastest is timed again, then the fastest, and each keeps
 * its best time: on a shared machine the load drifts between the first and the last candidate,
 * and back-to-back timings of the two settle a close call (kernels of 0.1-0.3 ms differ by
 * 10-20 % from one pass to the next there). Runs under NOISY_MS get NOISY_ROUNDS more passes
 * over the contenders first. Used by the kernel launchers on first use (src/gpu/kernels/linear-tune.ts).
 */
export async function pickFastest<T extends string>(report: AdapterReport, family: string, candidates: readonly T[],
  time: (candidate: T, bestMs: number) => Promise<number>): Promise<T> {
  const known = getTuning(report, family);
  const hit = candidates.find((c) => c === known);
  if (hit) return hit;
  const times = new Map<T, number>();
  const timeOf = async (c: T, bestMs: number) => {
    let ms = Infinity;
    try {
      ms = await time(c, bestMs);
    } catch { /* a candidate that fails to build or run is simply not chosen */ }
    times.set(c, Math.min(ms, times.get(c) ?? Infinity));
  };
  const ranked = () => [...times.entries()].sort((a, b) => a[1] - b[1]);
  for (const c of candidates) await timeOf(c, ranked()[0]?.[1] ?? Infinity);
  const fastest = ranked()[0]?.[1] ?? Infinity;
  if (fastest < NOISY_MS) {
    const contenders = ranked().filter(([, ms]) => ms <= CONTENDER * fastest).map(([c]) => c);
    for (let r = 0; r < NOISY_ROUNDS; r++) for (const c of contenders) await timeOf(c, Infinity);
  }
  const [first, second] = ranked();
  if (first && second && second[1] <= CLOSE_CALL * first[1]) {
    await timeOf(second[0], Infinity);
    await timeOf(first[0], Infinity);
  }
  const [best] = ranked();
  if (!best || best[1] === Infinity) return candidates[0];
  setTuning(report, family, best[0]);
  return best[0];
}
