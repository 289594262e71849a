// The browser storage the studio keeps models in (OPFS): how much is used and allowed
// (navigator.storage.estimate) and whether it is persistent (navigator.storage.persist, so the
// browser does not evict a stored model under disk pressure). Used by AddModelCard.tsx;
// exercised by tests/e2e/studio-models.spec.ts.
import { useCallback, useEffect, useState } from 'react';

export interface StorageInfo {
  usage: number;
  quota: number;
  persisted: boolean;
}

export async function readStorage(): Promise<StorageInfo | null> {
  if (!navigator.storage?.estimate) return null;
  const e = await navigator.storage.estimate();
  return { usage: e.usage ?? 0, quota: e.quota ?? 0, persisted: (await navigator.storage.persisted?.()) ?? false };
}

/** Asks the browser to keep the studio's storage (it may say no: then models can be evicted). */
export async function askPersistent(): Promise<boolean> {
  return (await navigator.storage?.persist?.()) ?? false;
}

/** The storage figures, and a refresh for after a change. */
export function useStorage(): [StorageInfo | null, () => void] {
  const [info, setInfo] = useState<StorageInfo | null>(null);
  const refresh = useCallback(() => void readStorage().then(setInfo, () => setInfo(null)), []);
  useEffect(refresh, [refresh]);
  return [info, refresh];
}
