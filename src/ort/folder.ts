// Opens an ONNX export folder (what `export --format onnx` writes: config.json, tokenizer files,
// onnx/model.onnx or onnx/model_fp16.onnx, external data beside it) as a DecoderEngine on
// onnxruntime-web plus its tokenizer, from any FileSource (a Node folder, dropped files,
// memory). Used by the CLI's `--engine ort` and the playground's engine code; tested by
// tests/unit/ort/ort-engine.test.ts.
import { onnxModelPath } from '../export/onnx/export';
import type { OnnxDtype } from '../export/onnx/graph';
import { parseModelConfig } from '../model/hf-config';
import { readJson, type FileSource } from '../model/io/source';
import { loadTokenizer, type Tokenizer } from '../model/tokenizer';
import type { ModelConfig } from '../model/types';
import { decoderShape, OrtDecoder } from './decoder';
import { OrtEngine } from './engine';
import type { OrtBackend } from './env';

export interface OnnxFolder {
  engine: OrtEngine;
  tokenizer: Tokenizer;
  /** eosTokenIds merged from config.json, generation_config.json and the tokenizer (as loadModelFiles does). */
  config: ModelConfig;
}

export interface OpenOnnxOptions {
  backend: OrtBackend;
  /** Which graph: f32 (onnx/model.onnx, default) or f16 (onnx/model_fp16.onnx). */
  dtype?: OnnxDtype;
}

export async function openOnnxFolder(src: FileSource, opts: OpenOnnxOptions): Promise<OnnxFolder> {
  const dtype = opts.dtype ?? 'f32';
  const path = onnxModelPath(dtype);
  const files = await src.list();
  const fix = 'write one with `npm run cli -- export --model PATH --format onnx --out DIR` and pass --onnx DIR';
  if (!files.includes('config.json')) throw new Error(`${src.name}/config.json is missing: not an ONNX export folder; ${fix}`);
  if (!files.includes(path)) throw new Error(`${src.name}/${path} is missing: this folder has no ${dtype} ONNX graph; ${fix}${dtype === 'f16' ? ' --dtype f16' : ''}`);
  const base = parseModelConfig(await readJson(src, 'config.json'));
  const tokenizer = await loadTokenizer(src);
  const eos = new Set(base.eosTokenIds);
  if (files.includes('generation_config.json')) {
    const g = (await readJson(src, 'generation_config.json')) as { eos_token_id?: number | number[] };
    for (const e of [g.eos_token_id ?? []].flat()) if (Number.isInteger(e)) eos.add(e);
  }
  for (const e of tokenizer.eosTokenIds) eos.add(e);
  const config: ModelConfig = { ...base, eosTokenIds: [...eos] };
  const graphName = path.split('/').pop() as string;
  const externalData = await Promise.all(files.filter((f) => f.startsWith(`onnx/${graphName}_data`)).map(async (f) => ({ path: f.slice('onnx/'.length), data: await src.read(f) })));
  const decoder = await OrtDecoder.create(await src.read(path), decoderShape(config, dtype), { backend: opts.backend, externalData, gpuCache: opts.backend === 'webgpu' });
  return { engine: new OrtEngine(decoder, config), tokenizer, config };
}
