// RunStorage over the browser's Origin Private File System (navigator.storage.getDirectory()),
// used by the engine worker (src/workers/engine/) for its run folders under runs/ID/. OPFS has no rename
// everywhere: a folder is written into NAME.tmp, then moved with FileSystemHandle.move() where the
// browser has it (Chromium), else copied; NAME.old is kept until the new NAME is complete, so an
// interrupted write leaves the same recoverable states as on Node (docs/run-folder.md). A file is
// replaced through createWritable(), which swaps it in whole on close().
// Exercised by tests/e2e/run-worker.spec.ts (a run in headless Chromium writes through it).
import type { RunFiles } from './events';
import { joinPath, OLD_SUFFIX, splitPath, TMP_SUFFIX, type RunStorage } from './storage';

/** FileSystemHandle.move() (not in every browser nor in the DOM typings yet). */
type Movable = FileSystemHandle & { move?: (parent: FileSystemDirectoryHandle, name: string) => Promise<void> };

const notFound = (e: unknown) => e instanceof DOMException && (e.name === 'NotFoundError' || e.name === 'TypeMismatchError');
/** How Chromium fails the read of a File snapshot whose file changed after getFile(). */
const stale = (e: unknown) => e instanceof DOMException && (e.name === 'NotFoundError' || e.name === 'NotReadableError');

export class OpfsStorage implements RunStorage {
  private constructor(private readonly root: FileSystemDirectoryHandle, readonly name: string) {}

  /** The run folder `path` (e.g. "runs/abc") under the origin's OPFS root, created when missing. */
  static async open(path: string): Promise<OpfsStorage> {
    let dir = await navigator.storage.getDirectory();
    for (const part of splitPath(path)) dir = await dir.getDirectoryHandle(part, { create: true });
    return new OpfsStorage(dir, `opfs:/${path}`);
  }

  where(path: string): string {
    return path ? `${this.name}/${path}` : this.name;
  }

  async writeFolder(path: string, files: RunFiles): Promise<void> {
    const tmp = path + TMP_SUFFIX;
    await this.remove(tmp);
    const dir = (await this.dirAt(tmp, true))!;
    for (const [name, bytes] of files) {
      const parts = splitPath(name);
      let d: FileSystemDirectoryHandle = dir;
      for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
      await writeWhole(await d.getFileHandle(parts[parts.length - 1], { create: true }), bytes);
    }
    await this.replaceFolder(tmp, path);
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const { parent, leaf } = await this.parentOf(path, true);
    await writeWhole(await parent!.getFileHandle(leaf, { create: true }), data);
  }

  async append(path: string, text: string): Promise<void> {
    const { parent, leaf } = await this.parentOf(path, true);
    const fh = await parent!.getFileHandle(leaf, { create: true });
    const size = (await fh.getFile()).size;
    const w = await fh.createWritable({ keepExistingData: true });
    await w.seek(size);
    await w.write(text);
    await w.close();
  }

  async read(path: string): Promise<Uint8Array | null> {
    const { parent, leaf } = await this.parentOf(path, false);
    if (!parent) return null;
    for (let attempt = 1; ; attempt++) {
      let f: File;
      try {
        f = await (await parent.getFileHandle(leaf)).getFile();
      } catch (e) {
        if (notFound(e)) return null;
        throw e;
      }
      try {
        return new Uint8Array(await f.arrayBuffer());
      } catch (e) {
        // A File snapshot goes stale when a writer (a live run appending metrics.jsonl, replacing
        // status.json) changes the file before the read; Chromium then reports NotFoundError or
        // NotReadableError: take a new snapshot after a short pause.
        if (!stale(e) || attempt === 8) throw e;
        await new Promise((r) => setTimeout(r, 5 * attempt));
      }
    }
  }

  async list(path: string): Promise<string[]> {
    const dir = path ? await this.dirAt(path, false) : this.root;
    if (!dir) return [];
    const names: string[] = [];
    for await (const name of (dir as FileSystemDirectoryHandle & { keys(): AsyncIterable<string> }).keys()) names.push(name);
    return names;
  }

  async remove(path: string): Promise<void> {
    const { parent, leaf } = await this.parentOf(path, false);
    if (!parent) return;
    try {
      await parent.removeEntry(leaf, { recursive: true });
    } catch (e) {
      if (!notFound(e)) throw e;
    }
  }

  /** `from` becomes `to`: `to` -> `to.old` (if present), `from` -> `to`, then `to.old` removed. */
  async replaceFolder(from: string, to: string): Promise<void> {
    const old = to + OLD_SUFFIX;
    if (await this.exists(to)) {
      await this.remove(old);
      await this.moveFolder(to, old);
    }
    await this.moveFolder(from, to);
    await this.remove(old);
  }

  async exists(path: string): Promise<boolean> {
    const { parent, leaf } = await this.parentOf(path, false);
    if (!parent) return false;
    for (const get of [() => parent.getDirectoryHandle(leaf), () => parent.getFileHandle(leaf)]) {
      try {
        await get();
        return true;
      } catch (e) {
        if (!notFound(e)) throw e;
      }
    }
    return false;
  }

  /** Renames a folder: move() where the browser has it, else a copy then a removal. */
  private async moveFolder(from: string, to: string): Promise<void> {
    const src = (await this.dirAt(from, false)) as Movable | null;
    if (!src) throw new Error(`run storage: ${this.where(from)} does not exist`);
    const { parent, leaf } = await this.parentOf(to, true);
    if (typeof src.move === 'function') {
      await src.move(parent!, leaf);
      return;
    }
    await copyDir(src as unknown as FileSystemDirectoryHandle, await parent!.getDirectoryHandle(leaf, { create: true }));
    await this.remove(from);
  }

  private async dirAt(path: string, create: boolean): Promise<FileSystemDirectoryHandle | null> {
    let d = this.root;
    try {
      for (const p of splitPath(path)) d = await d.getDirectoryHandle(p, { create });
      return d;
    } catch (e) {
      if (!create && notFound(e)) return null;
      throw e;
    }
  }

  private async parentOf(path: string, create: boolean): Promise<{ parent: FileSystemDirectoryHandle | null; leaf: string }> {
    const parts = splitPath(path);
    const leaf = parts.pop()!;
    return { parent: parts.length ? await this.dirAt(joinPath(...parts), create) : this.root, leaf };
  }
}

async function writeWhole(fh: FileSystemFileHandle, data: Uint8Array | string): Promise<void> {
  const w = await fh.createWritable();
  await w.write(typeof data === 'string' ? data : new Uint8Array(data));
  await w.close();
}

async function copyDir(from: FileSystemDirectoryHandle, to: FileSystemDirectoryHandle): Promise<void> {
  for await (const [name, h] of (from as FileSystemDirectoryHandle & { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
    if (h.kind === 'directory') await copyDir(h as FileSystemDirectoryHandle, await to.getDirectoryHandle(name, { create: true }));
    else await writeWhole(await to.getFileHandle(name, { create: true }), new Uint8Array(await (await (h as FileSystemFileHandle).getFile()).arrayBuffer()));
  }
}
