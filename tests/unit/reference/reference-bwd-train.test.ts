// The training pieces around the reference backward: masked cross-entropy (values, micro-batch
// accumulation, errors), AdamW (first-step and weight-decay properties), global-norm clipping,
// learning-rate schedules, PEFT-style LoRA init (bounds, seed, no-op start), and an overfit run
// of the CPU reference in full mode that must memorise three short sequences.
import { describe, expect, it } from 'vitest';
import { randomArray } from '../../../src/gpu/selftest';
import { PROJECTIONS, projShape, type TensorMap } from '../../../src/model/types';
import { masked_ce, countTokens } from '../../../src/reference/loss';
import { ADAMW_DEFAULTS, adamw_state, adamw_step, clip_grad_norm, lr_at, type ParamGrad } from '../../../src/reference/adamw';
import { lora_init } from '../../../src/reference/lora';
import { model_forward, model_logprobs } from '../../../src/reference/model';
import { model_backward } from '../../../src/reference/model_backward';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { maxAbs, randomWeights, tinyConfig } from '../helpers/reference-bwd-fd';

describe('masked_ce', () => {
  it('loss = -sum(mask logp) / sum(mask), dlogp = -mask / n', () => {
    const lps = [[-1, -2, -3], [-0.5, -4]];
    const masks = [[0, 1, 1], [1, 0]];
    const { loss, nTokens, dlogp } = masked_ce(lps, masks);
    console.log(`masked_ce loss=${loss} nTokens=${nTokens}`);
    expect(nTokens).toBe(3);
    expect(loss).toBeCloseTo((2 + 3 + 0.5) / 3, 12);
    expect(Array.from(dlogp[0])).toEqual([0, -1 / 3, -1 / 3].map(Math.fround));
    expect(Array.from(dlogp[1])).toEqual([-1 / 3, 0].map(Math.fround));
  });

  it('micro-batches with the batch token count add up to the whole batch', () => {
    const lps = [Array.from(randomArray(4, 1)), Array.from(randomArray(6, 2)), Array.from(randomArray(3, 3))];
    const masks = [[1, 1, 0, 1], [0, 0, 1, 1, 1, 1], [1, 0, 1]];
    const whole = masked_ce(lps, masks);
    const n = countTokens(masks);
    const a = masked_ce(lps.slice(0, 2), masks.slice(0, 2), n), b = masked_ce(lps.slice(2), masks.slice(2), n);
    const d = Math.max(Math.abs(a.loss + b.loss - whole.loss), maxAbsDiff([...a.dlogp, ...b.dlogp].flatMap((x) => Array.from(x)), whole.dlogp.flatMap((x) => Array.from(x))));
    console.log(`micro-batch sum vs whole batch maxdiff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-12);
  });

  it('rejects an all-zero mask and mismatched lengths', () => {
    expect(() => masked_ce([[-1, -2]], [[0, 0]])).toThrow(/at least one trained token/);
    expect(() => masked_ce([[-1, -2]], [[1]])).toThrow(/\[T-1\]/);
    expect(() => masked_ce([[-1]], [])).toThrow(/one mask per sequence/);
  });
});

describe('clip_grad_norm', () => {
  it('returns the pre-clip norm and scales to maxNorm; leaves small gradients alone', () => {
    const g = [Float32Array.from([3, 0]), Float32Array.from([0, 4])];
    expect(clip_grad_norm(g, 1)).toBeCloseTo(5, 6);
    const after = Math.hypot(...g.flatMap((x) => Array.from(x)));
    console.log(`clip to 1: norm after=${after}`);
    expect(after).toBeCloseTo(1, 5);
    const small = [Float32Array.from([0.3, 0.4])];
    expect(clip_grad_norm(small, 1)).toBeCloseTo(0.5, 6);
    expect(Array.from(small[0])).toEqual([0.3, 0.4].map(Math.fround));
  });
});

describe('adamw_step', () => {
  it('step 1 moves each weight by lr g / (|g| + eps) after decay; later steps keep moments', () => {
    const n = 64, lr = 1e-2, weightDecay = 0.1;
    const p0 = randomArray(n, 4), g = randomArray(n, 5);
    const param = p0.slice();
    const state = adamw_state();
    const hp = { ...ADAMW_DEFAULTS, lr, weightDecay };
    adamw_step([{ name: 'w', param, grad: g }], state, hp);
    const expected = p0.map((p, i) => p * (1 - lr * weightDecay) - (lr * g[i]) / (Math.abs(g[i]) + ADAMW_DEFAULTS.eps));
    const d = maxAbsDiff(param, expected);
    console.log(`adamw step 1 vs lr*sign(g) property maxdiff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-7);
    // a constant gradient keeps m_hat / sqrt(v_hat) = sign(g): every later step moves by lr too
    const before = param.slice();
    adamw_step([{ name: 'w', param, grad: g }], state, { ...hp, weightDecay: 0 });
    const d2 = maxAbsDiff(param, before.map((p, i) => p - lr * Math.sign(g[i])));
    console.log(`adamw step 2, same gradient, maxdiff=${d2.toExponential(2)}`);
    expect(state.step).toBe(2);
    expect(d2).toBeLessThan(1e-6);
    expect(() => adamw_step([{ name: 'new', param, grad: g }], state, hp)).toThrow(/must not change/);
  });

  it('a zero gradient only decays the weight (decoupled weight decay)', () => {
    const param = Float32Array.from([1, -2, 0.5]);
    adamw_step([{ name: 'w', param, grad: new Float32Array(3) }], adamw_state(), { ...ADAMW_DEFAULTS, lr: 0.1, weightDecay: 0.5 });
    expect(maxAbsDiff(param, [0.95, -1.9, 0.475])).toBeLessThan(1e-7);
  });
});

