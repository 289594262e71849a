// config.json -> ModelConfig for the decoders the engine runs: LlamaForCausalLM,
// Qwen2ForCausalLM and MiniMind (llama-style). Everything else is rejected with an error
// naming the file and field and saying what to do. Tested by tests/unit/model/io-config.test.ts.
import { ModelLoadError } from './io/errors';
import type { Architecture, ModelConfig } from './types';

const ARCHITECTURES: Record<string, Architecture> = {
  LlamaForCausalLM: 'llama',
  Qwen2ForCausalLM: 'qwen2',
  MiniMindForCausalLM: 'llama',
};
const MODEL_TYPES: Record<string, Architecture> = { llama: 'llama', qwen2: 'qwen2', minimind: 'llama' };
const SUPPORTED = Object.keys(ARCHITECTURES).join(', ');

type Json = Record<string, unknown>;

export function parseModelConfig(json: unknown, file = 'config.json'): ModelConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ModelLoadError(file, 'expected a JSON object');
  const j = json as Json;
  const fail = (field: string, msg: string): never => {
    throw new ModelLoadError(file, `"${field}" ${msg}`, field);
  };
  const int = (field: string, fallback?: number): number => {
    const v = j[field] ?? fallback;
    if (v === undefined || v === null) return fail(field, 'is missing; it is required for this architecture');
    if (!Number.isInteger(v) || (v as number) <= 0) return fail(field, `is ${JSON.stringify(v)}; expected a positive integer`);
    return v as number;
  };
  const num = (field: string, fallback: number): number => {
    const v = j[field] ?? fallback;
    if (typeof v !== 'number' || !(v > 0)) return fail(field, `is ${JSON.stringify(v)}; expected a positive number`);
    return v;
  };
  const bool = (field: string, fallback: boolean): boolean => {
    const v = j[field] ?? fallback;
    if (typeof v !== 'boolean') return fail(field, `is ${JSON.stringify(v)}; expected true or false`);
    return v;
  };

  // Architecture: from "architectures", else "model_type".
  const archs = j.architectures;
  let architecture: Architecture | undefined;
  let isMiniMind = j.model_type === 'minimind';
  if (archs !== undefined && archs !== null) {
    if (!Array.isArray(archs) || archs.length !== 1 || typeof archs[0] !== 'string') fail('architectures', `is ${JSON.stringify(archs)}; expected one of: ${SUPPORTED}`);
    architecture = ARCHITECTURES[(archs as string[])[0]];
    if (!architecture) fail('architectures', `is ${JSON.stringify(archs)}; supported: ${SUPPORTED}. Pick a Llama- or Qwen2-family checkpoint`);
    isMiniMind ||= (archs as string[])[0] === 'MiniMindForCausalLM';
  } else {
    architecture = MODEL_TYPES[String(j.model_type)];
    if (!architecture) fail('model_type', `is ${JSON.stringify(j.model_type)} and "architectures" is missing; supported: ${SUPPORTED}`);
  }
  const arch = architecture as Architecture;

  // Features we do not implement: reject rather than run a different model.
  if (j.rope_scaling !== undefined && j.rope_scaling !== null) {
    fail('rope_scaling', `is ${JSON.stringify(j.rope_scaling)}; only plain RoPE (rope_scaling null) is supported for now. Use a checkpoint without RoPE scaling`);
  }
  if (j.hidden_act !== undefined && j.hidden_act !== 'silu') fail('hidden_act', `is ${JSON.stringify(j.hidden_act)}; only "silu" (SwiGLU MLP) is supported`);
  if (j.mlp_bias === true) fail('mlp_bias', 'is true; MLP biases are not supported');
  if (j.use_moe === true) fail('use_moe', 'is true; mixture-of-experts models are not supported (use a dense MiniMind checkpoint)');
  if (j.use_sliding_window === true) fail('use_sliding_window', 'is true; sliding-window attention is not supported');
  if (arch === 'llama' && j.attention_bias === true) fail('attention_bias', 'is true for a Llama model (bias on q/k/v/o); only Qwen2-style q/k/v biases are supported');

  const hiddenSize = int('hidden_size');
  const numHeads = int('num_attention_heads');
  const numKvHeads = int('num_key_value_heads', numHeads);
  if (numHeads % numKvHeads !== 0) fail('num_key_value_heads', `is ${numKvHeads}, which does not divide num_attention_heads ${numHeads}`);
  if (j.head_dim === undefined && hiddenSize % numHeads !== 0) fail('head_dim', `is missing and hidden_size ${hiddenSize} is not a multiple of num_attention_heads ${numHeads}; add "head_dim"`);
  const headDim = int('head_dim', hiddenSize / numHeads);
  if (headDim % 2 !== 0) fail('head_dim', `is ${headDim}; RoPE needs an even head size`);
  // MiniMind leaves intermediate_size null and derives it: 8/3 C rounded up to a multiple of 64.
  const minimindI = 64 * Math.ceil(Math.floor((hiddenSize * 8) / 3) / 64);
  const intermediateSize = int('intermediate_size', isMiniMind ? minimindI : undefined);

  const eos = j.eos_token_id;
  let eosTokenIds: number[] = [];
  if (Array.isArray(eos)) eosTokenIds = eos as number[];
  else if (eos !== undefined && eos !== null) eosTokenIds = [eos as number];
  if (!eosTokenIds.every((e) => Number.isInteger(e) && e >= 0)) fail('eos_token_id', `is ${JSON.stringify(eos)}; expected a token id or a list of ids`);
  const bos = j.bos_token_id;
  if (bos !== undefined && bos !== null && !(Number.isInteger(bos) && (bos as number) >= 0)) fail('bos_token_id', `is ${JSON.stringify(bos)}; expected a token id`);

  return {
    architecture: arch,
    vocabSize: int('vocab_size'),
    hiddenSize,
    intermediateSize,
    numLayers: int('num_hidden_layers'),
    numHeads,
    numKvHeads,
    headDim,
    ropeTheta: num('rope_theta', isMiniMind ? 1e6 : 10000),
    rmsNormEps: num('rms_norm_eps', isMiniMind ? 1e-5 : 1e-6),
    maxPositions: int('max_position_embeddings', isMiniMind ? 32768 : 2048),
    // transformers' LlamaConfig/Qwen2Config default to untied; MiniMind always ties.
    tieWordEmbeddings: bool('tie_word_embeddings', isMiniMind),
    // Qwen2 always has q/k/v biases (its config has no switch for them).
    attentionBias: arch === 'qwen2',
    bosTokenId: typeof bos === 'number' ? bos : undefined,
    eosTokenIds,
  };
}

/** The config.json we write for a ModelConfig (LlamaForCausalLM / Qwen2ForCausalLM). */
export function modelConfigToJson(c: ModelConfig): Json {
  return {
    architectures: [c.architecture === 'qwen2' ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM'],
    model_type: c.architecture,
    vocab_size: c.vocabSize,
    hidden_size: c.hiddenSize,
    intermediate_size: c.intermediateSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    head_dim: c.headDim,
    hidden_act: 'silu',
    rope_theta: c.ropeTheta,
    rope_scaling: null,
    rms_norm_eps: c.rmsNormEps,
    max_position_embeddings: c.maxPositions,
    tie_word_embeddings: c.tieWordEmbeddings,
    ...(c.architecture === 'llama' ? { attention_bias: false } : {}),
    bos_token_id: c.bosTokenId ?? null,
    eos_token_id: c.eosTokenIds.length === 1 ? c.eosTokenIds[0] : c.eosTokenIds,
    torch_dtype: 'float32',
  };
}
