// The Tools panel's "Start" and "Stored image" rows: how Python workers start in the studio (from a Pyodide image
// kept in this browser's Cache Storage, or loading Pyodide), what is stored now, and a button that
// deletes it (about 30 MB). browser-snapshot-cache.ts does the storage; tested by
// tests/e2e/studio-tools.spec.ts.
import { useEffect, useState } from 'react';
import { deleteStoredSnapshots, listStoredSnapshots, type StoredSnapshot } from '../../tools/python/browser-snapshot-cache';
import { pyodideBaseUrl } from '../../tools/python/browser-pool';
import { formatBytes } from '../../gpu/errors';

type Stored = { kind: 'checking' } | { kind: 'unavailable' } | { kind: 'error'; message: string } | { kind: 'listed'; images: StoredSnapshot[] };

function describe(s: Stored): string {
  if (s.kind === 'checking') return 'checking...';
  if (s.kind === 'unavailable') return 'none: this page has no Cache Storage (not a secure context), so every worker loads Pyodide';
  if (s.kind === 'error') return `Cache Storage could not be read: ${s.message}`;
  if (s.images.length === 0) return 'none yet (workers load Pyodide)';
  return s.images.map((i) => `${formatBytes(i.bytes)}${i.current ? '' : ', for another Pyodide or browser version (replaced by the next one made)'}`).join('; ');
}

/** What Cache Storage holds now, as the row shows it. */
async function readStored(): Promise<Stored> {
  try {
    const images = await listStoredSnapshots(pyodideBaseUrl());
    return images ? { kind: 'listed', images } : { kind: 'unavailable' };
  } catch (e) {
    return { kind: 'error', message: (e as Error).message };
  }
}

export function SnapshotRow() {
  const [stored, setStored] = useState<Stored>({ kind: 'checking' });
  useEffect(() => {
    let live = true;
    void readStored().then((s) => { if (live) setStored(s); });
    return () => { live = false; };
  }, []);
  const remove = async () => {
    try {
      await deleteStoredSnapshots();
      setStored(await readStored());
    } catch (e) {
      setStored({ kind: 'error', message: (e as Error).message });
    }
  };
  const any = stored.kind === 'listed' && stored.images.length > 0;
  return (
    <>
      <dt>Start</dt>
      <dd>From a Pyodide image kept in this browser when there is one (about half the load time); made in the background once a worker is replaced</dd>
      <dt>Stored image</dt>
      <dd>
        <span data-testid="snapshot-status">{describe(stored)}</span>
        {any && <> <button type="button" className="link" onClick={() => void remove()} data-testid="snapshot-delete" aria-label="Delete the stored Pyodide image">Delete</button></>}
      </dd>
    </>
  );
}
