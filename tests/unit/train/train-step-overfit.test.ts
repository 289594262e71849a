// End-to-end learning on the GPU through Trainer.sftStep: a tiny random model in full mode
// memorises three sequences (loss below 0.01), and stories260K with a fresh LoRA adapter (PEFT
// init, r 8 on all seven projections) lowers its masked loss on a few sentences within 12 steps,
// while switching the adapter off gives back the base model's log-probs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import type { TensorMap } from '../../../src/model/types';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { Trainer } from '../../../src/train/trainer';
import { randomWeights, tinyConfig } from '../helpers/reference-bwd-fd';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

describe('overfit on the GPU', () => {
  it('full mode: a tiny random model memorises three sequences (loss < 0.01 within 80 steps)', async () => {
    const rt = await nodeRuntime();
    const cfg = tinyConfig({ vocabSize: 16, hiddenSize: 16, intermediateSize: 32, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 8 });
    const w: TensorMap = randomWeights(cfg, 11);
    const model = await GpuModel.load(rt, cfg, { has: (n) => w.has(n), read: async (n) => w.get(n)! }, { quant: 'none', quantEmbeddings: false, tune: false });
    const trainer = await Trainer.create(rt, model, {
      params: { mode: 'full' },
      optimizer: { schedule: { kind: 'cosine', lr: 3e-2, warmupSteps: 5, totalSteps: 200, minRatio: 0.1 }, weightDecay: 0, maxGradNorm: 1.0 },
    });
    // distinct first tokens: every next token is determined by its prefix, so the loss can reach 0
    const seqs = [[1, 4, 9, 3, 3, 12, 7, 0], [2, 4, 2, 15, 8, 8, 5, 0], [3, 11, 6, 10, 13, 2, 14, 0]];
    const examples = seqs.map((ids) => ({ ids, mask: ids.slice(1).map(() => 1) }));
    const t0 = performance.now();
    let first = 0, loss = Infinity, steps = 0, norm = 0;
    for (; steps < 80; steps++) {
      const st = await trainer.sftStep(examples);
      if (steps === 0) first = st.loss;
      loss = st.loss;
      norm = st.gradNorm;
      if (loss < 0.01) break;
    }
    console.log(`gpu overfit (full mode): loss ${first.toFixed(3)} -> ${loss.toFixed(4)} after ${steps} updates (last grad_norm ${norm.toFixed(3)}), ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    expect(loss).toBeLessThan(0.01);
    // the model's inference path reads the trained weights in place
    const lp = await model.logprobs(seqs);
    const meanNll = -lp.logprobs.reduce((s, x) => s + x.reduce((a, b) => a + b, 0), 0) / examples.reduce((n, e) => n + e.mask.length, 0);
    console.log(`GpuModel.logprobs after training: mean NLL ${meanNll.toFixed(4)}`);
    expect(meanNll).toBeLessThan(0.02);
    await trainer.dispose();
    model.dispose();
  });

  it.skipIf(!existsSync(join(STORIES_DIR, 'stories260K.bin')))('stories260K + fresh LoRA r=8: masked loss drops within 12 steps; adapter off = base model', async () => {
    const rt = await nodeRuntime();
    const loaded = await loadModelFiles(await openNodeModelSource(join(STORIES_DIR, 'stories260K.bin')));
    const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) },
      { quant: 'none', quantEmbeddings: false, tune: false });
    const base = await model.logprobs([[1, 2, 3]]); // before any adapter
    const sentences = ['Lily saw a big red ball in the park.', 'Tom wanted to fly his blue kite with his dad.', 'The cat sat on the warm mat and fell asleep.'];
    const examples = sentences.map((s) => {
      const ids = loaded.tokenizer.encode(s);
      return { ids, mask: ids.slice(1).map((_, t) => (t < 2 ? 0 : 1)) }; // the first two targets act as a prompt
    });
    const trainer = await Trainer.create(rt, model, {
      params: { mode: 'lora', config: { rank: 8, alpha: 16, useRslora: false, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] }, seed: 1 },
      optimizer: { schedule: { kind: 'constant', lr: 1e-2 }, maxGradNorm: 1.0 },
    });
    const t0 = performance.now();
    const losses: number[] = [];
    for (let s = 0; s < 12; s++) losses.push((await trainer.sftStep(examples)).loss);
    const secs = (performance.now() - t0) / 1000;
    const tokens = examples.reduce((n, e) => n + e.ids.length, 0);
    console.log(`stories260K LoRA r=8 (${trainer.trainable.params.numParams} params), ${examples.length} sentences / ${tokens} tokens: loss ${losses.map((l) => l.toFixed(3)).join(' ')}; ` +
      `${secs.toFixed(1)} s for 12 updates (${((12 * tokens) / secs).toFixed(0)} tokens/s)`);
    expect(losses[0]).toBeGreaterThan(1);
    expect(losses[11]).toBeLessThan(0.5 * losses[0]);
    // the reference policy: adapter off gives the base model's log-probs exactly
    const off = await trainer.logprobs([[1, 2, 3]], false);
    const d = maxAbsDiff(off.logprobs[0], base.logprobs[0]);
    console.log(`adapter off vs the model before training: maxdiff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-6);
    await trainer.dispose();
    model.dispose();
  });
});
