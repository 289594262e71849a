// The CPU reference backward against PyTorch training goldens (tests/fixtures/goldens/grads.json,
// made by scripts/make_goldens.py): masked cross-entropy over a 3-sequence batch on the tiny
// Qwen2 with a non-zero LoRA adapter, LoRA gradients (f32 and NF4 base weights), 3 AdamW steps
// with global-norm clipping, and full-mode gradients of every weight. Prints maxdiff per figure.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model/hf-config';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { openWeights } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { type LoraWeights, type ModelConfig, type TensorMap } from '../../../src/model/types';
import { model_logprobs } from '../../../src/reference/model';
import { model_backward, type LoraGrads } from '../../../src/reference/model_backward';
import { masked_ce } from '../../../src/reference/loss';
import { ADAMW_DEFAULTS, adamw_state, adamw_step, clip_grad_norm, type ParamGrad } from '../../../src/reference/adamw';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { maxAbs } from '../helpers/reference-bwd-fd';
import { nf4Weights, readGradGoldens } from '../../fixtures/goldens';

const DIR = join(__dirname, '../../fixtures/goldens');
const REL_TOL = 1e-4; // gradients: max |ours - torch| / max |torch| per tensor

const golden = readGradGoldens();

const rel = (ours: ArrayLike<number>, torch: ArrayLike<number>) => maxAbsDiff(ours, torch) / maxAbs(torch);

function cloneLora(a: LoraWeights): LoraWeights {
  return { config: a.config, pairs: new Map([...a.pairs].map(([k, p]) => [k, { A: p.A.slice(), B: p.B.slice() }])) };
}

/** The SFT loss of the batch and its LoRA gradients, one sequence at a time (gradient accumulation). */
function loraLossAndGrads(cfg: ModelConfig, w: TensorMap, lora: LoraWeights): { loss: number; grads: LoraGrads } {
  const { ids, masks } = golden.batch;
  const lps = ids.map((s) => model_logprobs(cfg, w, s, lora).logprobs);
  const { loss, dlogp } = masked_ce(lps, masks);
  let grads: LoraGrads | undefined;
  ids.forEach((s, b) => { grads = model_backward(cfg, w, s, dlogp[b], { mode: 'lora', lora, into: grads }); });
  if (!grads) throw new Error('empty batch');
  return { loss, grads };
}

