// Remembers per-adapter choices (which kernel variant is fastest), measured once. Stored in
// localStorage in the browser and in memory elsewhere. Used by the self-test and the engine.
import { adapterKey, type AdapterReport } from './device';

const memory = new Map<string, string>();
const PREFIX = 'rl-studio:tuning:';

function storage(): Pick<Storage, 'getItem' | 'setItem'> | null {
  const ls = (globalThis as { localStorage?: Storage }).localStorage;
  return ls ?? null;
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
