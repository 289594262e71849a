// CPU reference BACKWARD of the whole decoder (src/reference/model.ts), built from the op twins'
// *_backward functions: a forward that keeps every activation, then the chain rule in reverse,
// from per-token gradients of the log probabilities (and optionally the entropies) to LoRA
// gradients ('lora' mode) or to every weight ('full' mode, embeddings included). Exercised by
// tests/unit/reference/reference-bwd-model.test.ts (finite differences) and reference-bwd-goldens.test.ts.
import { hfNames, loraKey, loraScale, projShape, type LoraWeights, type ModelConfig, type Projection, type TensorMap } from '../model/types';
import { embedding_backward, embedding_forward } from './embedding';
import { rmsnorm_backward, rmsnorm_forward } from './rmsnorm';
import { linear_backward, linear_forward, lora_backward, lora_forward } from './linear';
import { rope_backward, rope_forward } from './rope';
import { attention_backward, attention_forward } from './attention';
import { swiglu_backward, swiglu_forward } from './swiglu';
import { logprobs_backward } from './logprobs';

/** Gradients of one adapted projection, PEFT layout: dA [R, in], dB [out, R]. */
export interface LoraGradPair {
  dA: Float32Array;
  dB: Float32Array;
}
/** Keyed like LoraWeights.pairs: loraKey(layer, projection). */
export type LoraGrads = Map<string, LoraGradPair>;

interface BackwardCommon {
  /** dentropy [T-1]: gradient with respect to each row's entropy (entropy bonus); none if absent. */
  dentropy?: Float32Array | null;
}
export interface LoraBackwardOptions extends BackwardCommon {
  mode: 'lora';
  lora: LoraWeights;
  /** Accumulate into these (gradient accumulation across sequences); fresh zeros if absent. */
  into?: LoraGrads;
}
export interface FullBackwardOptions extends BackwardCommon {
  mode: 'full';
  /** An adapter applied in the forward but kept frozen (its path still carries dX). */
  lora?: LoraWeights | null;
  /** Accumulate into these (gradient accumulation across sequences); fresh zeros if absent. */
  into?: TensorMap;
}

function tensor(w: TensorMap, name: string, size: number): Float32Array {
  const t = w.get(name);
  if (!t) throw new Error(`model_backward: missing tensor ${name}`);
  if (t.data.length !== size) throw new Error(`model_backward: ${name} has ${t.data.length} values, expected ${size} (shape ${t.shape.join('x')})`);
  return t.data;
}

const headName = (cfg: ModelConfig, w: TensorMap) => (cfg.tieWordEmbeddings || !w.has(hfNames.lmHead) ? hfNames.embed : hfNames.lmHead);

/** Names and shapes of every weight the forward reads (what full mode trains). */
export function trainableShapes(cfg: ModelConfig, w: TensorMap): Map<string, number[]> {
  const C = cfg.hiddenSize, V = cfg.vocabSize;
  const s = new Map<string, number[]>([[hfNames.embed, [V, C]], [hfNames.finalNorm, [C]]]);
  if (headName(cfg, w) === hfNames.lmHead) s.set(hfNames.lmHead, [V, C]);
  for (let l = 0; l < cfg.numLayers; l++) {
    s.set(hfNames.inputNorm(l), [C]);
    s.set(hfNames.postAttnNorm(l), [C]);
    for (const p of ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const) {
      s.set(hfNames.proj(l, p), projShape(cfg, p));
      if (cfg.attentionBias && (p === 'q' || p === 'k' || p === 'v')) s.set(hfNames.bias(l, p), [projShape(cfg, p)[0]]);
    }
  }
  return s;
}

/** Zero gradients for every trainable weight (full mode). */
export function zeroFullGrads(cfg: ModelConfig, w: TensorMap): TensorMap {
  const g: TensorMap = new Map();
  for (const [name, shape] of trainableShapes(cfg, w)) g.set(name, { shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)) });
  return g;
}

/** Zero gradients shaped like the adapter's pairs (LoRA mode). */
export function zeroLoraGrads(lora: LoraWeights): LoraGrads {
  const g: LoraGrads = new Map();
  for (const [key, pair] of lora.pairs) g.set(key, { dA: new Float32Array(pair.A.length), dB: new Float32Array(pair.B.length) });
  return g;
}

/** Activations of one layer kept by the forward for the backward. */
interface LayerActs {
  xIn: Float32Array; h: Float32Array; q: Float32Array; k: Float32Array; v: Float32Array; att: Float32Array;
  xMid: Float32Array; h2: Float32Array; gate: Float32Array; up: Float32Array; act: Float32Array;
}

/** Where a projection's gradients go: null entries are frozen. */
interface Sinks { dW: Float32Array | null; dbias: Float32Array | null; dA: Float32Array | null; dB: Float32Array | null }

class Decoder {
  private readonly C: number; private readonly NH: number; private readonly KVH: number; private readonly HS: number;
  constructor(private readonly cfg: ModelConfig, private readonly w: TensorMap, private readonly lora: LoraWeights | null) {
    this.C = cfg.hiddenSize; this.NH = cfg.numHeads; this.KVH = cfg.numKvHeads; this.HS = cfg.headDim;
  }