describe('lr_at', () => {
  it('constant, linear warmup (HF: 0 at step 0), cosine to a floor and clamped after the end', () => {
    expect(lr_at({ kind: 'constant', lr: 0.1 }, 7)).toBe(0.1);
    const warm = { kind: 'constant' as const, lr: 0.1, warmupSteps: 4 };
    expect([0, 1, 2, 4, 9].map((s) => lr_at(warm, s))).toEqual([0, 0.025, 0.05, 0.1, 0.1]);
    const cos = { kind: 'cosine' as const, lr: 1, warmupSteps: 10, totalSteps: 110, minRatio: 0.1 };
    const at = [5, 10, 60, 110, 500].map((s) => lr_at(cos, s));
    console.log(`cosine lr at 5/10/60/110/500: ${at.map((v) => v.toFixed(4)).join(' ')}`);
    expect(at[0]).toBeCloseTo(0.5, 12);
    expect(at[1]).toBeCloseTo(1, 12);
    expect(at[2]).toBeCloseTo(0.55, 12);
    expect(at[3]).toBeCloseTo(0.1, 12);
    expect(at[4]).toBeCloseTo(0.1, 12);
    expect(lr_at({ kind: 'cosine', lr: 1, totalSteps: 100 }, 100)).toBeCloseTo(0, 12);
  });
});

