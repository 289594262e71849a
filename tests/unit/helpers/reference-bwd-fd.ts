// Helpers for the reference-backward tests (reference-bwd-*.test.ts): a fourth-order central
// difference of a scalar loss with respect to every value of an array, the relative error figure
// the tests print, and tiny random decoders. Not a test file itself.
import { randomArray } from '../../../src/gpu/selftest';
import { hfNames, type ModelConfig, type TensorMap } from '../../../src/model/types';
import { trainableShapes } from '../../../src/reference/model_backward';

/**
 * d loss / d x[i] for every i (or the indices given), by the 4-point stencil
 * (-f(x+2h) + 8 f(x+h) - 8 f(x-h) + f(x-2h)) / 12h: truncation error O(h^4), so h can be large
 * enough to drown the f32 rounding of the forward. x is perturbed in place and restored.
 */
export function fdGrad(x: Float32Array, loss: () => number, h = 1e-2, indices?: number[]): Float64Array {
  const out = new Float64Array(x.length);
  const idx = indices ?? Array.from({ length: x.length }, (_, i) => i);
  for (const i of idx) {
    const x0 = x[i];
    const at = (d: number) => {
      x[i] = x0 + d;
      const f = loss();
      x[i] = x0;
      return f;
    };
    out[i] = (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h);
  }
  return out;
}

/** max_i |analytic[i] - fd[i]| / max_i |fd[i]|: the error relative to the gradient's scale. */
export function relErr(analytic: ArrayLike<number>, fd: ArrayLike<number>, indices?: number[]): number {
  if (analytic.length !== fd.length) throw new Error(`relErr: lengths differ (${analytic.length} vs ${fd.length})`);
  const idx = indices ?? Array.from({ length: fd.length }, (_, i) => i);
  let num = 0, den = 0;
  for (const i of idx) {
    num = Math.max(num, Math.abs(analytic[i] - fd[i]));
    den = Math.max(den, Math.abs(fd[i]));
  }
  if (den === 0) return num === 0 ? 0 : Infinity;
  return num / den;
}

/** sum_i a[i] g[i] in f64: turns an op's output into a scalar loss with upstream gradient g. */
export function dot(a: ArrayLike<number>, g: ArrayLike<number>): number {
  if (a.length !== g.length) throw new Error(`dot: lengths differ (${a.length} vs ${g.length})`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * g[i];
  return s;
}

/** Largest |value|: tests check gradients are not trivially zero. */
export const maxAbs = (a: ArrayLike<number>): number => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
};

/** A tiny Qwen2-like config (tied head, q/k/v biases, GQA 2/1); `over` changes what differs. */
export function tinyConfig(over: Partial<ModelConfig>): ModelConfig {
  return {
    architecture: 'qwen2', vocabSize: 11, hiddenSize: 8, intermediateSize: 12, numLayers: 2, numHeads: 2, numKvHeads: 1,
    headDim: 4, ropeTheta: 10000, rmsNormEps: 1e-6, maxPositions: 32, tieWordEmbeddings: true, attentionBias: true,
    eosTokenIds: [], ...over,
  };
}

/** Random weights for every tensor the forward reads (norm weights near 1), plus lm_head when untied. */
export function randomWeights(cfg: ModelConfig, seed: number): TensorMap {
  const w: TensorMap = new Map();
  const names = trainableShapes(cfg, new Map([[hfNames.lmHead, { shape: [], data: new Float32Array(0) }]]));
  let s = seed;
  for (const [name, shape] of names) {
    if (name === hfNames.lmHead && cfg.tieWordEmbeddings) continue;
    const n = shape.reduce((a, b) => a * b, 1);
    const r = randomArray(n, s++);
    const isNorm = name.endsWith('norm.weight');
    const scale = isNorm ? 0.2 : name.endsWith('.bias') ? 0.3 : 1.5 / Math.sqrt(shape[shape.length - 1]);
    w.set(name, { shape, data: r.map((v) => (isNorm ? 1 : 0) + scale * v) });
  }
  return w;
}