  weight(l: number, p: Projection): Float32Array {
    const [N, K] = projShape(this.cfg, p);
    return tensor(this.w, hfNames.proj(l, p), N * K);
  }
  bias(l: number, p: Projection): Float32Array | null {
    if (!this.cfg.attentionBias || (p !== 'q' && p !== 'k' && p !== 'v')) return null;
    return tensor(this.w, hfNames.bias(l, p), projShape(this.cfg, p)[0]);
  }
  pair(l: number, p: Projection) {
    return this.lora?.config.targets.includes(p) ? this.lora.pairs.get(loraKey(l, p)) : undefined;
  }

  // x [T, in] -> [T, out], exactly as model.ts projects (base with bias, plus the LoRA delta)
  project(l: number, p: Projection, x: Float32Array, T: number): Float32Array {
    const [N, K] = projShape(this.cfg, p);
    const y = linear_forward(x, this.weight(l, p), this.bias(l, p), T, K, N);
    const pair = this.pair(l, p);
    if (this.lora && pair) {
      const d = lora_forward(x, pair.A, pair.B, loraScale(this.lora.config), T, K, N, this.lora.config.rank);
      for (let i = 0; i < y.length; i++) y[i] += d[i];
    }
    return y;
  }

  // dy [T, out], x [T, in] -> dx [T, in] (new); parameter gradients += into the sinks
  projectBack(l: number, p: Projection, dy: Float32Array, x: Float32Array, T: number, s: Sinks): Float32Array {
    const [N, K] = projShape(this.cfg, p);
    const dx = linear_backward(dy, x, this.weight(l, p), this.bias(l, p), T, K, N, s.dW, s.dbias);
    const pair = this.pair(l, p);
    if (this.lora && pair) {
      const d = lora_backward(dy, x, pair.A, pair.B, loraScale(this.lora.config), T, K, N, this.lora.config.rank, s.dA, s.dB);
      for (let i = 0; i < dx.length; i++) dx[i] += d[i];
    }
    return dx;
  }

  // ids [T] -> per-layer activations, final residual [T, C], normed [T, C], logits [T, V]
  forward(ids: ArrayLike<number>) {
    const { cfg, w, C, NH, KVH, HS } = this;
    const T = ids.length, eps = cfg.rmsNormEps;
    const pos = Array.from({ length: T }, (_, t) => t);
    let x = embedding_forward(tensor(w, hfNames.embed, cfg.vocabSize * C), ids, C);
    const layers: LayerActs[] = [];
    for (let l = 0; l < cfg.numLayers; l++) {
      const xIn = x;
      const h = rmsnorm_forward(xIn, tensor(w, hfNames.inputNorm(l), C), T, C, eps);
      const q = rope_forward(this.project(l, 'q', h, T), pos, T, NH, HS, cfg.ropeTheta);
      const k = rope_forward(this.project(l, 'k', h, T), pos, T, KVH, HS, cfg.ropeTheta);
      const v = this.project(l, 'v', h, T);
      const att = attention_forward(q, k, v, T, T, NH, KVH, HS, 0);
      const o = this.project(l, 'o', att, T);
      const xMid = Float32Array.from(xIn, (xi, i) => xi + o[i]);
      const h2 = rmsnorm_forward(xMid, tensor(w, hfNames.postAttnNorm(l), C), T, C, eps);
      const gate = this.project(l, 'gate', h2, T);
      const up = this.project(l, 'up', h2, T);
      const act = swiglu_forward(gate, up);
      const down = this.project(l, 'down', act, T);
      x = Float32Array.from(xMid, (xi, i) => xi + down[i]);
      layers.push({ xIn, h, q, k, v, att, xMid, h2, gate, up, act });
    }
    const xf = rmsnorm_forward(x, tensor(w, hfNames.finalNorm, C), T, C, eps);
    const logits = linear_forward(xf, tensor(w, headName(cfg, w), cfg.vocabSize * C), null, T, C, cfg.vocabSize);
    return { layers, x, xf, logits };
  }
}

