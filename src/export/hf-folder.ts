// Merged export: base + LoRA adapter folded into one Hugging Face model folder that our loader
// and transformers-style loaders read: config.json (torch_dtype set), model.safetensors in
// f32/f16/bf16, the tokenizer files, generation_config.json and the chat template.
// Exercised by the CLI `export --format merged` and tests/unit/export/export-merged.test.ts.
import type { FloatDtype } from '../model/io/dtype';
import { readJson, type FileSource } from '../model/io/source';
import { exportHfModel, type ExportFiles } from '../train/peft-export';
import type { HostTensor, LoraWeights, ModelConfig } from '../model/types';
import { mergedTensors, type TensorSource } from './merge';
import { jsonBytes, type ExportSink } from './sink';

export type MergedDtype = 'f32' | 'f16' | 'bf16';
export const MERGED_DTYPES: readonly MergedDtype[] = ['f32', 'f16', 'bf16'];

const SAFETENSORS_DTYPE: Record<MergedDtype, FloatDtype> = { f32: 'F32', f16: 'F16', bf16: 'BF16' };
const TORCH_DTYPE: Record<MergedDtype, string> = { f32: 'float32', f16: 'float16', bf16: 'bfloat16' };

/** Files copied unchanged from the base folder when present. */
export const COPIED_FILES = [
  'tokenizer.json', 'tokenizer_config.json', 'vocab.json', 'merges.txt', 'special_tokens_map.json',
  'added_tokens.json', 'tokenizer.model', 'generation_config.json', 'chat_template.jinja',
];

export interface MergedExportInput {
  config: ModelConfig;
  /** The base folder (config.json and tokenizer files are taken from it). */
  source: FileSource;
  weights: TensorSource;
  lora: LoraWeights | null;
  /** The chat template to write as chat_template.jinja when the base folder has none as a file. */
  chatTemplate?: string;
}

export interface MergedExportOptions {
  dtype: MergedDtype;
}

/** The merged tensors in memory (f32), for callers that go on to ONNX. */
export async function collectMerged(input: Pick<MergedExportInput, 'config' | 'weights' | 'lora'>): Promise<Map<string, HostTensor>> {
  const out = new Map<string, HostTensor>();
  for await (const [name, t] of mergedTensors(input.config, input.weights, input.lora)) out.set(name, t);
  return out;
}

/**
 * Writes the merged folder into `sink`; returns the paths written. The weights go through
 * exportHfModel (every tensor the config implies, shapes checked); config.json is the base's
 * own (fields we do not model are kept) with torch_dtype set to the stored dtype.
 */
export async function exportMergedFolder(input: MergedExportInput, sink: ExportSink, opts: MergedExportOptions): Promise<string[]> {
  const files = await input.source.list();
  const extra: ExportFiles = new Map();
  for (const f of COPIED_FILES) if (files.includes(f)) extra.set(f, await input.source.read(f));
  if (!files.includes('chat_template.jinja') && input.chatTemplate) extra.set('chat_template.jinja', new TextEncoder().encode(input.chatTemplate));
  const out = exportHfModel(input.config, await collectMerged(input), extra, { dtype: SAFETENSORS_DTYPE[opts.dtype] });
  const config = { ...(await readJson(input.source, 'config.json') as Record<string, unknown>), torch_dtype: TORCH_DTYPE[opts.dtype] };
  out.set('config.json', jsonBytes(config));
  for (const [path, bytes] of out) await sink.write(path, bytes);
  return [...out.keys()];
}
