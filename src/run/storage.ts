// RunStorage: the one way a run folder (config.yaml, metrics.jsonl, rollouts.jsonl, checkpoint(s)/,
// adapter/) is written and read, whatever holds it: NodeFsStorage (node-storage.ts, the CLI) or
// OpfsStorage (opfs-storage.ts, the browser's Origin Private File System, used by the engine
// worker). Paths are '/'-separated and relative to the run folder. Folders are replaced through
// NAME.tmp / NAME.old exactly as docs/run-folder.md describes, so recovery (src/run/run-folder.ts)
// is one code path. Tested by tests/unit/run/run-storage.test.ts and tests/e2e/run-worker.spec.ts.
import { WholeFileSource } from '../model/io/whole-file-source';
import type { RunFiles } from './events';

export const TMP_SUFFIX = '.tmp';
export const OLD_SUFFIX = '.old';

export interface RunStorage {
  /** The run folder, for messages (a path, or "opfs:/runs/ID"). */
  readonly name: string;
  /** `path` inside the run folder, for messages. */
  where(path: string): string;
  /**
   * Writes a folder so that a complete copy always exists: files into `path.tmp`, then `path.tmp`
   * replaces `path` (the old one kept as `path.old` until the new one is in place).
   */
  writeFolder(path: string, files: RunFiles): Promise<void>;
  /** Replaces one file through `path.tmp` and a rename (or an atomic swap where there is no rename). */
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  /** Appends text (whole lines) to a file, creating it. */
  append(path: string, text: string): Promise<void>;
  /** The file's bytes, or null when it does not exist. */
  read(path: string): Promise<Uint8Array | null>;
  /** Names of the entries of a folder ([] when it does not exist). */
  list(path: string): Promise<string[]>;
  /** Removes a file or a folder with everything in it; nothing when absent. */
  remove(path: string): Promise<void>;
  /** Puts the complete folder `from` in place of `to` (the replace step of writeFolder). */
  replaceFolder(from: string, to: string): Promise<void>;
  exists(path: string): Promise<boolean>;
}

/** Checks a relative path: no empty, "." or ".." parts (file names come from checkpoints and configs). */
export function splitPath(path: string): string[] {
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) throw new Error(`run storage: refusing the path "${path}" (empty, "." or ".." part)`);
  return parts;
}

export const joinPath = (...parts: string[]): string => parts.filter(Boolean).join('/');

export async function readText(s: RunStorage, path: string): Promise<string | null> {
  const b = await s.read(path);
  return b === null ? null : new TextDecoder().decode(b);
}

/** Every file under `path`, as paths relative to it (depth first, sorted). */
export async function listFiles(s: RunStorage, path: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await s.list(path)).sort()) {
    const p = joinPath(path, name);
    const sub = await listFiles(s, p);
    if (sub.length || (await s.read(p)) === null) out.push(...sub.map((x) => `${name}/${x}`));
    else out.push(name);
  }
  return out;
}

/** A storage folder as a FileSource (loadTrainState, readPeftAdapter read checkpoints through it). */
export class StorageSource extends WholeFileSource {
  readonly name: string;
  private readonly cache = new Map<string, Uint8Array>();

  constructor(private readonly s: RunStorage, private readonly dir: string) {
    super();
    this.name = s.where(dir);
  }

  async list(): Promise<string[]> {
    return listFiles(this.s, this.dir);
  }

  protected async bytes(path: string): Promise<Uint8Array | null> {
    let d = this.cache.get(path);
    if (!d) {
      const r = await this.s.read(joinPath(this.dir, path));
      if (!r) return null;
      d = r;
      this.cache.set(path, d);
    }
    return d;
  }
}
