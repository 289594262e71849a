// A FileSource over a model folder served with the app (e.g. /models/stories260K/ from public/),
// for the engine worker. A static server cannot list a folder, so list() probes the files a
// Hugging Face or llama2.c folder may hold; each file is fetched once and kept.
// Exercised by tests/e2e/run-worker.spec.ts (stories260K loaded by URL inside the worker).
import { WholeFileSource } from '../../model/io/whole-file-source';

/** Files a model folder may hold (HF: config, weights, tokenizer; llama2.c: the .bin pair). */
export const MODEL_FOLDER_FILES = [
  'config.json', 'generation_config.json', 'model.safetensors', 'model.safetensors.index.json', 'tokenizer.json', 'tokenizer_config.json',
];

export class UrlSource extends WholeFileSource {
  private readonly cache = new Map<string, Promise<Uint8Array | null>>();
  private names: string[] | null = null;

  constructor(readonly name: string, private readonly candidates: string[] = MODEL_FOLDER_FILES) {
    super();
  }

  async list(): Promise<string[]> {
    if (!this.names) {
      const found = await Promise.all(this.candidates.map(async (n) => ((await this.bytes(n)) ? n : null)));
      this.names = found.filter((n): n is string => n !== null);
    }
    return this.names;
  }

  /** The file's bytes, or null when the server has no such file (404, or its HTML fallback page). */
  protected bytes(path: string): Promise<Uint8Array | null> {
    let p = this.cache.get(path);
    if (!p) {
      p = fetch(`${this.name.replace(/\/$/, '')}/${path}`).then(async (r) => {
        if (!r.ok || (r.headers.get('content-type') ?? '').includes('text/html')) return null;
        return new Uint8Array(await r.arrayBuffer());
      });
      this.cache.set(path, p);
    }
    return p;
  }
}
