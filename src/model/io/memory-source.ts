// A FileSource over bytes held in memory: used for llama2.c checkpoints converted on the fly,
// for files built inside tests, and wherever a caller already has the bytes.
// Exercised by tests/unit/model/io-loader.test.ts and io-llama2c.test.ts.
import { checkRange, missingFile, type FileSource } from './source';

export class MemorySource implements FileSource {
  private readonly files: Map<string, Uint8Array>;

  constructor(files: Map<string, Uint8Array> | Record<string, Uint8Array | string>, readonly name = 'in-memory files') {
    this.files = new Map();
    const entries = files instanceof Map ? [...files] : Object.entries(files);
    for (const [path, data] of entries) this.files.set(path, typeof data === 'string' ? new TextEncoder().encode(data) : data);
  }

  async list(): Promise<string[]> {
    return [...this.files.keys()];
  }

  async size(path: string): Promise<number> {
    return this.get(path).byteLength;
  }

  async read(path: string, start?: number, end?: number): Promise<Uint8Array> {
    const data = this.get(path);
    const [s, e] = checkRange(path, data.byteLength, start, end);
    return data.slice(s, e); // a copy: callers may keep or transfer it
  }

  async readText(path: string): Promise<string> {
    return new TextDecoder().decode(this.get(path));
  }

  private get(path: string): Uint8Array {
    const d = this.files.get(path);
    if (!d) throw missingFile(this, path);
    return d;
  }
}
