// RL from an SFT adapter (model.adapter / `train --adapter`) on stories260K: `sft` 2 LoRA steps
// (the CLI command, in process) -> one GRPO step (beta 0.1, k3) starting from that adapter. The
// trainable adapter equals the SFT files bit for bit; the first step's sampled log-probs must be
// the SFT policy's (a log-prob pass before the update), not the bare base's; the KL against the frozen SFT reference starts at 0;
// after the update the reference still gives the SFT log-probs while the policy has moved. Also
// the lora section taken from adapter_config.json, and the error when the config disagrees.
// Run: npx vitest run tests/unit/rl-start-adapter.test.ts
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseArgs } from '../../../src/util/args';
import { command as sftCommand } from '../../../src/cli/commands/sft';
import { readConfig } from '../../../src/cli/commands/train';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { resolveConfig } from '../../../src/rl/config-validate';
import type { RlHooks } from '../../../src/rl/hooks';
import { nodeRecorder, openRun } from '../../../src/run/rl-node-run';
import type { RolloutRecord } from '../../../src/rl/rollout-log';
import { runTraining } from '../../../src/run/rl-run';
import { configFromAdapter } from '../../../src/rl/start-adapter';
import type { Trainer } from '../../../src/train/trainer';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const MODEL = join(STORIES_DIR, 'stories260K.bin');

