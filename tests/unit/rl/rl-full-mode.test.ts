// Full-mode GRPO (lora.mode full: every weight trained) on stories260K with beta 0.1 (k3): the KL
// reference is a frozen copy of the starting weights, so kl is 0 at step 1 and > 0 after an
// update (it used to be the policy itself: 0 forever); after the run the reference still gives
// the base model's log-probs (measured on fixed sequences before training); the run exports the
// trained model as a Hugging Face folder (OUT/model) that the model loader reads back with every
// tensor equal to the trained weights.
// Run: npx vitest run tests/unit/rl-full-mode.test.ts
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelFiles } from '../../../src/model/io/loader';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { resolveConfig } from '../../../src/rl/config-validate';
import { customReward } from '../../../src/rl/hooks';
import { nodeRecorder, openRun } from '../../../src/run/rl-node-run';
import { fanOut } from '../../../src/run/events';
import { printRun } from '../../../src/run/printer';
import { runTraining } from '../../../src/run/rl-run';
import type { TensorMap } from '../../../src/model/types';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { compareTensors } from '../helpers/tensor-compare';

const MODEL = join(STORIES_DIR, 'stories260K.bin');

function maxdiff(a: Float32Array[], b: Float32Array[]): number {
  let d = 0;
  a.forEach((x, s) => x.forEach((v, t) => { d = Math.max(d, Math.abs(v - b[s][t])); }));
  return d;
}

describe('full-mode GRPO', () => {
  it.skipIf(!existsSync(MODEL))('keeps a frozen reference (kl > 0 after an update) and exports the trained model', async () => {
    const t0 = performance.now();
    const out = join(mkdtempSync(join(tmpdir(), 'rl-full-')), 'run');
    const cfg = resolveConfig({
      model: { path: MODEL, quant: 'none', template: 'plain' },
      data: { env: 'story', story_words: ['girl', 'big'] },
      env: { system_prompt: 'Write a story about {word}.' },
      rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 40, max_new_tokens: 6, prefill: ' Once upon a time' },
      grpo: { micro_batch_size: 4, beta: 0.1, kl_estimator: 'k3' },
      optim: { lr: 3e-3 },
      lora: { mode: 'full' },
      train: { steps: 2, seed: 5, recompute: false },
      log: { out_dir: out, checkpoint_every: 0, print_examples: 0 },
    }, 'rl-full-mode.test');
    // Mean sampling log-prob of the generated tokens: a continuous reward, so groups have variance.
    const hooks = customReward('mean_logprob', 1, (e) => {
      const lps = e.logprobs.filter((_, i) => e.mask[i] === 1);
      return lps.reduce((a, v) => a + v, 0) / Math.max(1, lps.length);
    });
    const logs: string[] = [];
    const run = await openRun(cfg, { log: (s) => logs.push(s), tune: false, hooks });
    let history: Record<string, number>[], base: Float32Array[], policy: Float32Array[], ref: Float32Array[], trained: TensorMap;
    try {
      expect(run.ctx.trainer.trainable.mode).toBe('full');
      expect(run.ctx.reference?.kind).toBe('frozen');
      const tok = run.model.loaded.tokenizer;
      const seqs = ['Once upon a time, there was a girl.', 'The big dog liked to play in the park.'].map((t) => tok.encode(t));
      base = (await run.ctx.trainer.logprobs(seqs, true, 1)).logprobs;   // before training: the base weights
      history = (await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: fanOut(nodeRecorder(out), printRun({ out: () => undefined, log: (s) => logs.push(s), where: (p) => join(out, p) })), baseModelName: 'stories260K' })).history;
      policy = (await run.ctx.trainer.logprobs(seqs, true, 1)).logprobs;
      ref = await run.ctx.reference!.logprobs(seqs, 1);
      expect((await run.ctx.trainer.logprobs(seqs, true, 1)).logprobs).toEqual(policy);   // the swap put the weights back
      trained = await run.ctx.trainer.exportFull();
    } finally {
      await run.close();
    }
    expect(logs.join('\n')).toContain(`export: ${join(out, 'model')} (`);
    for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) expect(existsSync(join(out, 'model', f)), f).toBe(true);
    expect(existsSync(join(out, 'adapter'))).toBe(false);
    const loaded = await loadModelFiles(new NodeDirSource(join(out, 'model')));
    const exported = compareTensors(trained, await loaded.weights.readAll(), 'exported model');
    const dRef = maxdiff(ref, base), dMoved = maxdiff(policy, base);
    console.log(`full mode: kl per step ${history.map((r) => r.kl.toExponential(3)).join(', ')}; grad_norm ${history.map((r) => r.grad_norm.toFixed(4)).join(', ')}; `
      + `exported model vs trained weights maxdiff ${exported.maxdiff} (${trained.size} tensors); reference vs base log-probs ${dRef.toExponential(2)}; policy vs base ${dMoved.toExponential(2)}; `
      + `${logs.find((l) => l.startsWith('KL reference'))?.trim()}; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    expect(history[0].kl).toBe(0);
    expect(history[0].grad_norm).toBeGreaterThan(0);
    expect(history[1].kl).toBeGreaterThan(1e-7);
    expect(dMoved).toBeGreaterThan(1e-3);
    expect(exported.identical).toBe(true);
    expect(loaded.config).toMatchObject({ numLayers: run.model.model.cfg.numLayers, hiddenSize: run.model.model.cfg.hiddenSize });
    expect(dRef).toBe(0);
  }, 300_000);
});
