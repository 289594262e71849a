// RunStorage over a Node folder (the CLI's run folders): every file flushed with fsync, folders
// replaced through NAME.tmp / NAME.old by renames (src/train/write-files.ts), files through
// NAME.tmp + rename. Exercised by tests/unit/run/run-storage.test.ts, run-folder.test.ts and the kill
// test tests/unit/cli/run-kill.test.ts.
import { appendFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { replaceDir, syncDir, writeFilesAtomic, writeFileSynced } from '../train/write-files';
import type { RunFiles } from './events';
import { splitPath, TMP_SUFFIX, type RunStorage } from './storage';

export class NodeFsStorage implements RunStorage {
  constructor(readonly root: string) {}

  get name(): string {
    return this.root;
  }

  where(path: string): string {
    return path ? join(this.root, ...splitPath(path)) : this.root;
  }

  async writeFolder(path: string, files: RunFiles): Promise<void> {
    await writeFilesAtomic(this.where(path), files);
  }

  async writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const file = this.where(path);
    await mkdir(dirname(file), { recursive: true });
    await writeFileSynced(file + TMP_SUFFIX, data);
    await rename(file + TMP_SUFFIX, file);
    await syncDir(dirname(file));
  }

  async append(path: string, text: string): Promise<void> {
    const file = this.where(path);
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, text);
  }

  async read(path: string): Promise<Uint8Array | null> {
    try {
      const b = await readFile(this.where(path));
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR') return null;
      throw e;
    }
  }

  async list(path: string): Promise<string[]> {
    try {
      return await readdir(this.where(path));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw e;
    }
  }

  async remove(path: string): Promise<void> {
    await rm(this.where(path), { recursive: true, force: true });
  }

  async replaceFolder(from: string, to: string): Promise<void> {
    await replaceDir(this.where(from), this.where(to));
  }

  async exists(path: string): Promise<boolean> {
    return stat(this.where(path)).then(() => true, () => false);
  }
}
