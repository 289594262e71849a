// The shipped agent's architecture and its seeded from-scratch initialisation: a Qwen2-style
// decoder (tied embeddings, q/k/v biases, grouped-query attention) with GPT-2's init (normal
// weights of std 0.02, residual output projections scaled by 1/sqrt(2 L), zero biases, unit
// norms), written as a Hugging Face folder the engine's loader reads. Used by
// scripts/train-agent.ts; tested by tests/unit/tooling/agent-model.test.ts.
import type { ModelConfig, HostTensor } from '../../src/model/types';
import { expectedTensors } from '../../src/model/io/expected';
import { mixSeed, mulberry32 } from '../../src/util/rng';

export function agentModelConfig(vocabSize: number, eosTokenIds: number[]): ModelConfig {
  return {
    architecture: 'qwen2', vocabSize, hiddenSize: 64, intermediateSize: 192, numLayers: 4,
    numHeads: 4, numKvHeads: 2, headDim: 16, ropeTheta: 10000, rmsNormEps: 1e-6, maxPositions: 512,
    tieWordEmbeddings: true, attentionBias: true, eosTokenIds,
  };
}

/** Standard normal draws from a seeded uniform source (Box-Muller). */
function normals(n: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rand())), t = 2 * Math.PI * rand();
    out[i] = r * Math.cos(t);
    if (i + 1 < n) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

/** Every tensor of the config, initialised from `seed` (each tensor from its own sub-seed). */
export function initAgentWeights(cfg: ModelConfig, seed: number): Map<string, HostTensor> {
  const out = new Map<string, HostTensor>();
  const residualScale = 1 / Math.sqrt(2 * cfg.numLayers);
  [...expectedTensors(cfg)].forEach(([name, shape], i) => {
    const n = shape.reduce((a, b) => a * b, 1);
    let data: Float32Array;
    if (name.endsWith('norm.weight')) data = new Float32Array(n).fill(1);
    else if (name.endsWith('.bias')) data = new Float32Array(n);
    else {
      const std = 0.02 * (/(o_proj|down_proj)\.weight$/.test(name) ? residualScale : 1);
      data = normals(n, mixSeed(seed, i)).map((v) => v * std);
    }
    out.set(name, { shape, data });
  });
  return out;
}

export function countParams(tensors: Map<string, HostTensor>): number {
  let n = 0;
  for (const t of tensors.values()) n += t.data.length;
  return n;
}
