// Harness function for the run storage in the browser (src/run/opfs-storage.ts): reads a file
// while a writer appends to it, as the Runs panel lists a run that is writing metrics.jsonl.
// Used by tests/e2e/opfs-storage.spec.ts.
import { OpfsStorage } from '../run/opfs-storage';
import type { Harness } from './types';

export function register(h: Harness): void {
  /**
   * `appends` lines appended to one file (and a second file replaced whole each time, as a live run
   * rewrites status.json) while both are read in a loop, through a raw File snapshot (getFile, a
   * pause, then the read) and through OpfsStorage.read: how many reads of each failed or found no
   * file, and the first failure of each.
   */
  h.opfsReadWhileAppending = async (appends: number) => {
    const folder = `harness-opfs-${Date.now()}`;
    const s = await OpfsStorage.open(folder);
    await s.append('m.jsonl', '{"step":0}\n');
    await s.writeFile('status.json', '{"step":0}');
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(folder);
    const handles = [await dir.getFileHandle('m.jsonl'), await dir.getFileHandle('status.json')];
    let done = false;
    const writer = (async () => {
      for (let i = 1; i <= appends; i++) {
        await s.append('m.jsonl', `{"step":${i}}\n`);
        await s.writeFile('status.json', `{"step":${i}}`);
      }
      done = true;
    })();
    const raw = { reads: 0, failed: 0, first: '' }, storage = { reads: 0, failed: 0, missing: 0, first: '' };
    const kinds: Record<string, number> = {};
    while (!done) {
      for (const h of handles) {
        raw.reads++;
        try {
          const f = await h.getFile();
          await new Promise((r) => setTimeout(r, 1));
          await f.arrayBuffer();
        } catch (e) {
          raw.failed++;
          raw.first ||= `${(e as Error).name}: ${(e as Error).message}`;
          const kind = `${h.name} ${(e as Error).name}`;
          kinds[kind] = (kinds[kind] ?? 0) + 1;
        }
      }
      storage.reads += 2;
      try {
        if ((await s.read('m.jsonl')) === null) storage.missing++;
        if ((await s.read('status.json')) === null) storage.missing++;
      } catch (e) {
        storage.failed++;
        storage.first ||= `${(e as Error).name}: ${(e as Error).message}`;
      }
    }
    await writer;
    const lines = new TextDecoder().decode((await s.read('m.jsonl'))!).trim().split('\n').length;
    await (await navigator.storage.getDirectory()).removeEntry(folder, { recursive: true });
    return { raw: { ...raw, kinds: JSON.stringify(kinds) }, storage, lines };
  };
}