/** Runs a CLI command in process with its output muted. */
async function quiet(fn: () => Promise<number>): Promise<number> {
  const o = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return await fn();
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/** Largest |a - b| over the trained positions of each episode (rollout log-probs are per token, [T]; trainer rows [T-1]). */
function maxdiff(eps: RolloutRecord[], lps: Float32Array[]): number {
  let d = 0;
  eps.forEach((e, s) => e.mask.forEach((m, t) => { if (m === 1) d = Math.max(d, Math.abs((e.logprobs[t] as number) - lps[s][t - 1])); }));
  return d;
}

describe('RL from an SFT adapter', () => {
  it.skipIf(!existsSync(MODEL))('starts from the SFT policy, with the SFT adapter as the KL reference', async () => {
    const t0 = performance.now();
    const dir = mkdtempSync(join(tmpdir(), 'rl-start-adapter-'));
    const data = join(dir, 'stories.jsonl'), sftOut = join(dir, 'sft'), out = join(dir, 'rl');
    writeFileSync(data, ['Lily saw a big red ball in the park.', 'Tom wanted to play with the girl.', 'The boy had a big dog.', 'Sue found a little bird.'].map((text) => JSON.stringify({ text })).join('\n') + '\n');
    expect(await quiet(() => sftCommand.run(parseArgs(['--model', MODEL, '--data', data, '--out', sftOut, '--steps', '2', '--rank', '4', '--alpha', '8',
      '--lr', '3e-2', '--batch-size', '4', '--schedule', 'constant', '--seed', '1', '--tune', 'false'])))).toBe(0);
    const adapterDir = join(sftOut, 'adapter');
    const tSft = performance.now();

    // `train --adapter DIR` sets model.adapter.
    writeFileSync(join(dir, 'c.yaml'), `model: {path: ${JSON.stringify(MODEL)}, quant: none, template: plain}\ndata: {env: story}\n`);
    expect(readConfig(parseArgs(['--config', join(dir, 'c.yaml'), '--adapter', adapterDir])).model.adapter).toBe(adapterDir);

    const cfg = resolveConfig({
      model: { path: MODEL, quant: 'none', template: 'plain', adapter: adapterDir },
      data: { env: 'story', story_words: ['girl', 'big'] },
      env: { system_prompt: 'Write a story about {word}.' },
      rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 40, max_new_tokens: 6, prefill: ' Once upon a time' },
      grpo: { micro_batch_size: 4, beta: 0.1, kl_estimator: 'k3', entropy_coef: 0.05 },   // the entropy bonus: an update even when rewards tie
      optim: { lr: 0.01 },
      train: { steps: 1, seed: 2, recompute: false },
      log: { out_dir: out, checkpoint_every: 0, print_examples: 0 },
    }, 'rl-start-adapter.test');
    const logs: string[] = [];
    // Before step 1's update (on_rollout_end): the log-probs of the sampled episodes under the
    // trainer's adapter as loaded from the SFT files, and under the bare base (adapter off).
    let trainer: Trainer | null = null, sftLp: Float32Array[] = [], baseLp: Float32Array[] = [];
    const hooks: RlHooks = {
      async on_rollout_end(info) {
        const seqs = info.episodes.map((e) => e.tokens);
        sftLp = (await trainer!.logprobs(seqs, true, 1)).logprobs;
        baseLp = (await trainer!.logprobs(seqs, false, 1)).logprobs;
      },
    };
    const run = await openRun(cfg, { log: (s) => logs.push(s), tune: false, hooks });
    const tOpen = performance.now();
    let eps: RolloutRecord[], refAfter: Float32Array[], policyAfter: Float32Array[], kl: number;
    try {
      trainer = run.ctx.trainer;
      const sft = await readPeftAdapter(new NodeDirSource(adapterDir), run.model.loaded.config);
      expect(() => configFromAdapter({ ...cfg, lora: { ...cfg.lora, rank: 8 } }, sft.config, adapterDir))
        .toThrow(`lora.rank is 8 but the starting adapter ${adapterDir}/adapter_config.json has r 4; the adapter decides the LoRA shape: remove lora.rank`);
      expect(run.ctx.cfg.lora).toMatchObject({ rank: 4, alpha: 8, rslora: false });
      expect(run.ctx.reference?.kind).toBe('frozen');
      const start = await trainer.exportLora();   // the trainable adapter is the SFT files' one, bit for bit
      expect(start.config).toEqual(sft.config);
      for (const [k, p] of sft.pairs) {
        expect(start.pairs.get(k)!.A).toEqual(p.A);
        expect(start.pairs.get(k)!.B).toEqual(p.B);
      }
      const r = await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: nodeRecorder(out), baseModelName: 'stories260K' });
      kl = r.history[0].kl;
      console.log(`timings: sft ${((tSft - t0) / 1000).toFixed(1)} s, openRun ${((tOpen - tSft) / 1000).toFixed(1)} s, GRPO step ${((performance.now() - tOpen) / 1000).toFixed(1)} s`);
      expect(r.history[0].grad_norm).toBeGreaterThan(0);
      eps = readFileSync(join(out, 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RolloutRecord);
      const seqs = eps.map((e) => e.tokens);
      refAfter = await run.ctx.reference!.logprobs(seqs, 1);
      policyAfter = (await run.ctx.trainer.logprobs(seqs, true, 1)).logprobs;
      expect((await run.ctx.trainer.logprobs(seqs, true, 1)).logprobs).toEqual(policyAfter);   // the swap put the policy back
    } finally {
      await run.close();
    }

    const dSft = maxdiff(eps, sftLp), dBase = maxdiff(eps, baseLp), dRef = maxdiff(eps, refAfter), dPolicy = maxdiff(eps, policyAfter);
    console.log(`start from SFT adapter: step-1 sampled log-probs vs SFT adapter maxdiff ${dSft.toExponential(2)}, vs bare base ${dBase.toExponential(2)}; `
      + `kl (step 1) ${kl.toExponential(2)}; after the update: reference vs SFT ${dRef.toExponential(2)}, policy vs SFT ${dPolicy.toExponential(2)}; `
      + `${logs.find((l) => l.startsWith('KL reference'))?.trim()}; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    expect(dSft).toBeLessThan(1e-4);
    expect(dBase).toBeGreaterThan(1e-2);
    expect(Math.abs(kl)).toBeLessThan(1e-6);
    expect(dRef).toBeLessThan(1e-4);
    expect(dPolicy).toBeGreaterThan(1e-3);
    expect(JSON.parse(readFileSync(join(out, 'adapter', 'adapter_config.json'), 'utf8'))).toMatchObject({ r: 4, lora_alpha: 8 });
  }, 300_000);
});
