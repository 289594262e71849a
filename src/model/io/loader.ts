// The model loader front: a FileSource (Node folder, dropped files, directory handle, memory)
// -> parsed config, validated streaming weights and the tokenizer. A llama2.c .bin (plus its
// tokenizer .bin) is converted in memory first. Tested by tests/unit/model/io-loader.test.ts and
// io-llama2c.test.ts; the CLI and the browser reach models through here.
import { parseModelConfig } from '../hf-config';
import { loadTokenizer, type Tokenizer } from '../tokenizer';
import type { ModelConfig } from '../types';
import { ModelLoadError } from './errors';
import { checkTensors } from './expected';
import { convertLlama2cSource, findLlama2cFiles } from './llama2c-convert';
import { MemorySource } from './memory-source';
import { readJson, type FileSource, type ProgressFn } from './source';
import { openWeights, type WeightStore } from './weights';

export interface LoadOptions {
  onProgress?: ProgressFn;
}

export interface LoadedModel {
  /** The files actually read (a MemorySource when a llama2.c .bin was converted). */
  source: FileSource;
  /** eosTokenIds merge config.json, generation_config.json and tokenizer_config.json. */
  config: ModelConfig;
  /** Validated against config: every expected tensor present with the right shape and dtype. */
  weights: WeightStore;
  tokenizer: Tokenizer;
  /** Tensors present but not used (e.g. rotary_emb.inv_freq, lm_head of a tied model). */
  ignoredTensors: string[];
}

export async function loadModelFiles(source: FileSource, opts: LoadOptions = {}): Promise<LoadedModel> {
  const { onProgress } = opts;
  let src = source;
  const l2c = await findLlama2cFiles(source);
  if (l2c) src = new MemorySource(await convertLlama2cSource(source, l2c, onProgress), `${source.name} (converted from llama2.c ${l2c.model})`);

  onProgress?.({ file: 'config.json', loadedBytes: 0, totalBytes: 1, stage: 'config' });
  const files = await src.list();
  if (!files.includes('config.json')) {
    throw new ModelLoadError('config.json', `missing from ${source.name}; pick a Hugging Face model folder (config.json, model.safetensors, tokenizer files) or a llama2.c .bin with its tokenizer .bin`);
  }
  const config = parseModelConfig(await readJson(src, 'config.json'));
  const eos = new Set(config.eosTokenIds);
  if (files.includes('generation_config.json')) {
    const g = (await readJson(src, 'generation_config.json')) as { eos_token_id?: number | number[] };
    for (const e of [g.eos_token_id ?? []].flat()) if (Number.isInteger(e)) eos.add(e);
  }

  const weights = await openWeights(src, onProgress);
  const ignoredTensors = checkTensors(config, weights.tensors, files.includes('model.safetensors.index.json') ? 'model.safetensors.index.json' : [...weights.tensors.values()][0]?.file ?? 'model.safetensors');

  const tokenizer = await loadTokenizer(src, onProgress);
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new ModelLoadError('config.json', `vocab_size is ${config.vocabSize} but the tokenizer has ${tokenizer.vocabSize} tokens (ids up to ${tokenizer.vocabSize - 1}); the tokenizer does not belong to this model`, 'vocab_size');
  }
  for (const e of tokenizer.eosTokenIds) eos.add(e);
  onProgress?.({ file: 'config.json', loadedBytes: 1, totalBytes: 1, stage: 'config' });
  return { source: src, config: { ...config, eosTokenIds: [...eos] }, weights, tokenizer, ignoredTensors };
}
