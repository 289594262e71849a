// A kernel tuning store of one test's own: the choices a test forces or times go to it (never to
// the run's tuning file, which the other files of the vitest worker read), and the previous store
// comes back when the test ends (setTuningStore also forgets the in-memory choices both times).
import { onTestFinished } from 'vitest';
import { setTuningStore, type TuningStore } from '../../../src/gpu/tuning';

/** Points the tuner at `store` (null: memory only) until the current test ends. */
export function useTestTuningStore(store: TuningStore | null): void {
  const previous = setTuningStore(store);
  onTestFinished(() => { setTuningStore(previous); });
}

/** A tuning store over a Map (`map`: to look at what was remembered). */
export function mapTuningStore(map = new Map<string, string>()): TuningStore {
  return { getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v) };
}
