// A FileSource over bytes held in memory: used for llama2.c checkpoints converted on the fly,
// for files built inside tests, and wherever a caller already has the bytes.
// Exercised by tests/unit/model/io-loader.test.ts and io-llama2c.test.ts.
import { WholeFileSource } from './whole-file-source';

export class MemorySource extends WholeFileSource {
  private readonly files: Map<string, Uint8Array>;

  constructor(files: Map<string, Uint8Array> | Record<string, Uint8Array | string>, readonly name = 'in-memory files') {
    super();
    this.files = new Map();
    const entries = files instanceof Map ? [...files] : Object.entries(files);
    for (const [path, data] of entries) this.files.set(path, typeof data === 'string' ? new TextEncoder().encode(data) : data);
  }

  async list(): Promise<string[]> {
    return [...this.files.keys()];
  }

  protected async bytes(path: string): Promise<Uint8Array | null> {
    return this.files.get(path) ?? null;
  }
}
