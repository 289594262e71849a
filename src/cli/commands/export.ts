// `npm run cli -- export`: writes a model (base + optional PEFT adapter) in another format:
// `merged` (one Hugging Face folder, adapter folded in) or `onnx` (the folder transformers.js
// and onnxruntime-web read), optionally checked with onnxruntime-web against our engine.
// Tested by tests/unit/cli/export-cli.test.ts.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliCommand, ParsedArgs } from '../../util/args';
import { getBool, getString, requireString } from '../../util/args';
import { NodeDirSource, openNodeModelSource } from '../../model/io/node-source';
import { loadModelFiles, type LoadedModel } from '../../model/io/loader';
import { readPeftAdapter } from '../../model/io/peft';
import { exportMergedFolder, MERGED_DTYPES, type MergedDtype, type MergedExportInput } from '../../export/hf-folder';
import { exportOnnxFolder, onnxModelPath, ONNX_DTYPES } from '../../export/onnx/export';
import type { OnnxDtype } from '../../export/onnx/graph';
import { NodeDirSink } from '../../export/node-sink';
import { configureOrt } from '../../ort/env';
import { decoderShape, OrtDecoder } from '../../ort/decoder';
import { compareAnswers, engineAnswers, ortAnswers } from '../../ort/check';
import { loadCliModel } from '../../model/node-load';
import { trlBundleCommand } from './export-trl';
import { checkOutFolderOf } from '../out-path';

type Log = (s: string) => void;
interface ExportContext { args: ParsedArgs; input: MergedExportInput; loaded: LoadedModel; out: string; log: Log }
type FormatHandler = (ctx: ExportContext) => Promise<number>;

function parseDtypes<T extends string>(args: ParsedArgs, allowed: readonly T[], fallback: T): T[] {
  const list = getString(args, 'dtype', fallback).split(',').map((s) => s.trim());
  for (const d of list) if (!allowed.includes(d as T)) throw new Error(`--dtype "${d}" is not one of ${allowed.join(', ')} for --format ${getString(args, 'format')}`);
  return list as T[];
}

async function exportMerged({ args, input, out, log }: ExportContext): Promise<number> {
  const [dtype] = parseDtypes<MergedDtype>(args, MERGED_DTYPES, 'f32');
  const files = await exportMergedFolder(input, new NodeDirSink(out), { dtype });
  log(`wrote ${files.length} files to ${out}: ${files.join(', ')}\n`);
  return 0;
}

async function exportOnnx({ args, input, loaded, out, log }: ExportContext): Promise<number> {
  const dtypes = parseDtypes<OnnxDtype>(args, ONNX_DTYPES, 'f32');
  const files = await exportOnnxFolder(input, new NodeDirSink(out), { dtypes, adapterName: getString(args, 'adapter') });
  log(`wrote ${files.length} files to ${out}: ${files.join(', ')}\n`);
  if (!getBool(args, 'check', false)) return 0;
  configureOrt();
  const { rt, model } = await loadCliModel({ ...args, flags: { ...args.flags, quant: 'none' } }, log);
  const text = getString(args, 'check-text', 'Once upon a time');
  const seq = loaded.tokenizer.encode(text, { addSpecialTokens: true });
  let worst = 0;
  const reference = await engineAnswers(rt, model, [seq], seq, 16);
  model.dispose();
  for (const dtype of dtypes) {
    const path = join(out, onnxModelPath(dtype));
    const files = await new NodeDirSource(join(out, 'onnx')).list();
    const externalData = await Promise.all(files.filter((f) => f.endsWith('_data')).map(async (f) => ({ path: f, data: new Uint8Array(await readFile(join(out, 'onnx', f))) })));
    const ort = await OrtDecoder.create(new Uint8Array(await readFile(path)), decoderShape(input.config, dtype), { backend: 'wasm', externalData });
    const c = compareAnswers(reference, await ortAnswers(ort, [seq], seq, 16));
    await ort.release();
    const same = c.oursGreedy.join(',') === c.ortGreedy.join(',');
    log(`check ${path} (onnxruntime-web wasm vs our engine, ${seq.length} tokens): log-probs maxdiff ${c.maxDiff.toExponential(2)}, with past ${c.maxDiffWithPast.toExponential(2)}, greedy 16 tokens ${same ? 'identical' : 'DIFFER'}\n`);
    const bound = dtype === 'f32' ? 1e-4 : 5e-2;
    if (c.maxDiff > bound || c.maxDiffWithPast > bound || (dtype === 'f32' && !same)) worst = 1;
  }
  if (worst) log('check FAILED: the export does not reproduce our engine (f32 bound 1e-4, f16 5e-2); please report it with the model\n');
  return worst;
}

/** One handler per model --format. The TRL/verl bundle (`trl`) needs no model: run() hands it to export-trl.ts. */
const FORMATS: Record<string, FormatHandler> = {
  merged: exportMerged,
  onnx: exportOnnx,
};

export const command: CliCommand = {
  name: 'export',
  summary: 'write base + adapter as a merged HF folder or ONNX, or a run as a TRL/verl bundle',
  usage: `Usage: npm run cli -- export --model PATH --format merged|onnx --out DIR [options]

  --model PATH            Hugging Face model folder, or a llama2.c .bin checkpoint
  --tokenizer F           llama2.c tokenizer .bin (default: tok*.bin beside the checkpoint)
  --adapter DIR           PEFT LoRA adapter folded into the weights (none: the base model)
  --format merged         one Hugging Face folder: config.json, model.safetensors, tokenizer
                          files, chat template (what transformers / vLLM / our loader read)
  --format trl            a bundle that continues a run with TRL GRPOTrainer / verl on many
                          GPUs (its options are listed below)
  --format onnx           config + tokenizer files + onnx/model.onnx (f32) / model_fp16.onnx
                          (f16) with past key/values, as transformers.js / onnxruntime-web run it
  --out DIR               the folder to write (created if missing; never inside an input)
  --overwrite             write into an --out folder that already holds files
  --dtype D               merged: f32 (default), f16 or bf16; onnx: f32 (default), f16 or f32,f16
  --check                 onnx: run the export with onnxruntime-web (wasm) and compare
                          log-probs and greedy tokens with our engine; exit 1 when they differ
  --check-text TEXT       the text scored by --check (default "Once upon a time")

${trlBundleCommand.usage}`,
  async run(args) {
    const log: Log = (s) => process.stderr.write(s);
    const format = requireString(args, 'format');
    checkOutFolderOf(args, `export --format ${format}`);
    if (format === 'trl') return trlBundleCommand.run(args); // needs the run's config, not a model
    const handler = FORMATS[format];
    if (!handler) throw new Error(`--format "${format}" is not one of ${[...Object.keys(FORMATS), 'trl'].join(', ')}`);
    const out = requireString(args, 'out');
    const loaded = await loadModelFiles(await openNodeModelSource(requireString(args, 'model'), { tokenizer: getString(args, 'tokenizer') }));
    const adapterDir = getString(args, 'adapter');
    const lora = adapterDir ? await readPeftAdapter(new NodeDirSource(adapterDir), loaded.config) : null;
    const input: MergedExportInput = { config: loaded.config, source: loaded.source, weights: loaded.weights, lora, chatTemplate: loaded.tokenizer.chatTemplate };
    return handler({ args, input, loaded, out, log });
  },
};
