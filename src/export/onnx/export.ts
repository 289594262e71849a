// ONNX export of a merged model: the folder transformers.js expects (config.json, tokenizer
// files and chat template at the root, onnx/model.onnx for f32, onnx/model_fp16.onnx for f16,
// external data beside them when over 2 GB). Exercised by the CLI `export --format onnx` and
// tests/unit/cli/export-cli.test.ts and tests/unit/ort/ort-engine.test.ts.
import { modelConfigToJson } from '../../model/hf-config';
import { readJson } from '../../model/io/source';
import { collectMerged, COPIED_FILES, type MergedExportInput } from '../hf-folder';
import { jsonBytes, type ExportSink } from '../sink';
import { buildDecoderGraph } from './decoder';
import type { OnnxDtype } from './graph';
import { encodeModel } from './model';

export const ONNX_DTYPES: readonly OnnxDtype[] = ['f32', 'f16'];

/** Path of the graph of one dtype inside the export folder. */
export const onnxModelPath = (d: OnnxDtype): string => (d === 'f16' ? 'onnx/model_fp16.onnx' : 'onnx/model.onnx');

export interface OnnxExportOptions {
  dtypes: OnnxDtype[];
  /** Move weights to external data above this many bytes (default: protobuf's 2 GB limit). */
  externalThreshold?: number;
  adapterName?: string;
}

/** Writes config, tokenizer files and one ONNX graph per dtype; returns the paths written. */
export async function exportOnnxFolder(input: MergedExportInput, sink: ExportSink, opts: OnnxExportOptions): Promise<string[]> {
  const written: string[] = [];
  const put = async (path: string, parts: Uint8Array | Uint8Array[]) => {
    await sink.write(path, parts);
    written.push(path);
  };
  const files = await input.source.list();
  await put('config.json', jsonBytes(await readJson(input.source, 'config.json')));
  for (const f of COPIED_FILES) if (files.includes(f)) await put(f, await input.source.read(f));
  if (!files.includes('chat_template.jinja') && input.chatTemplate) await put('chat_template.jinja', new TextEncoder().encode(input.chatTemplate));

  const tensors = await collectMerged(input);
  const metadata: Record<string, string> = { config: JSON.stringify(modelConfigToJson(input.config)) };
  if (input.lora) metadata.merged_adapter = `${opts.adapterName ?? 'LoRA adapter'} (r=${input.lora.config.rank}, alpha=${input.lora.config.alpha})`;
  for (const dtype of opts.dtypes) {
    const path = onnxModelPath(dtype);
    const enc = encodeModel(buildDecoderGraph(input.config, tensors, dtype), { fileName: path.split('/').pop() as string, externalThreshold: opts.externalThreshold, metadata });
    await put(path, enc.model);
    if (enc.external) await put(`onnx/${enc.external.path}`, enc.external.parts);
  }
  return written;
}
