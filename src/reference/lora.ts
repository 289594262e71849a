// CPU reference of a fresh LoRA adapter as PEFT initialises one, deterministic in a seed. Used by
// src/train/lora-params.ts (the GPU adapter starts from it) and the tests that build adapters;
// exercised by tests/unit/train/train-peft.test.ts and tests/unit/run/run-folder.test.ts.
import { PROJECTIONS, loraKey, projShape, type LoraConfig, type LoraWeights, type ModelConfig } from '../model/types';
import { mulberry32 } from '../util/rng';

/**
 * A fresh adapter as PEFT initialises one: A [R, in] uniform in [-1/sqrt(in), 1/sqrt(in)]
 * (nn.init.kaiming_uniform_ with a = sqrt(5)), B [out, R] zero, so the adapter starts as a no-op.
 * Deterministic in `seed`: layers in order, projections in PROJECTIONS order, A row-major.
 */
export function lora_init(cfg: ModelConfig, config: LoraConfig, seed: number): LoraWeights {
  const rand = mulberry32(seed);
  const pairs = new Map<string, { A: Float32Array; B: Float32Array }>();
  for (let l = 0; l < cfg.numLayers; l++) {
    for (const p of PROJECTIONS) {
      if (!config.targets.includes(p)) continue;
      const [out, inF] = projShape(cfg, p);
      const bound = 1 / Math.sqrt(inF);
      const A = new Float32Array(config.rank * inF);
      for (let i = 0; i < A.length; i++) A[i] = (2 * rand() - 1) * bound;
      pairs.set(loraKey(l, p), { A, B: new Float32Array(out * config.rank) });
    }
  }
  return { config, pairs };
}
