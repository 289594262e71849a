// Shared model types: the decoder config every part of the engine reads, host-side tensors,
// Hugging Face weight names, and LoRA adapters. Dimension letters (style item 2):
// B batch, T time, C hidden, NH heads, KVH kv heads, HS head size, V vocab, I intermediate, R rank.

export type Architecture = 'llama' | 'qwen2';

/** A Llama/Qwen2-family decoder, normalised from config.json (or a llama2.c header). */
export interface ModelConfig {
  architecture: Architecture;
  /** V */
  vocabSize: number;
  /** C */
  hiddenSize: number;
  /** I */
  intermediateSize: number;
  /** L */
  numLayers: number;
  /** NH */
  numHeads: number;
  /** KVH (grouped-query attention when < NH) */
  numKvHeads: number;
  /** HS */
  headDim: number;
  ropeTheta: number;
  rmsNormEps: number;
  maxPositions: number;
  /** LM head shares the token embedding matrix. */
  tieWordEmbeddings: boolean;
  /** q/k/v projections have biases (Qwen2). */
  attentionBias: boolean;
  bosTokenId?: number;
  eosTokenIds: number[];
}

/** A tensor in host memory, always f32 after loading; shape row-major. */
export interface HostTensor {
  shape: number[];
  data: Float32Array;
}

export type TensorMap = Map<string, HostTensor>;

export const PROJECTIONS = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;
export type Projection = (typeof PROJECTIONS)[number];

/** Hugging Face tensor names of the Llama/Qwen2 family. */
export const hfNames = {
  embed: 'model.embed_tokens.weight',
  finalNorm: 'model.norm.weight',
  lmHead: 'lm_head.weight',
  inputNorm: (i: number) => `model.layers.${i}.input_layernorm.weight`,
  postAttnNorm: (i: number) => `model.layers.${i}.post_attention_layernorm.weight`,
  proj: (i: number, p: Projection) =>
    p === 'gate' || p === 'up' || p === 'down' ? `model.layers.${i}.mlp.${p}_proj.weight` : `model.layers.${i}.self_attn.${p}_proj.weight`,
  bias: (i: number, p: 'q' | 'k' | 'v') => `model.layers.${i}.self_attn.${p}_proj.bias`,
};

/** [out, in] of a projection's weight. */
export function projShape(cfg: ModelConfig, p: Projection): [number, number] {
  const C = cfg.hiddenSize, HS = cfg.headDim;
  switch (p) {
    case 'q': return [cfg.numHeads * HS, C];
    case 'k': case 'v': return [cfg.numKvHeads * HS, C];
    case 'o': return [C, cfg.numHeads * HS];
    case 'gate': case 'up': return [cfg.intermediateSize, C];
    case 'down': return [C, cfg.intermediateSize];
  }
}

export interface LoraConfig {
  /** R */
  rank: number;
  alpha: number;
  useRslora: boolean;
  targets: Projection[];
}

/** Scale applied to B A x: alpha / r, or alpha / sqrt(r) with rsLoRA. */
export function loraScale(c: LoraConfig): number {
  return c.useRslora ? c.alpha / Math.sqrt(c.rank) : c.alpha / c.rank;
}

/** One adapted projection: A is [R, in], B is [out, R] (PEFT layout). */
export interface LoraPair {
  A: Float32Array;
  B: Float32Array;
}

export interface LoraWeights {
  config: LoraConfig;
  /** Keyed by loraKey(layer, projection). */
  pairs: Map<string, LoraPair>;
}

export const loraKey = (layer: number, p: Projection) => `${layer}.${p}`;
