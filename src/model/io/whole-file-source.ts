// A FileSource over files that arrive whole (bytes in memory, a run-storage folder, files fetched
// from the app's server): subclasses say how to list and how to get one file's bytes; size, range
// reads and text come from here. Used by memory-source.ts, run/storage.ts (StorageSource) and the
// engine worker's UrlSource; exercised by tests/unit/model/io-loader.test.ts and run-storage.test.ts.
import { checkRange, missingFile, type FileSource } from './source';

export abstract class WholeFileSource implements FileSource {
  abstract readonly name: string;
  abstract list(): Promise<string[]>;
  /** The whole file, or null when there is no such file. */
  protected abstract bytes(path: string): Promise<Uint8Array | null>;

  async size(path: string): Promise<number> {
    return (await this.get(path)).byteLength;
  }

  async read(path: string, start?: number, end?: number): Promise<Uint8Array> {
    const data = await this.get(path);
    const [a, b] = checkRange(path, data.byteLength, start, end);
    return data.slice(a, b); // a copy: callers may keep or transfer it
  }

  async readText(path: string): Promise<string> {
    return new TextDecoder().decode(await this.get(path));
  }

  private async get(path: string): Promise<Uint8Array> {
    const d = await this.bytes(path);
    if (!d) throw missingFile(this, path);
    return d;
  }
}
