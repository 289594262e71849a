// CPU reference of the whole Llama/Qwen2 decoder as Hugging Face computes it, built only from the
// op twins in this folder: embed -> L x [attention block, MLP block] -> final norm -> LM head, with
// optional PEFT LoRA deltas. Slow and obvious; the yardstick for the WGSL engine.
// Exercised by tests/unit/reference/reference-model.test.ts (PyTorch goldens, stories260K greedy text).
import { hfNames, loraKey, loraScale, projShape, type LoraWeights, type ModelConfig, type Projection, type TensorMap } from '../model/types';
import { embedding_forward } from './embedding';
import { rmsnorm_forward } from './rmsnorm';
import { linear_forward, lora_forward } from './linear';
import { rope_forward } from './rope';
import { attention_forward } from './attention';
import { swiglu_forward } from './swiglu';
import { logprobs_forward } from './logprobs';

/** Keys and values already computed, per layer [Tk, KVH, HS]; lets generation feed one token at a time. */
interface KvCache {
  k: Float32Array[];
  v: Float32Array[];
  /** Tk: tokens in the cache (the absolute position of the next token). */
  length: number;
}

function tensor(w: TensorMap, name: string, size: number): Float32Array {
  const t = w.get(name);
  if (!t) throw new Error(`model reference: missing tensor ${name}`);
  if (t.data.length !== size) throw new Error(`model reference: ${name} has ${t.data.length} values, expected ${size} (shape ${t.shape.join('x')})`);
  return t.data;
}

