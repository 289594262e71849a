// llama2.c checkpoint + tokenizer -> the files of a standard Hugging Face folder (config.json
// with LlamaForCausalLM, model.safetensors, tokenizer.json, tokenizer_config.json,
// generation_config.json). Used by scripts/convert-llama2c.ts and, in memory, by the loader
// when it is handed a .bin. Tested by tests/unit/model/io-llama2c.test.ts.
import { modelConfigToJson } from '../hf-config';
import { llama2cTokenizerConfig, llama2cTokenizerJson, parseLlama2cTokenizer } from '../tokenizer/llama2c';
import { ModelLoadError } from './errors';
import { readLlama2cCheckpoint } from './llama2c';
import { writeSafetensors } from './safetensors-write';
import type { FileSource, ProgressFn } from './source';

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2) + '\n');

/** Convert in memory; the model's vocab size must match the tokenizer's. */
export function convertLlama2c(
  model: Uint8Array,
  tokenizer: Uint8Array,
  names: { model?: string; tokenizer?: string } = {},
): Map<string, Uint8Array> {
  const modelFile = names.model ?? 'model.bin', tokFile = names.tokenizer ?? 'tokenizer.bin';
  const { config, tensors } = readLlama2cCheckpoint(model, modelFile);
  const vocab = parseLlama2cTokenizer(tokenizer, tokFile);
  if (vocab.pieces.length !== config.vocabSize) {
    throw new ModelLoadError(tokFile, `has ${vocab.pieces.length} tokens but ${modelFile} has vocab_size ${config.vocabSize}; pass the tokenizer the model was trained with`);
  }
  return new Map([
    ['config.json', json(modelConfigToJson(config))],
    ['generation_config.json', json({ bos_token_id: 1, eos_token_id: 2 })],
    ['model.safetensors', writeSafetensors(tensors, { format: 'pt', source: `llama2.c ${modelFile}, q/k rows permuted to HF rotate_half RoPE` })],
    ['tokenizer.json', json(llama2cTokenizerJson(vocab))],
    ['tokenizer_config.json', json(llama2cTokenizerConfig())],
  ]);
}

/** The llama2.c files of a source without config.json: one checkpoint .bin and one tokenizer .bin. */
export async function findLlama2cFiles(src: FileSource): Promise<{ model: string; tokenizer?: string } | undefined> {
  const files = await src.list();
  if (files.includes('config.json')) return undefined;
  const bins = files.filter((f) => f.endsWith('.bin') && !f.includes('/'));
  const isTok = (f: string) => f === 'tokenizer.bin' || /^tok[^/]*\.bin$/.test(f);
  const models = bins.filter((f) => !isTok(f) && f !== 'pytorch_model.bin');
  if (models.length !== 1) return undefined;
  return { model: models[0], tokenizer: bins.find(isTok) };
}

/** Read a llama2.c source and convert it (stage 'convert' progress). */
export async function convertLlama2cSource(src: FileSource, files: { model: string; tokenizer?: string }, onProgress?: ProgressFn): Promise<Map<string, Uint8Array>> {
  if (!files.tokenizer) {
    throw new ModelLoadError(files.model, `is a llama2.c checkpoint but no tokenizer .bin is beside it in ${src.name}; add tok*.bin / tokenizer.bin (or pass --tokenizer)`);
  }
  const total = await src.size(files.model);
  onProgress?.({ file: files.model, loadedBytes: 0, totalBytes: total, stage: 'convert' });
  const out = convertLlama2c(await src.read(files.model), await src.read(files.tokenizer), files);
  onProgress?.({ file: files.model, loadedBytes: total, totalBytes: total, stage: 'convert' });
  return out;
}
