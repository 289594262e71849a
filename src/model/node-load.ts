// Shared by the CLI commands that run a model: opens WebGPU in Node, loads a Hugging Face folder
// or a llama2.c .bin (tokenizer beside it or --tokenizer), an optional PEFT adapter (run merged
// into the weights: it never changes), and builds the GPU model with --quant / --quant-embeddings,
// reporting progress on stderr.
import { openNodeRuntime } from '../gpu/node-runtime';
import type { GpuRuntime } from '../gpu/runtime';
import { NodeDirSource, openNodeModelSource } from './io/node-source';
import { loadModelFiles, type LoadedModel } from './io/loader';
import { readPeftAdapter } from './io/peft';
import { GpuModel } from './gpu/model';
import type { QuantMode } from './gpu/upload';
import { getBool, getString, requireString, type ParsedArgs } from '../util/args';
import { formatBytes } from '../gpu/errors';

export interface CliModel {
  rt: GpuRuntime;
  loaded: LoadedModel;
  model: GpuModel;
}

export const MODEL_OPTIONS = `  --model PATH            Hugging Face model folder, or a llama2.c .bin checkpoint
  --tokenizer F           llama2.c tokenizer .bin (default: tok*.bin beside the checkpoint)
  --adapter DIR           PEFT LoRA adapter folder (adapter_config.json + adapter_model.safetensors)
  --quant nf4|none        4-bit NF4 linear layers (default) or f32 everywhere
  --quant-embeddings      also quantize the embedding / LM head (big vocabularies)
  --verbose               list the quantization error of every tensor
  --tune true|false       time the kernel variants at load and keep the fastest (default true);
                          false: the defaults (faster start, same kernels in every process)`;

/** The quantization error of every tensor (all with --verbose; else a summary and the worst). */
function logQuantReport(model: GpuModel, verbose: boolean, log: (s: string) => void): void {
  const rows = model.weights.report;
  const nf4 = rows.filter((r) => r.format === 'nf4');
  const line = (r: (typeof rows)[number]) =>
    `  ${r.tensor}: ${r.format}${r.meanAbs !== undefined ? ` mean|err| ${r.meanAbs.toExponential(2)} max ${r.maxAbs!.toExponential(2)}` : ''}${r.note ? ` (${r.note})` : ''}\n`;
  if (!nf4.length) return;
  const mean = nf4.reduce((a, r) => a + r.meanAbs!, 0) / nf4.length;
  const max = Math.max(...nf4.map((r) => r.maxAbs!));
  log(`quantization: ${nf4.length} tensors NF4 (mean |err| ${mean.toExponential(2)}, max ${max.toExponential(2)}), ${rows.length - nf4.length} f32\n`);
  const shown = verbose || rows.length <= 12 ? rows : [...nf4].sort((a, b) => b.maxAbs! - a.maxAbs!).slice(0, 3).concat(rows.filter((r) => r.note));
  for (const r of shown) log(line(r));
  if (shown.length < rows.length) log(`  (${rows.length - shown.length} more; --verbose lists every tensor)\n`);
}

export function parseQuant(args: ParsedArgs): QuantMode {
  const q = getString(args, 'quant', 'nf4');
  if (q !== 'nf4' && q !== 'none') throw new Error(`--quant must be nf4 or none, got "${q}"`);
  return q;
}

export async function loadCliModel(args: ParsedArgs, log: (s: string) => void = (s) => process.stderr.write(s)): Promise<CliModel> {
  const path = requireString(args, 'model');
  const rt = await openNodeRuntime();
  log(`gpu: ${rt.report.vendor} ${rt.report.architecture}\n`);
  const loaded = await loadModelFiles(await openNodeModelSource(path, { tokenizer: getString(args, 'tokenizer') }));
  const adapterDir = getString(args, 'adapter');
  const lora = adapterDir ? await readPeftAdapter(new NodeDirSource(adapterDir), loaded.config) : null;
  const quant = parseQuant(args);
  const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, {
    quant, quantEmbeddings: getBool(args, 'quant-embeddings', false), lora, tune: getBool(args, 'tune', true),
    onProgress: (done, total) => {
      if (process.stderr.isTTY || done === total) log(`\rloading weights ${done}/${total}${done === total ? '\n' : ''}`);
    },
  });
  // A CLI model's adapter (--adapter) never changes: it runs merged into the weights (as the
  // studio's models with a finished run's adapter), a no-op on NF4 or large models.
  if (lora) await model.mergeLora();
  logQuantReport(model, getBool(args, 'verbose', false), log);
  const c = loaded.config;
  log(`model: ${c.architecture} L=${c.numLayers} C=${c.hiddenSize} V=${c.vocabSize}, quant ${quant}${lora ? `, adapter r=${lora.config.rank}` : ''}, weights ${formatBytes(model.weightBytes)} on the GPU\n`);
  return { rt, loaded, model };
}
