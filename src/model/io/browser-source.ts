// FileSources for the browser: files picked or dropped by the user (a FileList or File[], a
// folder via <input webkitdirectory> keeps webkitRelativePath), and a File System Access
// FileSystemDirectoryHandle. Ranged reads use Blob.slice, so big files are never read whole.
// Exercised in the browser through src/harness/io.harness.ts.
import { checkRange, missingFile, type FileSource } from './source';

async function readBlob(path: string, blob: Blob, start?: number, end?: number): Promise<Uint8Array> {
  const [s, e] = checkRange(path, blob.size, start, end);
  return new Uint8Array(await blob.slice(s, e).arrayBuffer());
}

/**
 * Strip the common top folder of a dropped directory ("model/config.json" -> "config.json"). The
 * paths are the files' webkitRelativePath (or name) unless given (a folder dropped as entries).
 */
export function relativePaths(files: File[], paths?: string[]): string[] {
  const raw = files.map((f, i) => (paths?.[i] || f.webkitRelativePath || f.name).replace(/\\/g, '/'));
  const tops = new Set(raw.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '')));
  if (tops.size === 1 && !tops.has('')) {
    const n = [...tops][0].length + 1;
    return raw.map((p) => p.slice(n));
  }
  return raw;
}

export class FileListSource implements FileSource {
  private readonly byPath = new Map<string, File>();

  constructor(files: FileList | File[], readonly name = 'dropped files', paths?: string[]) {
    const arr = Array.from(files);
    relativePaths(arr, paths).forEach((p, i) => this.byPath.set(p, arr[i]));
  }

  async list(): Promise<string[]> {
    return [...this.byPath.keys()].sort();
  }

  async size(path: string): Promise<number> {
    return this.get(path).size;
  }

  read(path: string, start?: number, end?: number): Promise<Uint8Array> {
    return readBlob(path, this.get(path), start, end);
  }

  async readText(path: string): Promise<string> {
    return this.get(path).text();
  }

  private get(path: string): File {
    const f = this.byPath.get(path);
    if (!f) throw missingFile(this, path);
    return f;
  }
}

/** The async iteration the TS DOM lib leaves out unless DOM.AsyncIterable is enabled. */
interface IterableDirectoryHandle {
  values(): AsyncIterable<FileSystemDirectoryHandle | FileSystemFileHandle>;
}

export class DirectoryHandleSource implements FileSource {
  readonly name: string;
  private files?: Promise<Map<string, FileSystemFileHandle>>;

  constructor(private readonly root: FileSystemDirectoryHandle) {
    this.name = `folder ${root.name}`;
  }

  async list(): Promise<string[]> {
    return [...(await this.index()).keys()].sort();
  }

  async size(path: string): Promise<number> {
    return (await this.file(path)).size;
  }

  async read(path: string, start?: number, end?: number): Promise<Uint8Array> {
    return readBlob(path, await this.file(path), start, end);
  }

  async readText(path: string): Promise<string> {
    return (await this.file(path)).text();
  }

  private async file(path: string): Promise<File> {
    const h = (await this.index()).get(path);
    if (!h) throw missingFile(this, path);
    return h.getFile();
  }

  private index(): Promise<Map<string, FileSystemFileHandle>> {
    this.files ??= (async () => {
      const out = new Map<string, FileSystemFileHandle>();
      const walk = async (dir: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
        for await (const h of (dir as unknown as IterableDirectoryHandle).values()) {
          if (h.kind === 'directory') await walk(h as FileSystemDirectoryHandle, `${prefix}${h.name}/`);
          else out.set(`${prefix}${h.name}`, h as FileSystemFileHandle);
        }
      };
      await walk(this.root, '');
      return out;
    })();
    return this.files;
  }
}
