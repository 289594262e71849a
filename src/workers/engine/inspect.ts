// The `inspect-model` request: what a model folder is and whether the engine can use it, read from
// config.json, the tokenizer files and the safetensors headers only (no weight is read or uploaded;
// a llama2.c .bin is converted in memory first, as the loader does).
// Every problem names its file and says what to do; GPU bytes per quantization come from the
// engine's memory planner (train/memory-plan.ts). Exercised by tests/e2e/studio-models.spec.ts.
import { parseModelConfig } from '../../model/hf-config';
import { ModelLoadError } from '../../model/io/errors';
import { checkTensors, expectedTensors } from '../../model/io/expected';
import { convertLlama2cSource, findLlama2cFiles } from '../../model/io/llama2c-convert';
import { MemorySource } from '../../model/io/memory-source';
import { readJson, type FileSource } from '../../model/io/source';
import { INDEX_FILE, openWeights, SINGLE_FILE, type WeightStore } from '../../model/io/weights';
import { loadTokenizer, type Tokenizer } from '../../model/tokenizer';
import type { ModelConfig } from '../../model/types';
import { planInference } from '../../train/memory-plan';

/** Tokens of the chat session the "with a chat" GPU figure counts (capped at the model's context). */
export const CHAT_TOKENS = 512;

export interface ModelProblem {
  /** The file at fault (as the folder lists it). */
  file: string;
  /** What is wrong and what to do. */
  message: string;
}

export interface GpuBytes {
  quant: 'none' | 'nf4';
  /** Bytes allocated once the weights are up. */
  weightsBytes: number;
  /** The pool's peak with one chat session of `chatTokens` tokens (KV cache, activations, sampling). */
  chatBytes: number;
  chatTokens: number;
}

export interface ModelReport {
  /** The folder, for messages ("opfs:/models/NAME", "/models/agent-tiny", "dropped files"). */
  source: string;
  files: { path: string; bytes: number }[];
  /** config.json's architectures[0] (else model_type), as written. */
  hfArchitecture: string | null;
  config: ModelConfig | null;
  /** Values in the tensors the engine reads (the LM head counted once when tied). */
  params: number | null;
  /** Bytes of the safetensors files' tensor data, and their dtypes. */
  weightFileBytes: number | null;
  dtypes: string[];
  gpu: GpuBytes[];
  /** Ids the tokenizer knows (its largest id + 1). */
  tokenizerVocab: number | null;
  chatTemplate: string | null;
  /** Empty when the engine can load the model. */
  problems: ModelProblem[];
}

const problemOf = (e: unknown, file: string): ModelProblem =>
  e instanceof ModelLoadError ? { file: e.file, message: e.message.startsWith(`${e.file}: `) ? e.message.slice(e.file.length + 2) : e.message } : { file, message: (e as Error).message };

export async function inspectModel(source: FileSource): Promise<ModelReport> {
  const files = await Promise.all((await source.list()).map(async (path) => ({ path, bytes: await source.size(path) })));
  // A llama2.c .bin (with its tokenizer .bin) is converted in memory, as the loader does.
  let src = source;
  const l2c = await findLlama2cFiles(source);
  if (l2c) {
    try {
      src = new MemorySource(await convertLlama2cSource(source, l2c), `${source.name} (converted from llama2.c ${l2c.model})`);
    } catch (e) {
      return { ...emptyReport(source.name, files), problems: [problemOf(e, l2c.model)] };
    }
  }
  const paths = await src.list();
  const r = emptyReport(src.name, files);

  if (!paths.includes('config.json')) {
    r.problems.push({ file: 'config.json', message: `missing from ${src.name}; pick the Hugging Face model folder itself (config.json, model.safetensors, tokenizer.json)` });
  } else {
    try {
      const json = await readJson(src, 'config.json');
      const j = json as { architectures?: unknown; model_type?: unknown };
      r.hfArchitecture = Array.isArray(j.architectures) ? String(j.architectures[0]) : typeof j.model_type === 'string' ? j.model_type : null;
      r.config = parseModelConfig(json);
    } catch (e) {
      r.problems.push(problemOf(e, 'config.json'));
    }
  }

  let tokenizer: Tokenizer | null = null;
  try {
    tokenizer = await loadTokenizer(src);
    r.tokenizerVocab = tokenizer.vocabSize;
    r.chatTemplate = tokenizer.chatTemplate ?? null;
    if (r.config && tokenizer.vocabSize > r.config.vocabSize) {
      r.problems.push({ file: 'config.json', message: `vocab_size is ${r.config.vocabSize} but the tokenizer has ${tokenizer.vocabSize} tokens; the tokenizer does not belong to this model: add the model's own tokenizer.json` });
    }
  } catch (e) {
    r.problems.push(problemOf(e, 'tokenizer.json'));
  }

  let weights: WeightStore | null = null;
  try {
    weights = await openWeights(src);
    r.weightFileBytes = weights.totalBytes;
    r.dtypes = [...new Set([...weights.tensors.values()].map((t) => t.dtype))].sort();
  } catch (e) {
    r.problems.push(problemOf(e, SINGLE_FILE));
  }

  if (r.config && weights) {
    const cfg = r.config;
    try {
      checkTensors(cfg, weights.tensors, paths.includes(INDEX_FILE) ? INDEX_FILE : [...weights.tensors.values()][0]?.file ?? SINGLE_FILE);
    } catch (e) {
      r.problems.push(problemOf(e, SINGLE_FILE));
    }
    let n = 0;
    for (const shape of expectedTensors(cfg).values()) n += shape.reduce((a, b) => a * b, 1);
    r.params = n;
  }
  if (r.config) r.gpu = gpuBytes(r.config);
  return r;
}

const emptyReport = (source: string, files: ModelReport['files']): ModelReport => ({
  source, files, hfArchitecture: null, config: null, params: null, weightFileBytes: null, dtypes: [], gpu: [], tokenizerVocab: null, chatTemplate: null, problems: [],
});

/** Weights and one chat session on the GPU, with f32 and with NF4 base weights (the engine's memory plan). */
function gpuBytes(cfg: ModelConfig): GpuBytes[] {
  const chatTokens = Math.min(CHAT_TOKENS, cfg.maxPositions);
  const out: GpuBytes[] = [];
  for (const quant of ['none', 'nf4'] as const) {
    const plan = planInference(cfg, { quant, quantEmbeddings: false, B: 1, Tmax: chatTokens });
    out.push({ quant, weightsBytes: plan.weightsBytes, chatBytes: plan.total, chatTokens });
  }
  return out;
}