describe('reference backward vs PyTorch training goldens (tiny Qwen2, masked CE)', () => {
  let cfg: ModelConfig;
  let weights: { f32: TensorMap; nf4: TensorMap };
  let lora: LoraWeights;

  beforeAll(async () => {
    const src = new NodeDirSource(join(DIR, 'tiny-qwen2'));
    cfg = parseModelConfig(await readJson(src, 'config.json'));
    const f32 = await (await openWeights(src)).readAll();
    weights = { f32, nf4: nf4Weights(cfg, f32) };
    lora = await readPeftAdapter(new NodeDirSource(join(DIR, 'tiny-qwen2-lora')), cfg);
  });

  it('the fixture carries its magic, version and how to regenerate it; masks drop some tokens', () => {
    expect(golden.magic).toBe('rlstudio-grads');
    expect(golden.version).toBe(1);
    expect(golden.regenerate).toContain('make_goldens.py');
    const { masks, n_tokens } = golden.batch;
    const total = masks.reduce((a, m) => a + m.length, 0);
    expect(n_tokens).toBeGreaterThan(0);
    expect(n_tokens).toBeLessThan(total);
    expect(golden.lora.f32.steps[0].grad_norm).toBeGreaterThan(golden.train.max_grad_norm); // clipping really clips
  });

  for (const kind of ['f32', 'nf4'] as const) {
    it(`${kind} base: loss and the LoRA gradients of all 14 pairs`, () => {
      const g = golden.lora[kind];
      const { loss, grads } = loraLossAndGrads(cfg, weights[kind], lora);
      let worst = 0, worstAbs = 0;
      for (const [key, t] of Object.entries(g.grads)) {
        const ours = grads.get(key);
        if (!ours) throw new Error(`no gradient for ${key}`);
        worst = Math.max(worst, rel(ours.dA, t.dA), rel(ours.dB, t.dB));
        worstAbs = Math.max(worstAbs, maxAbsDiff(ours.dA, t.dA), maxAbsDiff(ours.dB, t.dB));
      }
      console.log(`${kind} LoRA: loss ${loss.toFixed(6)} vs torch ${g.loss.toFixed(6)} (diff ${Math.abs(loss - g.loss).toExponential(2)}); ` +
        `grads ${grads.size} pairs maxdiff=${worstAbs.toExponential(2)}, max rel=${worst.toExponential(2)} (torch f32 vs f64 rel ${g.f32_vs_f64_maxrel.toExponential(2)})`);
      expect(grads.size).toBe(cfg.numLayers * 7);
      expect(Math.abs(loss - g.loss)).toBeLessThan(1e-4 * Math.abs(g.loss));
      expect(worst).toBeLessThan(REL_TOL);
    });

    it(`${kind} base: 3 AdamW steps with global-norm clipping give torch's adapter`, () => {
      const g = golden.lora[kind], tr = golden.train;
      const a = cloneLora(lora);
      const state = adamw_state();
      const hp = { ...ADAMW_DEFAULTS, lr: tr.lr, beta1: tr.betas[0], beta2: tr.betas[1], eps: tr.eps, weightDecay: tr.weight_decay };
      for (let s = 0; s < tr.steps; s++) {
        const { loss, grads } = loraLossAndGrads(cfg, weights[kind], a);
        const items: ParamGrad[] = [];
        for (const [key, p] of a.pairs) {
          const gr = grads.get(key);
          if (!gr) throw new Error(`no gradient for ${key}`);
          items.push({ name: `${key}.A`, param: p.A, grad: gr.dA }, { name: `${key}.B`, param: p.B, grad: gr.dB });
        }
        const norm = clip_grad_norm(items.map((i) => i.grad), tr.max_grad_norm);
        adamw_step(items, state, hp);
        const want = g.steps[s];
        console.log(`${kind} step ${s + 1}: loss ${loss.toFixed(5)} (torch ${want.loss.toFixed(5)}), grad_norm ${norm.toFixed(5)} (torch ${want.grad_norm.toFixed(5)})` +
          `${norm > tr.max_grad_norm ? ' clipped' : ''}`);
        expect(Math.abs(loss - want.loss)).toBeLessThan(1e-4 * want.loss);
        expect(Math.abs(norm - want.grad_norm)).toBeLessThan(1e-4 * want.grad_norm);
      }
      let worstAbs = 0, worstRel = 0;
      for (const [key, t] of Object.entries(g.after)) {
        const p = a.pairs.get(key);
        if (!p) throw new Error(`missing ${key}`);
        worstAbs = Math.max(worstAbs, maxAbsDiff(p.A, t.A), maxAbsDiff(p.B, t.B));
        worstRel = Math.max(worstRel, rel(p.A, t.A), rel(p.B, t.B));
      }
      const moved = Math.max(...[...a.pairs].map(([k, p]) => maxAbsDiff(p.B, lora.pairs.get(k)?.B ?? [])));
      console.log(`${kind} adapter after ${tr.steps} steps: maxdiff=${worstAbs.toExponential(2)}, max rel=${worstRel.toExponential(2)} (largest move of B ${moved.toExponential(2)})`);
      expect(moved).toBeGreaterThan(2 * tr.lr); // Adam moves a weight by about lr per step
      expect(worstRel).toBeLessThan(REL_TOL);
    });
  }

  it('full mode: loss, norm and sum of every weight gradient, values of the sampled tensors (tied embedding)', () => {
    const f = golden.full, w = weights.f32;
    const { ids, masks } = golden.batch;
    const { loss, dlogp } = masked_ce(ids.map((s) => model_logprobs(cfg, w, s).logprobs), masks);
    let grads: TensorMap | undefined;
    ids.forEach((s, b) => { grads = model_backward(cfg, w, s, dlogp[b], { mode: 'full', into: grads }); });
    if (!grads) throw new Error('empty batch');
    expect([...grads.keys()].sort()).toEqual(Object.keys(f.norms).sort());
    let worstNorm = 0, worstSum = 0, worstVal = 0;
    for (const [name, t] of grads) {
      let ss = 0, sum = 0;
      for (const v of t.data) { ss += v * v; sum += v; }
      worstNorm = Math.max(worstNorm, Math.abs(Math.sqrt(ss) - f.norms[name]) / f.norms[name]);
      // a sum can cancel to near 0: measure it against the norm
      worstSum = Math.max(worstSum, Math.abs(sum - f.sums[name]) / f.norms[name]);
    }
    for (const [name, vals] of Object.entries(f.grads)) {
      const t = grads.get(name);
      if (!t) throw new Error(`no gradient for ${name}`);
      const r = rel(t.data, vals);
      console.log(`full ${name}: maxdiff=${maxAbsDiff(t.data, vals).toExponential(2)}, rel=${r.toExponential(2)}`);
      worstVal = Math.max(worstVal, r);
    }
    console.log(`full mode: loss ${loss.toFixed(6)} vs torch ${f.loss.toFixed(6)}; ${grads.size} tensors: norms max rel=${worstNorm.toExponential(2)}, ` +
      `sums max diff/norm=${worstSum.toExponential(2)}, sampled values max rel=${worstVal.toExponential(2)}`);
    expect(Math.abs(loss - f.loss)).toBeLessThan(1e-4 * f.loss);
    expect(worstNorm).toBeLessThan(REL_TOL);
    expect(worstSum).toBeLessThan(REL_TOL);
    expect(worstVal).toBeLessThan(REL_TOL);
  });
});
