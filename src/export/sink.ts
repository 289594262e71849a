// Where an export writes its files: a folder on disk (node-sink.ts), memory (MemorySink, for the
// browser and tests), or anything else with a write(path, bytes). Paths are '/'-separated and
// relative to the export's root. Used by hf-folder.ts and onnx/export.ts.

export interface ExportSink {
  /** Writes one file; `parts` are concatenated (large files need not exist as one array). */
  write(path: string, parts: Uint8Array | Uint8Array[]): Promise<void>;
}

/** Keeps the files in memory (a MemorySource can read them back). */
export class MemorySink implements ExportSink {
  readonly files = new Map<string, Uint8Array>();

  async write(path: string, parts: Uint8Array | Uint8Array[]): Promise<void> {
    const list = Array.isArray(parts) ? parts : [parts];
    const out = new Uint8Array(list.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of list) {
      out.set(p, at);
      at += p.length;
    }
    this.files.set(path, out);
  }
}

export const jsonBytes = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v, null, 2) + '\n');