// ids [T], dlogp [T-1] (row t: gradient of log p(ids[t+1] | ids[..t])), dentropy [T-1] or none
// -> LoRA mode: dA [R, in], dB [out, R] per adapted projection; full mode: a gradient per weight.
// Write contract: every returned gradient accumulates (+=) into opts.into when given.
/** Gradients of sum_t dlogp[t] logp[t] + dentropy[t] entropy[t] with respect to the trainable weights. */
export function model_backward(cfg: ModelConfig, w: TensorMap, ids: ArrayLike<number>, dlogp: Float32Array, opts: LoraBackwardOptions): LoraGrads;
export function model_backward(cfg: ModelConfig, w: TensorMap, ids: ArrayLike<number>, dlogp: Float32Array, opts: FullBackwardOptions): TensorMap;
export function model_backward(
  cfg: ModelConfig, w: TensorMap, ids: ArrayLike<number>, dlogp: Float32Array, opts: LoraBackwardOptions | FullBackwardOptions,
): LoraGrads | TensorMap {
  const T = ids.length, C = cfg.hiddenSize, V = cfg.vocabSize, eps = cfg.rmsNormEps;
  const NH = cfg.numHeads, KVH = cfg.numKvHeads, HS = cfg.headDim;
  if (T < 2) throw new Error(`model_backward: need at least 2 tokens, got ${T}`);
  if (dlogp.length !== T - 1) throw new Error(`model_backward: dlogp has ${dlogp.length} values, expected [T-1] = [${T - 1}]`);
  const dentropy = opts.dentropy ?? null;
  if (dentropy && dentropy.length !== T - 1) throw new Error(`model_backward: dentropy has ${dentropy.length} values, expected [T-1] = [${T - 1}]`);
  if (opts.mode === 'lora' && !opts.lora) throw new Error('model_backward: mode "lora" needs opts.lora (the adapter to train)');

  const lora = opts.lora ?? null;
  const loraGrads = opts.mode === 'lora' ? (opts.into ?? zeroLoraGrads(opts.lora)) : null;
  const full = opts.mode === 'full' ? (opts.into ?? zeroFullGrads(cfg, w)) : null;
  const g = (name: string): Float32Array | null => {
    if (!full) return null;
    const t = full.get(name);
    if (!t) throw new Error(`model_backward: gradient map has no ${name} (build it with zeroFullGrads)`);
    return t.data;
  };
  const sinks = (l: number, p: Projection): Sinks => {
    const lg = loraGrads?.get(loraKey(l, p));
    const hasBias = cfg.attentionBias && (p === 'q' || p === 'k' || p === 'v');
    return { dW: g(hfNames.proj(l, p)), dbias: hasBias && full ? g(hfNames.bias(l, p as 'q' | 'k' | 'v')) : null, dA: lg?.dA ?? null, dB: lg?.dB ?? null };
  };

  const dec = new Decoder(cfg, w, lora);
  const { layers, x, xf, logits } = dec.forward(ids);

  // LM head: only rows 0..T-2 predict a target; the last row gets no gradient.
  const targets = Array.from({ length: T - 1 }, (_, t) => ids[t + 1]);
  const dlogits = new Float32Array(T * V);
  dlogits.set(logprobs_backward(dlogp, dentropy, logits.subarray(0, (T - 1) * V), targets, T - 1, V));
  const head = headName(cfg, w);
  const dxf = linear_backward(dlogits, xf, tensor(w, head, V * C), null, T, C, V, g(head), null);
  let dx = rmsnorm_backward(dxf, x, tensor(w, hfNames.finalNorm, C), T, C, eps, g(hfNames.finalNorm)); // residual-stream gradient

  const pos = Array.from({ length: T }, (_, t) => t);
  for (let l = cfg.numLayers - 1; l >= 0; l--) {
    const a = layers[l];
    // MLP block: x = xMid + down(silu(gate(h2)) * up(h2)), h2 = rmsnorm(xMid)
    const dact = dec.projectBack(l, 'down', dx, a.act, T, sinks(l, 'down'));
    const { dgate, dup } = swiglu_backward(dact, a.gate, a.up);
    const dh2 = dec.projectBack(l, 'gate', dgate, a.h2, T, sinks(l, 'gate'));
    const dh2up = dec.projectBack(l, 'up', dup, a.h2, T, sinks(l, 'up'));
    for (let i = 0; i < dh2.length; i++) dh2[i] += dh2up[i];
    const dxMid = rmsnorm_backward(dh2, a.xMid, tensor(w, hfNames.postAttnNorm(l), C), T, C, eps, g(hfNames.postAttnNorm(l)));
    for (let i = 0; i < dxMid.length; i++) dxMid[i] += dx[i]; // residual

    // attention block: xMid = xIn + o(attn(rope(q(h)), rope(k(h)), v(h))), h = rmsnorm(xIn)
    const datt = dec.projectBack(l, 'o', dxMid, a.att, T, sinks(l, 'o'));
    const { dq, dk, dv } = attention_backward(datt, a.q, a.k, a.v, T, T, NH, KVH, HS, 0);
    const dh = dec.projectBack(l, 'q', rope_backward(dq, pos, T, NH, HS, cfg.ropeTheta), a.h, T, sinks(l, 'q'));
    const dhk = dec.projectBack(l, 'k', rope_backward(dk, pos, T, KVH, HS, cfg.ropeTheta), a.h, T, sinks(l, 'k'));
    const dhv = dec.projectBack(l, 'v', dv, a.h, T, sinks(l, 'v'));
    for (let i = 0; i < dh.length; i++) dh[i] += dhk[i] + dhv[i];
    dx = rmsnorm_backward(dh, a.xIn, tensor(w, hfNames.inputNorm(l), C), T, C, eps, g(hfNames.inputNorm(l)));
    for (let i = 0; i < dx.length; i++) dx[i] += dxMid[i]; // residual
  }
  const dEmbed = g(hfNames.embed);
  if (dEmbed) embedding_backward(dx, tensor(w, hfNames.embed, V * C), ids, C, dEmbed);
  return (loraGrads ?? full) as LoraGrads | TensorMap;
}
