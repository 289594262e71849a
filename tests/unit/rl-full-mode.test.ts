// Full-mode GRPO (lora.mode full: every weight trained) on stories260K with beta 0.1 (k3): the KL
// reference is a frozen copy of the starting weights, so kl is 0 at step 1 and > 0 after an
// update (it used to be the policy itself: 0 forever); after the run the reference still gives
// the base model's log-probs; the run exports the trained model as a Hugging Face folder
// (OUT/model) whose log-probs, loaded back, equal the trained policy's.
// Run: npx vitest run tests/unit/rl-full-mode.test.ts
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/rl/config';
import { customReward } from '../../src/rl/hooks';
import { loadRunModel, nodeSink, openRun } from '../../src/rl/node-run';
import type { RolloutRecord } from '../../src/rl/rollout-log';
import { runTraining } from '../../src/rl/run';
import { Trainer } from '../../src/train/trainer';
import { STORIES_DIR } from '../fixtures/io/stories260k';

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
    let history: Record<string, number>[], seqs: number[][], policy: Float32Array[], ref: Float32Array[];
    try {
      expect(run.ctx.trainer.trainable.mode).toBe('full');
      expect(run.ctx.reference?.kind).toBe('frozen');
      history = (await runTraining({ ctx: run.ctx, tasks: run.tasks, sink: nodeSink(out, (s) => logs.push(s)), baseModelName: 'stories260K' })).history;
      seqs = readFileSync(join(out, 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as RolloutRecord).tokens);
      policy = (await run.ctx.trainer.logprobs(seqs, true, 1)).logprobs;
      ref = await run.ctx.reference!.logprobs(seqs, 1);
      expect((await run.ctx.trainer.logprobs(seqs, true, 1)).logprobs).toEqual(policy);   // the swap put the weights back
    } finally {
      await run.close();
    }
    expect(logs.join('')).toContain(`model written to ${join(out, 'model')}`);
    for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) expect(existsSync(join(out, 'model', f)), f).toBe(true);
    expect(existsSync(join(out, 'adapter'))).toBe(false);

    const load = async (path: string) => {
      const m = await loadRunModel({ ...cfg, model: { ...cfg.model, path } }, () => undefined, undefined, { tune: false });
      const t = await Trainer.create(m.rt, m.model, { params: { mode: 'full' }, optimizer: { schedule: { kind: 'constant', lr: 1e-3, warmupSteps: 0 } } });
      const lp = (await t.logprobs(seqs, true, 1)).logprobs;
      await t.dispose();
      m.model.dispose();
      return lp;
    };
    const exported = await load(join(out, 'model')), base = await load(MODEL);
    const dExport = maxdiff(exported, policy), dRef = maxdiff(ref, base), dMoved = maxdiff(policy, base);
    console.log(`full mode: kl per step ${history.map((r) => r.kl.toExponential(3)).join(', ')}; grad_norm ${history.map((r) => r.grad_norm.toFixed(4)).join(', ')}; `
      + `exported model vs trained policy log-prob maxdiff ${dExport.toExponential(2)}; reference vs base ${dRef.toExponential(2)}; policy vs base ${dMoved.toExponential(2)}; `
      + `${logs.find((l) => l.startsWith('KL reference'))?.trim()}; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    expect(history[0].kl).toBe(0);
    expect(history[0].grad_norm).toBeGreaterThan(0);
    expect(history[1].kl).toBeGreaterThan(1e-7);
    expect(dMoved).toBeGreaterThan(1e-3);
    expect(dExport).toBeLessThan(1e-5);
    expect(dRef).toBeLessThan(1e-5);
  }, 300_000);
});
