// Node only (node:fs): writes an export or checkpoint file map (peft-export.ts, checkpoint.ts)
// into a folder, creating it and any sub-folders. Used by the CLI; exercised by
// tests/unit/train-peft.test.ts (written folder read back with NodeDirSource).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export async function writeFiles(dir: string, files: Map<string, Uint8Array>): Promise<string[]> {
  const written: string[] = [];
  for (const [name, bytes] of files) {
    if (name.split('/').some((part) => part === '..' || part === '')) throw new Error(`writeFiles: refusing the file name "${name}" (empty or ".." path part)`);
    const path = join(dir, ...name.split('/'));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, bytes);
    written.push(path);
  }
  return written;
}
