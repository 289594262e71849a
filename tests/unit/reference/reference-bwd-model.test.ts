// Finite-difference checks of model_backward (src/reference/model_backward.ts) against the
// forward of src/reference/model.ts on tiny random decoders: LoRA mode (every dA, dB), full mode
// (every weight, tied and untied heads, with and without q/k/v biases, a frozen adapter in the
// forward), dlogp and dentropy together, and accumulation into earlier gradients. Prints max rel err.
import { describe, expect, it } from 'vitest';
import { randomArray } from '../../../src/gpu/selftest';
import { PROJECTIONS, hfNames, loraKey, projShape, type LoraWeights, type ModelConfig, type TensorMap } from '../../../src/model/types';
import { model_logprobs } from '../../../src/reference/model';
import { model_backward, trainableShapes } from '../../../src/reference/model_backward';
import { dot, fdGrad, maxAbs, randomWeights, relErr, tinyConfig } from '../helpers/reference-bwd-fd';

const TOL = 1e-3;

function randomLora(cfg: ModelConfig, R: number, seed: number): LoraWeights {
  const pairs = new Map<string, { A: Float32Array; B: Float32Array }>();
  let s = seed;
  for (let l = 0; l < cfg.numLayers; l++) {
    for (const p of PROJECTIONS) {
      const [N, K] = projShape(cfg, p);
      pairs.set(loraKey(l, p), { A: randomArray(R * K, s++).map((v) => v / Math.sqrt(K)), B: randomArray(N * R, s++).map((v) => 0.5 * v) });
    }
  }
  return { config: { rank: R, alpha: 2 * R, useRslora: false, targets: [...PROJECTIONS] }, pairs };
}

const ids = [3, 7, 1, 3, 10, 0];
const T = ids.length;
const dlogp = randomArray(T - 1, 91);
const dentropy = randomArray(T - 1, 92).map((v) => 0.5 * v);

/** The scalar whose gradient model_backward returns, evaluated with the forward of model.ts. */
function objective(cfg: ModelConfig, w: TensorMap, lora: LoraWeights | null, withEntropy: boolean): () => number {
  return () => {
    const { logprobs, entropy } = model_logprobs(cfg, w, ids, lora);
    return dot(logprobs, dlogp) + (withEntropy ? dot(entropy, dentropy) : 0);
  };
}

describe('model_backward, LoRA mode', () => {
  for (const withEntropy of [false, true]) {
    it(`dA and dB of all 14 pairs match finite differences (dentropy ${withEntropy ? 'on' : 'off'})`, () => {
      const cfg = tinyConfig({});
      const w = randomWeights(cfg, 100);
      const lora = randomLora(cfg, 2, 500);
      const grads = model_backward(cfg, w, ids, dlogp, { mode: 'lora', lora, dentropy: withEntropy ? dentropy : null });
      const f = objective(cfg, w, lora, withEntropy);
      let worst = 0, worstKey = '';
      for (const [key, pair] of lora.pairs) {
        const g = grads.get(key);
        if (!g) throw new Error(`no gradient for ${key}`);
        for (const [what, an, x] of [['dA', g.dA, pair.A], ['dB', g.dB, pair.B]] as const) {
          const fd = fdGrad(x, f);
          expect(maxAbs(fd)).toBeGreaterThan(1e-4);
          const e = relErr(an, fd);
          if (e > worst) { worst = e; worstKey = `${key} ${what}`; }
        }
      }
      console.log(`LoRA mode (dentropy ${withEntropy ? 'on' : 'off'}): 28 tensors, max rel err=${worst.toExponential(2)} (worst ${worstKey})`);
      expect(worst).toBeLessThan(TOL);
    });
  }
});

describe('model_backward, full mode', () => {
  for (const c of [
    { name: 'qwen2-like: tied head, q/k/v biases, GQA, frozen adapter in the forward', over: {}, lora: true },
    { name: 'llama-like: untied lm_head, no biases, MHA', over: { architecture: 'llama', tieWordEmbeddings: false, attentionBias: false, numKvHeads: 2 } as Partial<ModelConfig>, lora: false },
  ]) {
    it(`${c.name}: every weight matches finite differences`, () => {
      const cfg = tinyConfig(c.over);
      const w = randomWeights(cfg, 200);
      const lora = c.lora ? randomLora(cfg, 2, 600) : null;
      const grads = model_backward(cfg, w, ids, dlogp, { mode: 'full', lora, dentropy });
      expect([...grads.keys()].sort()).toEqual([...trainableShapes(cfg, w).keys()].sort());
      expect(grads.has(hfNames.lmHead)).toBe(!cfg.tieWordEmbeddings);
      const f = objective(cfg, w, lora, true);
      let worst = 0, worstName = '', count = 0;
      for (const [name, t] of w) {
        const g = grads.get(name);
        if (!g) throw new Error(`no gradient for ${name}`);
        const fd = fdGrad(t.data, f);
        count += fd.length;
        const e = relErr(g.data, fd);
        if (e > worst) { worst = e; worstName = name; }
        expect(maxAbs(fd)).toBeGreaterThan(1e-4);
      }
      console.log(`full mode ${cfg.architecture} (tied ${cfg.tieWordEmbeddings}): ${grads.size} tensors, ${count} values, max rel err=${worst.toExponential(2)} (worst ${worstName})`);
      expect(worst).toBeLessThan(TOL);
    });
  }
});

describe('model_backward write contract', () => {
  it('into: a second call adds to the first (gradient accumulation), in both modes', () => {
    const cfg = tinyConfig({});
    const w = randomWeights(cfg, 300);
    const lora = randomLora(cfg, 2, 700);
    const once = model_backward(cfg, w, ids, dlogp, { mode: 'lora', lora });
    const twice = model_backward(cfg, w, ids, dlogp, { mode: 'lora', lora, into: model_backward(cfg, w, ids, dlogp, { mode: 'lora', lora }) });
    let d = 0;
    for (const [key, g] of once) {
      const g2 = twice.get(key);
      if (!g2) throw new Error(`missing ${key}`);
      d = Math.max(d, relErr(g2.dA, g.dA.map((v) => 2 * v)), relErr(g2.dB, g.dB.map((v) => 2 * v)));
    }
    const f1 = model_backward(cfg, w, ids, dlogp, { mode: 'full' });
    const f2 = model_backward(cfg, w, ids, dlogp, { mode: 'full', into: model_backward(cfg, w, ids, dlogp, { mode: 'full' }) });
    for (const [name, g] of f1) {
      const g2 = f2.get(name);
      if (!g2) throw new Error(`missing ${name}`);
      d = Math.max(d, relErr(g2.data, g.data.map((v) => 2 * v)));
    }
    console.log(`accumulate twice vs 2 x once: max rel diff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-6);
  });

  it('rejects a wrong dlogp length and LoRA mode without an adapter', () => {
    const cfg = tinyConfig({});
    const w = randomWeights(cfg, 400);
    expect(() => model_backward(cfg, w, ids, new Float32Array(T), { mode: 'full' })).toThrow(/dlogp.*T-1/);
    expect(() => model_backward(cfg, w, ids, dlogp, { mode: 'lora', lora: null as unknown as LoraWeights })).toThrow(/needs opts.lora/);
  });
});
