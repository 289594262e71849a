// The attention kernels' size threshold (PS_MIN_ROWS for the kept-P/dS backward, SIXTEEN_MIN_ROWS
// for the sixteen-position forward) counts the rows of the whole batch, not of each pass:
// TrainStep splits a batch into passes of at most maxRows rows, and a short last pass used to run
// (and build, mid-run) the other form. A batch of 256 rows in passes of 192 and 64 runs the wide
// forms in both; a batch of 128 rows still runs the small ones; the split batch's gradients equal
// those of the same batch in one pass within rounding. Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { randomWeights, tinyConfig } from '../helpers/reference-bwd-fd';
import { GpuModel } from '../../../src/model/gpu/model';
import type { TensorMap } from '../../../src/model/types';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { GpuFullParams } from '../../../src/train/full-params';
import { TrainStep } from '../../../src/train/train-step';
import { PS_MIN_ROWS } from '../../../src/gpu/kernels/attention-backward';
import { SIXTEEN_MIN_ROWS } from '../../../src/gpu/kernels/attention';

/** A tiny random one-layer model (f32, untuned) with four query heads of HS on two kv heads, and full-mode steps of at most maxRows rows per pass. */
async function setup(HS: number, seed: number) {
  const rt = await nodeRuntime();
  const cfg = tinyConfig({ vocabSize: 32, hiddenSize: 4 * HS, intermediateSize: 64, numLayers: 1, numHeads: 4, numKvHeads: 2, headDim: HS, maxPositions: 64 });
  const weights: TensorMap = randomWeights(cfg, seed);
  const model = await GpuModel.load(rt, cfg, { has: (n) => weights.has(n), read: async (n) => weights.get(n)! }, { quant: 'none', quantEmbeddings: false, tune: false });
  const newStep = async (maxRows: number) => {
    const params = GpuFullParams.create(rt, model);
    return { params, step: await TrainStep.create(rt, model, { mode: 'full', params }, { maxRows }) };
  };
  return { cfg, model, newStep };
}

const seqsOf = (n: number, T: number, V: number) => Array.from({ length: n }, (_, b) => Array.from({ length: T }, (_, t) => (3 + 7 * b + 5 * t + t * t) % V));

describe('TrainStep: every pass of a batch runs the attention form its whole batch picks', () => {
  it('heads of 16: a 256-row batch in passes of 192 + 64 keeps P/dS in both; a 128-row batch recomputes; gradients as one pass', async () => {
    expect(PS_MIN_ROWS).toBe(256);
    const { cfg, newStep } = await setup(16, 9);
    const seqs = seqsOf(4, 64, cfg.vocabSize);
    const dlogp = seqs.map((s, b) => Float32Array.from(randomArray(s.length - 1, 70 + b), (x) => 0.3 * x));
    const grads = async (maxRows: number) => {
      const { params, step } = await newStep(maxRows);
      await step.run({ seqs, dlogp });
      return { step, g: await params.gradsToHost() };
    };
    const split = await grads(192);
    expect(split.step.attentionBackwardForm, 'the 64-row last pass of a 256-row batch').toBe('kept');
    const whole = await grads(256);
    expect(whole.step.attentionBackwardForm).toBe('kept');
    let d = 0, mag = 0;
    for (const [name, t] of whole.g) {
      d = Math.max(d, maxAbsDiff(split.g.get(name)!.data, t.data));
      mag = Math.max(mag, ...t.data.map(Math.abs));
    }
    console.log(`heads of 16, passes 192 + 64 vs one of 256: grads maxdiff=${d.toExponential(2)} (max |grad| ${mag.toExponential(2)})`);
    expect(mag).toBeGreaterThan(1e-3);
    expect(d).toBeLessThan(1e-5 * Math.max(1, mag));
    // A batch under the threshold runs the recomputing kernels, as before.
    await split.step.run({ seqs: seqs.slice(0, 2), dlogp: dlogp.slice(0, 2) });
    expect(split.step.attentionBackwardForm).toBe('recomputed');
  }, 120_000);

  it('heads of 8: a 256-row log-prob batch in passes of 192 + 64 runs sixteen positions per invocation in both', async () => {
    expect(SIXTEEN_MIN_ROWS).toBe(256);
    const { cfg, model, newStep } = await setup(8, 10);
    const { step } = await newStep(192);
    const seqs = seqsOf(4, 64, cfg.vocabSize);
    const split = await step.run({ seqs, dlogp: null });
    expect(step.attentionTrainPositions, 'the 64-row last pass of a 256-row batch').toBe(16);
    const ref = await model.logprobs(seqs);
    const d = Math.max(...seqs.map((_, b) => maxAbsDiff(split.logprobs[b], ref.logprobs[b])));
    console.log(`heads of 8, passes 192 + 64: log-probs vs GpuModel.logprobs maxdiff=${d.toExponential(2)}`);
    expect(d).toBe(0);
    await step.run({ seqs: seqs.slice(0, 2), dlogp: null });
    expect(step.attentionTrainPositions).toBe(4);
  }, 120_000);
});
