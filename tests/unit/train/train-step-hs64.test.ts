// A training step at head size 64 (Qwen2.5 / Llama 3.2 heads, the generated attn_train_hs64_lse
// and attn_bwd_*_thread_hs64 kernels; the tile backward from the kept scores) and 32 (the generic
// row-table forward keeping them) through the whole model: a tiny random Qwen2-style model (two
// layers, two query heads on one kv head, GQA) in full mode, recomputing the layer in the
// backward or not, GPU gradients and log-probs against model_backward / model_logprobs, and the
// training pass's log-probs against GpuModel.logprobs (the row-table forward) bit for bit.
// Prints maxdiff per comparison.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { randomWeights, tinyConfig } from '../helpers/reference-bwd-fd';
import { GpuModel } from '../../../src/model/gpu/model';
import type { TensorMap } from '../../../src/model/types';
import { model_backward } from '../../../src/reference/model_backward';
import { model_logprobs } from '../../../src/reference/model';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { GpuFullParams } from '../../../src/train/full-params';
import { TrainStep } from '../../../src/train/train-step';

// Lengths that end in each position of a query quad, one longer than several key quads.
const SEQS = [[1, 5, 9, 2, 7, 7, 3], [4, 8], [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2], [3, 1, 4, 1, 5]];

describe('GPU training step at head size 64 (and 32)', () => {
  // HS = 32 runs the generic row-table forward, its score-keeping twin and the same tile backward.
  for (const HS of [64, 32]) it(`full mode, 2 / 1 heads of ${HS}: gradients and log-probs match the reference; training log-probs = GpuModel.logprobs bit for bit`, async () => {
    const rt = await nodeRuntime();
    const cfg = tinyConfig({ vocabSize: 16, hiddenSize: 2 * HS, intermediateSize: 64, numLayers: 2, numHeads: 2, numKvHeads: 1, headDim: HS });
    const weights: TensorMap = randomWeights(cfg, 5);
    const dlogp = SEQS.map((s, b) => Float32Array.from(randomArray(s.length - 1, 40 + b), (x) => 0.3 * x));
    const model = await GpuModel.load(rt, cfg, { has: (n) => weights.has(n), read: async (n) => weights.get(n)! }, { quant: 'none', quantEmbeddings: false, tune: false });
    const params = GpuFullParams.create(rt, model);
    const step = await TrainStep.create(rt, model, { mode: 'full', params }, {});
    const out = await step.run({ seqs: SEQS, dlogp });
    const got = await params.gradsToHost();
    // The pass kept the attention scores for the tile backward (attn_train_hs64_lse_s); recomputing
    // the layer in the backward keeps them too (its recomputed forward writes the one plane).
    expect(step.attentionBackwardForm).toBe('tiled-scores');
    // (The gradients accumulate: the second run's are the difference.)
    step.recompute = true;
    await step.run({ seqs: SEQS, dlogp });
    expect(step.attentionBackwardForm).toBe('tiled-scores');
    const twice = await params.gradsToHost();
    const recomputed = new Map([...twice].map(([name, t]) => [name, t.data.map((x, i) => x - got.get(name)!.data[i])]));

    let ref: TensorMap | undefined;
    SEQS.forEach((s, b) => { ref = model_backward(cfg, weights, s, dlogp[b], { mode: 'full', into: ref }) as TensorMap; });
    let dGrad = 0, mag = 0;
    for (const [name, t] of ref!) {
      const g = got.get(name), r = recomputed.get(name);
      expect(g, name).toBeDefined();
      dGrad = Math.max(dGrad, maxAbsDiff(g!.data, t.data), maxAbsDiff(r!, t.data));
      mag = Math.max(mag, ...t.data.map(Math.abs));
    }
    const refLp = SEQS.map((s) => model_logprobs(cfg, weights, s).logprobs);
    const dLp = Math.max(...SEQS.map((_, b) => maxAbsDiff(out.logprobs[b], refLp[b])));
    const inference = await model.logprobs(SEQS);
    const dRows = Math.max(...SEQS.map((_, b) => maxAbsDiff(out.logprobs[b], inference.logprobs[b])));
    console.log(`train step HS=${HS}: grads maxdiff=${dGrad.toExponential(2)} over ${ref!.size} tensors (max |grad| ${mag.toExponential(2)}); ` +
      `log-probs vs reference ${dLp.toExponential(2)}, vs GpuModel.logprobs ${dRows.toExponential(2)}`);
    expect(mag).toBeGreaterThan(1e-3);
    expect(dGrad / mag).toBeLessThan(1e-4);
    expect(dLp).toBeLessThan(1e-4);
    expect(dRows).toBe(0);
    step.dispose(); params.dispose(); model.dispose();
  });
});
