// Streaming access to a checkpoint's tensors: one `model.safetensors`, or shards listed by
// `model.safetensors.index.json`. Headers are read up front; tensor data is read one tensor at
// a time (read / stream), so a caller can upload each tensor to the GPU and drop it before the
// next is read. readAll() is the convenience for small models. Tested by io-safetensors/io-loader.
import type { HostTensor, TensorMap } from '../types';
import { ModelLoadError } from './errors';
import { checkDtype, readSafetensorsHeader, readTensor, type TensorInfo } from './safetensors';
import { readJson, type FileSource, type ProgressFn } from './source';

export const SINGLE_FILE = 'model.safetensors';
export const INDEX_FILE = 'model.safetensors.index.json';

export class WeightStore {
  /** Sum of the tensor byte sizes as stored. */
  readonly totalBytes: number;

  constructor(
    readonly source: FileSource,
    /** Every tensor of the checkpoint, by name, in file order. */
    readonly tensors: Map<string, TensorInfo>,
    /** Progress callback used when stream/readAll are not given one. */
    private readonly defaultProgress?: ProgressFn,
  ) {
    let n = 0;
    for (const t of tensors.values()) n += t.end - t.begin;
    this.totalBytes = n;
  }

  names(): string[] {
    return [...this.tensors.keys()];
  }

  info(name: string): TensorInfo {
    const t = this.tensors.get(name);
    if (!t) throw new ModelLoadError(this.source.name, `no tensor "${name}" in the checkpoint`, name);
    return t;
  }

  /** Read one tensor as f32. */
  read(name: string): Promise<HostTensor> {
    return readTensor(this.source, this.info(name));
  }

  /**
   * Yield tensors one at a time (default: all, in file order). Only the tensor being yielded is
   * held here; progress counts stored bytes over all requested tensors.
   */
  async *stream(names: string[] = this.names(), onProgress = this.defaultProgress): AsyncGenerator<[string, HostTensor]> {
    const infos = names.map((n) => this.info(n));
    infos.forEach(checkDtype); // fail before reading anything
    const total = infos.reduce((a, t) => a + t.end - t.begin, 0);
    let done = 0;
    for (const t of infos) {
      const tensor = await readTensor(this.source, t);
      done += t.end - t.begin;
      onProgress?.({ file: t.file, loadedBytes: done, totalBytes: total, stage: 'tensors' });
      yield [t.name, tensor];
    }
  }

  /** Every tensor in one map: for small models only (holds them all). */
  async readAll(onProgress = this.defaultProgress): Promise<TensorMap> {
    const out: TensorMap = new Map();
    for await (const [name, t] of this.stream(this.names(), onProgress)) out.set(name, t);
    return out;
  }
}

/** Open the checkpoint of a model folder: the index if present, else model.safetensors. */
export async function openWeights(src: FileSource, onProgress?: ProgressFn): Promise<WeightStore> {
  const files = await src.list();
  if (files.includes(INDEX_FILE)) return openSharded(src, onProgress);
  const single = files.includes(SINGLE_FILE)
    ? SINGLE_FILE
    : (() => {
        const st = files.filter((f) => f.endsWith('.safetensors') && !f.startsWith('adapter_'));
        return st.length === 1 ? st[0] : undefined;
      })();
  if (!single) {
    throw new ModelLoadError(SINGLE_FILE, `missing from ${src.name} (and no ${INDEX_FILE}); add the weights, or convert a llama2.c .bin with scripts/convert-llama2c.ts`);
  }
  onProgress?.({ file: single, loadedBytes: 0, totalBytes: 1, stage: 'header' });
  const h = await readSafetensorsHeader(src, single);
  onProgress?.({ file: single, loadedBytes: 1, totalBytes: 1, stage: 'header' });
  return new WeightStore(src, h.tensors, onProgress);
}

async function openSharded(src: FileSource, onProgress?: ProgressFn): Promise<WeightStore> {
  const index = await readJson(src, INDEX_FILE);
  const map = (index as { weight_map?: unknown }).weight_map;
  if (typeof map !== 'object' || map === null) throw new ModelLoadError(INDEX_FILE, '"weight_map" is missing or not an object');
  const wanted = Object.entries(map as Record<string, unknown>);
  const shards = [...new Set(wanted.map(([, f]) => String(f)))].sort();
  const tensors = new Map<string, TensorInfo>();
  for (const [i, shard] of shards.entries()) {
    onProgress?.({ file: shard, loadedBytes: i, totalBytes: shards.length, stage: 'header' });
    const h = await readSafetensorsHeader(src, shard);
    for (const [name, t] of h.tensors) {
      const prev = tensors.get(name);
      if (prev) throw new ModelLoadError(shard, `tensor "${name}" is also in ${prev.file}; the shards overlap`, name);
      tensors.set(name, t);
    }
  }
  onProgress?.({ file: INDEX_FILE, loadedBytes: shards.length, totalBytes: shards.length, stage: 'header' });
  for (const [name, shard] of wanted) {
    const t = tensors.get(name);
    if (!t || t.file !== shard) throw new ModelLoadError(String(shard), `tensor "${name}" is listed in ${INDEX_FILE} for this shard but the shard does not hold it; re-download the shard`, name);
  }
  return new WeightStore(src, tensors, onProgress);
}