describe('lora_init', () => {
  it('A uniform within 1/sqrt(in) (kaiming_uniform a=sqrt(5)), B zero, seeded; a fresh adapter is a no-op', () => {
    const cfg = tinyConfig({ hiddenSize: 32, intermediateSize: 48, numHeads: 4, numKvHeads: 2, headDim: 8 });
    const config = { rank: 4, alpha: 8, useRslora: false, targets: [...PROJECTIONS] };
    const lora = lora_init(cfg, config, 42);
    expect(lora.pairs.size).toBe(cfg.numLayers * 7);
    let worstVar = 0;
    for (const [key, { A, B }] of lora.pairs) {
      const p = PROJECTIONS.find((q) => key.endsWith(`.${q}`));
      if (!p) throw new Error(key);
      const [N, K] = projShape(cfg, p);
      expect(A.length).toBe(config.rank * K);
      expect(B.length).toBe(N * config.rank);
      expect(maxAbs(B)).toBe(0);
      const bound = 1 / Math.sqrt(K);
      expect(maxAbs(A)).toBeLessThanOrEqual(bound);
      const v = A.reduce((s, x) => s + x * x, 0) / A.length;
      worstVar = Math.max(worstVar, Math.abs(v / (bound * bound / 3) - 1));
    }
    console.log(`lora_init: variance of A vs bound^2/3, worst relative deviation ${worstVar.toFixed(3)}`);
    expect(worstVar).toBeLessThan(0.25);
    expect(lora_init(cfg, config, 42).pairs.get('1.v')?.A).toEqual(lora.pairs.get('1.v')?.A);
    expect(maxAbsDiff(lora_init(cfg, config, 43).pairs.get('1.v')?.A ?? [], lora.pairs.get('1.v')?.A ?? [])).toBeGreaterThan(0);

    const w = randomWeights(cfg, 7);
    const ids = [1, 5, 2, 9];
    expect(maxAbsDiff(model_forward(cfg, w, ids, lora), model_forward(cfg, w, ids, null))).toBe(0);
    const grads = model_backward(cfg, w, ids, Float32Array.from([-1, -1, -1]), { mode: 'lora', lora });
    const g = grads.get('0.q');
    if (!g) throw new Error('no 0.q gradient');
    // with B = 0 nothing flows back into A on the first step; B gets the whole gradient
    expect(maxAbs(g.dA)).toBe(0);
    expect(maxAbs(g.dB)).toBeGreaterThan(0);
  });
});

describe('overfit (full mode, CPU reference)', () => {
  it('memorises three short sequences: loss below 0.01 within 200 AdamW steps', () => {
    const cfg = tinyConfig({ vocabSize: 16, hiddenSize: 16, intermediateSize: 32, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 8 });
    const w: TensorMap = randomWeights(cfg, 11);
    // distinct first tokens: every next token is determined by its prefix, so the loss can reach 0
    const seqs = [[1, 4, 9, 3, 3, 12, 7, 0], [2, 4, 2, 15, 8, 8, 5, 0], [3, 11, 6, 10, 13, 2, 14, 0]];
    const masks = seqs.map((s) => s.slice(1).map(() => 1));
    const state = adamw_state();
    const schedule = { kind: 'cosine' as const, lr: 3e-2, warmupSteps: 5, totalSteps: 200, minRatio: 0.1 };
    const t0 = performance.now();
    let loss = Infinity, step = 0, first = 0;
    for (; step < 200; step++) {
      const r = masked_ce(seqs.map((s) => model_logprobs(cfg, w, s).logprobs), masks);
      loss = r.loss;
      if (step === 0) first = loss;
      if (loss < 0.01) break;
      let grads: TensorMap | undefined;
      seqs.forEach((s, b) => { grads = model_backward(cfg, w, s, r.dlogp[b], { mode: 'full', into: grads }); });
      if (!grads) throw new Error('empty batch');
      const items: ParamGrad[] = [...w].map(([name, t]) => {
        const gr = grads?.get(name);
        if (!gr) throw new Error(`no gradient for ${name}`);
        return { name, param: t.data, grad: gr.data };
      });
      clip_grad_norm(items.map((i) => i.grad), 1.0);
      adamw_step(items, state, { ...ADAMW_DEFAULTS, lr: lr_at(schedule, step), weightDecay: 0 });
    }
    console.log(`overfit: loss ${first.toFixed(3)} -> ${loss.toFixed(4)} after ${step} steps, ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    expect(loss).toBeLessThan(0.01);
  });
});
