// FileSource over a directory on disk (Node only: imports node:fs). Ranged reads go through a
// file handle, so a tensor is read without loading the whole file. openNodeModelSource also
// accepts a llama2.c `.bin` checkpoint path. Exercised by tests/unit/model/io-*.test.ts and the CLI.
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { checkRange, missingFile, type FileSource } from './source';
import { MemorySource } from './memory-source';
import { ModelLoadError } from './errors';

export class NodeDirSource implements FileSource {
  readonly name: string;

  constructor(readonly dir: string) {
    this.name = `folder ${dir}`;
  }

  async list(): Promise<string[]> {
    const out: string[] = [];
    const walk = async (d: string): Promise<void> => {
      for (const ent of await readdir(d, { withFileTypes: true })) {
        const p = join(d, ent.name);
        if (ent.isDirectory()) await walk(p);
        else if (ent.isFile() || ent.isSymbolicLink()) out.push(relative(this.dir, p).split(sep).join('/'));
      }
    };
    await walk(this.dir);
    return out.sort();
  }

  async size(path: string): Promise<number> {
    try {
      return (await stat(this.abs(path))).size;
    } catch {
      throw missingFile(this, path);
    }
  }

  async read(path: string, start?: number, end?: number): Promise<Uint8Array> {
    const size = await this.size(path);
    const [s, e] = checkRange(path, size, start, end);
    const fh = await open(this.abs(path), 'r');
    try {
      const out = new Uint8Array(e - s); // own ArrayBuffer: aligned, never Node's shared pool
      let done = 0;
      while (done < out.length) {
        const { bytesRead } = await fh.read(out, done, out.length - done, s + done);
        if (bytesRead === 0) throw new ModelLoadError(path, `ended after ${s + done} bytes while reading [${s}, ${e}): the file changed or is truncated`);
        done += bytesRead;
      }
      return out;
    } finally {
      await fh.close();
    }
  }

  async readText(path: string): Promise<string> {
    try {
      return await readFile(this.abs(path), 'utf8');
    } catch {
      throw missingFile(this, path);
    }
  }

  private abs(path: string): string {
    return join(this.dir, ...path.split('/'));
  }
}

export interface OpenModelOptions {
  /** llama2.c tokenizer `.bin` (default: tok*.bin or tokenizer.bin beside the checkpoint). */
  tokenizer?: string;
}

/**
 * A model folder, or a llama2.c `.bin` checkpoint file: the checkpoint and its tokenizer are
 * exposed as a two-file MemorySource, which loadModelFiles converts in memory.
 */
export async function openNodeModelSource(path: string, opts: OpenModelOptions = {}): Promise<FileSource> {
  const st = await stat(path).catch(() => undefined);
  if (!st) throw new ModelLoadError(basename(path), `not found at ${path}; pass a model folder or a llama2.c .bin checkpoint`);
  if (st.isDirectory()) return new NodeDirSource(path);
  const files: Record<string, Uint8Array> = { [basename(path)]: new Uint8Array(await readFile(path)) };
  const tokPath = opts.tokenizer ?? (await findLlama2cTokenizer(dirname(path), basename(path)));
  if (tokPath) files[basename(tokPath) === basename(path) ? 'tokenizer.bin' : basename(tokPath)] = new Uint8Array(await readFile(tokPath));
  return new MemorySource(files, `checkpoint ${path}`);
}

async function findLlama2cTokenizer(dir: string, self: string): Promise<string | undefined> {
  const names = (await readdir(dir)).filter((n) => n !== self && n.endsWith('.bin'));
  const pick = names.find((n) => n === 'tokenizer.bin') ?? names.find((n) => n.startsWith('tok'));
  return pick ? join(dir, pick) : undefined;
}