function concat(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

// x [T, in] -> [T, out]: base layer (with bias when given) plus the LoRA delta when this
// projection is adapted (PEFT: y = base(x) + scale * B(A(x))).
function project(cfg: ModelConfig, w: TensorMap, lora: LoraWeights | null, layer: number, p: Projection, x: Float32Array, T: number, bias: Float32Array | null): Float32Array {
  const [N, K] = projShape(cfg, p);
  const y = linear_forward(x, tensor(w, hfNames.proj(layer, p), N * K), bias, T, K, N);
  const pair = lora?.config.targets.includes(p) ? lora.pairs.get(loraKey(layer, p)) : undefined;
  if (lora && pair) {
    const R = lora.config.rank;
    const delta = lora_forward(x, pair.A, pair.B, loraScale(lora.config), T, K, N, R);
    for (let i = 0; i < y.length; i++) y[i] += delta[i];
  }
  return y;
}

// ids [T] at absolute positions cache.length .. cache.length + T - 1 -> logits [T, V]; appends
// this chunk's keys and values to the cache.
function forward_chunk(cfg: ModelConfig, w: TensorMap, ids: ArrayLike<number>, lora: LoraWeights | null, cache: KvCache): Float32Array {
  const T = ids.length, C = cfg.hiddenSize, V = cfg.vocabSize, I = cfg.intermediateSize;
  const NH = cfg.numHeads, KVH = cfg.numKvHeads, HS = cfg.headDim, eps = cfg.rmsNormEps;
  const pos0 = cache.length;
  const pos = Array.from({ length: T }, (_, t) => pos0 + t);
  const x = embedding_forward(tensor(w, hfNames.embed, V * C), ids, C); // residual stream [T, C]

  for (let l = 0; l < cfg.numLayers; l++) {
    // attention block
    const h = rmsnorm_forward(x, tensor(w, hfNames.inputNorm(l), C), T, C, eps);
    const bias = (p: 'q' | 'k' | 'v', n: number) => (cfg.attentionBias ? tensor(w, hfNames.bias(l, p), n) : null);
    const q = rope_forward(project(cfg, w, lora, l, 'q', h, T, bias('q', NH * HS)), pos, T, NH, HS, cfg.ropeTheta);
    const k = rope_forward(project(cfg, w, lora, l, 'k', h, T, bias('k', KVH * HS)), pos, T, KVH, HS, cfg.ropeTheta);
    const v = project(cfg, w, lora, l, 'v', h, T, bias('v', KVH * HS));
    cache.k[l] = cache.k[l] ? concat(cache.k[l], k) : k;
    cache.v[l] = cache.v[l] ? concat(cache.v[l], v) : v;
    const Tk = pos0 + T;
    const att = attention_forward(q, cache.k[l], cache.v[l], T, Tk, NH, KVH, HS, pos0); // [T, NH * HS]
    const o = project(cfg, w, lora, l, 'o', att, T, null);
    for (let i = 0; i < x.length; i++) x[i] += o[i];

    // MLP block
    const h2 = rmsnorm_forward(x, tensor(w, hfNames.postAttnNorm(l), C), T, C, eps);
    const gate = project(cfg, w, lora, l, 'gate', h2, T, null); // [T, I]
    const up = project(cfg, w, lora, l, 'up', h2, T, null);
    const down = project(cfg, w, lora, l, 'down', swiglu_forward(gate, up), T, null);
    if (down.length !== T * C || gate.length !== T * I) throw new Error('model reference: MLP shape mismatch');
    for (let i = 0; i < x.length; i++) x[i] += down[i];
  }
  cache.length += T;

  const xf = rmsnorm_forward(x, tensor(w, hfNames.finalNorm, C), T, C, eps);
  const head = cfg.tieWordEmbeddings || !w.has(hfNames.lmHead) ? hfNames.embed : hfNames.lmHead;
  return linear_forward(xf, tensor(w, head, V * C), null, T, C, V);
}

const emptyCache = (): KvCache => ({ k: [], v: [], length: 0 });

// ids [T] -> logits [T, V]
/** Full causal forward pass over one sequence starting at position 0. */
export function model_forward(cfg: ModelConfig, w: TensorMap, ids: ArrayLike<number>, lora?: LoraWeights | null): Float32Array {
  if (ids.length === 0) throw new Error('model_forward: ids is empty');
  return forward_chunk(cfg, w, ids, lora ?? null, emptyCache());
}

// ids [T] -> logprobs [T-1], entropy [T-1]: row t is log p(ids[t+1] | ids[..t]) and the entropy
// of the distribution it was drawn from.
/** Per-token log probabilities of a sequence under the model (teacher forcing). */
export function model_logprobs(cfg: ModelConfig, w: TensorMap, ids: ArrayLike<number>, lora?: LoraWeights | null): { logprobs: Float32Array; entropy: Float32Array } {
  const T = ids.length, V = cfg.vocabSize;
  if (T < 2) throw new Error(`model_logprobs: need at least 2 tokens, got ${T}`);
  const logits = model_forward(cfg, w, ids, lora);
  const targets = Array.from({ length: T - 1 }, (_, t) => ids[t + 1]);
  return logprobs_forward(logits.subarray(0, (T - 1) * V), targets, T - 1, V);
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

/**
 * Greedy decoding (argmax, first index on ties) with a KV cache. Returns the NEW tokens only;
 * a stop token that ends generation is included as the last element (as HF generate does).
 * Stops after maxNew tokens or when the sequence reaches cfg.maxPositions.
 */
export function greedy_generate(cfg: ModelConfig, w: TensorMap, prompt: number[], maxNew: number, stopIds: number[]): number[] {
  if (prompt.length === 0) throw new Error('greedy_generate: prompt is empty (start with BOS)');
  const V = cfg.vocabSize;
  const cache = emptyCache();
  let logits = forward_chunk(cfg, w, prompt, null, cache);
  let last = logits.subarray((prompt.length - 1) * V, prompt.length * V);
  const out: number[] = [];
  // The next token sits at position cache.length, which must stay below maxPositions.
  while (out.length < maxNew && cache.length < cfg.maxPositions) {
    const next = argmax(last);
    out.push(next);
    if (stopIds.includes(next) || out.length === maxNew) break;
    logits = forward_chunk(cfg, w, [next], null, cache);
    last = logits;
  }
  return out;
}
