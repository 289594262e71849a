// ExportSink over a folder on disk (Node only). Creates sub-folders as needed and streams the
// parts of a file one after the other. Used by the CLI `export` command and the export tests.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ExportSink } from './sink';

export class NodeDirSink implements ExportSink {
  constructor(readonly dir: string) {}

  async write(path: string, parts: Uint8Array | Uint8Array[]): Promise<void> {
    const file = join(this.dir, path);
    await mkdir(dirname(file), { recursive: true });
    const out = createWriteStream(file);
    const done = new Promise<void>((resolve, reject) => {
      out.on('finish', resolve);
      out.on('error', reject);
    });
    for (const p of Array.isArray(parts) ? parts : [parts]) {
      if (!out.write(p)) await new Promise<void>((r) => out.once('drain', r));
    }
    out.end();
    await done;
  }
}
