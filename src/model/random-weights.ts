// Random weights for a model config, generated tensor by tensor on request (the loader's
// TensorReader shape): for benchmarks and memory checks at real model shapes without real files.
// Values: uniform in [-a, a] with a = 1/sqrt(in features), norms 1. Used by scripts/bench-forward.ts.
import { expectedTensors } from './io/expected';
import type { HostTensor, ModelConfig } from './types';

export function randomWeights(cfg: ModelConfig, seed = 1): { read(name: string): Promise<HostTensor>; has(name: string): boolean } {
  const shapes = expectedTensors(cfg);
  return {
    has: (name) => shapes.has(name),
    read: async (name) => {
      const shape = shapes.get(name);
      if (!shape) throw new Error(`randomWeights: no tensor ${name} in this config`);
      const n = shape.reduce((a, b) => a * b, 1);
      const data = new Float32Array(n);
      if (name.endsWith('norm.weight')) data.fill(1);
      else {
        const a = 1 / Math.sqrt(shape[shape.length - 1]);
        let s = (seed * 2654435761 + n) >>> 0 || 1;
        for (let i = 0; i < n; i++) {
          s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
          data[i] = ((s / 4294967296) * 2 - 1) * a;
        }
      }
      return { shape, data };
    },
  };
}

/** Qwen2.5-0.5B's shapes (config.json of the real model), with the layer count as an option. */
export function qwen25_05bConfig(numLayers = 24): ModelConfig {
  return {
    architecture: 'qwen2', vocabSize: 151936, hiddenSize: 896, intermediateSize: 4864, numLayers,
    numHeads: 14, numKvHeads: 2, headDim: 64, ropeTheta: 1e6, rmsNormEps: 1e-6, maxPositions: 32768,
    tieWordEmbeddings: true, attentionBias: true, bosTokenId: 151643, eosTokenIds: [151645, 151643],
  };
}
