// Real runs on stories260K (story env, B = 2, G = 2, LoRA r 2) of options that had unit coverage
// only: RLOO with beta 0.05 and the k3 estimator through runTraining (2 steps: kl is 0 while the
// fresh adapter is the base, > 0 after an update; leave-one-out advantages in rollouts.jsonl; the
// adapter written), mu = 2 (old log-probs recomputed once and reused: the first iteration's
// ratio is 1, the second's is not), and the reward-weighted trainer end to end (metrics rows,
// per-episode weights in rollouts.jsonl, the adapter written and trained). Resume == continuous
// is tests/unit/rl-resume.test.ts. Run: npx vitest run tests/unit/rl-options.test.ts
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { resolveConfig, type RlConfig } from '../../../src/rl/config-validate';
import { grpoStep } from '../../../src/rl/grpo-trainer';
import { customReward } from '../../../src/rl/hooks';
import { nodeRecorder, openRun, type OpenRun } from '../../../src/run/rl-node-run';
import type { RolloutRecord } from '../../../src/rl/rollout-log';
import { runTraining } from '../../../src/run/rl-run';
import type { TrainBatch } from '../../../src/train/train-step';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const MODEL = join(STORIES_DIR, 'stories260K.bin');
const dir = mkdtempSync(join(tmpdir(), 'rl-options-'));
let cfg: RlConfig;
let run: OpenRun;

const rows = (out: string, file: string) => readFileSync(join(out, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
async function maxAbsB(out: string): Promise<number> {
  const a = await readPeftAdapter(new NodeDirSource(join(out, 'adapter')), run.model.model.cfg);
  let m = 0;
  for (const p of a.pairs.values()) for (const v of p.B) m = Math.max(m, Math.abs(v));
  return m;
}

beforeAll(async () => {
  if (!existsSync(MODEL)) return;
  cfg = resolveConfig({
    model: { path: MODEL, quant: 'none', template: 'plain' },
    data: { env: 'story', story_words: ['girl', 'big'] },
    env: { system_prompt: 'Write a story about {word}.' },
    rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 40, max_new_tokens: 6, prefill: ' Once upon a time' },
    grpo: { micro_batch_size: 4, advantage: 'rloo', beta: 0.05, kl_estimator: 'k3' },
    optim: { lr: 0.005 },
    lora: { rank: 2, alpha: 4 },
    rejection: { threshold: 0 },
    train: { steps: 2, seed: 4, recompute: false },
    log: { out_dir: join(dir, 'rloo'), checkpoint_every: 0, print_examples: 0 },
  }, 'rl-options.test');
  // exp(mean sampling log-prob of the generated tokens): continuous and positive, so groups have
  // variance and reward-weighted fine-tuning gets non-zero weights.
  const hooks = customReward('likelihood', 1, (e) => {
    const lps = e.logprobs.filter((_, i) => e.mask[i] === 1);
    return Math.exp(lps.reduce((a, v) => a + v, 0) / Math.max(1, lps.length));
  });
  run = await openRun(cfg, { log: () => undefined, tune: false, hooks });
}, 120_000);

afterAll(async () => {
  await run?.close();
});

describe.skipIf(!existsSync(MODEL))('RL options in real runs', () => {
  it('RLOO with beta 0.05 (k3): 2 steps, kl 0 then > 0, leave-one-out advantages, adapter written', async () => {
    const out = cfg.log.out_dir;
    const r = await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: nodeRecorder(out), baseModelName: 'stories260K' });
    const metrics = rows(out, 'metrics.jsonl') as Record<string, number>[];
    const eps = rows(out, 'rollouts.jsonl') as unknown as RolloutRecord[];
    console.log(`rloo + k3: kl ${metrics.map((m) => m.kl.toExponential(3)).join(', ')}; loss ${metrics.map((m) => m.loss.toExponential(3)).join(', ')}; advantages ${JSON.stringify(eps.map((e) => Number(e.advantage?.toFixed(4))))}`);
    expect(r.history).toHaveLength(2);
    expect(metrics.map((m) => m.step)).toEqual([1, 2]);
    expect(metrics[0].kl).toBe(0);   // the fresh adapter (B = 0) is the base = the reference
    expect(metrics[1].kl).toBeGreaterThan(0);
    for (const m of metrics) expect(m.grad_norm).toBeGreaterThan(0);
    for (let i = 0; i < eps.length; i += 2) {   // G = 2: A_i = r_i - r_other
      const [a, b] = [eps[i], eps[i + 1]];
      expect(a.advantage).toBeCloseTo(a.reward.total - b.reward.total, 5);
      expect(b.advantage).toBeCloseTo(-(a.advantage as number), 6);
    }
    expect(await maxAbsB(out)).toBeGreaterThan(0);
  }, 240_000);

  it('mu = 2: old log-probs recomputed once and reused; iteration 2 ratio != 1', async () => {
    const trainer = run.ctx.trainer;
    const passes: { train: boolean; logprobs: Float32Array[] }[] = [];
    let probeReadbacks = 0;
    const origRun = trainer.step.run.bind(trainer.step);
    trainer.step.run = async (b: TrainBatch) => {
      const train = b.dlogp !== null && b.dlogp !== undefined;
      // Training passes and the old / reference passes keep their log-probs on the GPU (the GRPO
      // loss reads them there): the probe scores the same sequences with the same policy in a
      // read-back log-prob pass just before.
      const r0 = run.ctx.rt.readbackCount;
      const seen = train || b.logprobsTo ? (await origRun({ seqs: b.seqs, dlogp: null, adapter: b.adapter, temperature: b.temperature })).logprobs : null;
      probeReadbacks += run.ctx.rt.readbackCount - r0;
      const res = await origRun(b);
      passes.push({ train, logprobs: seen ?? res.logprobs });
      return res;
    };
    let step: Awaited<ReturnType<typeof grpoStep>>;
    try {
      step = await grpoStep({ ...run.ctx, cfg: { ...cfg, grpo: { ...cfg.grpo, num_iterations: 2, epsilon_low: 0.01, epsilon_high: 0.01 } } }, run.tasks, 11);
    } finally {
      trainer.step.run = origRun;
    }
    // Passes: old log-probs (adapter on, no gradient), reference (beta > 0), iteration 1, iteration 2.
    expect(passes.map((p) => p.train)).toEqual([false, false, true, true]);
    const [old, , it1, it2] = passes;
    let d1 = 0, d2 = 0;
    old.logprobs.forEach((lp, s) => lp.forEach((v, t) => { d1 = Math.max(d1, Math.abs(it1.logprobs[s][t] - v)); d2 = Math.max(d2, Math.abs(it2.logprobs[s][t] - v)); }));
    // The clip metric recounted on the CPU from iteration 2's ratios (iteration 1 clips nothing: ratio 1).
    let region = 0, tokens = 0;
    const kept = [...step.advantages.keys()].filter((i) => step.advantages[i] !== null);
    kept.forEach((i, s) => {
      const e = step.rollout.episodes[i], a = step.advantages[i] as number;
      it2.logprobs[s].forEach((v, t) => {
        if (!e.mask[t + 1]) return;
        tokens++;
        const r = Math.exp(v - old.logprobs[s][t]);
        if ((r > 1.01 && a > 0) || (r < 0.99 && a < 0)) region++;
      });
    });
    console.log(`mu = 2: max |log ratio| iteration 1 ${d1.toExponential(2)}, iteration 2 ${d2.toExponential(2)}; clip_ratio/region_mean ${step.metrics['clip_ratio/region_mean'].toFixed(4)} `
      + `(CPU recount: ${region} of ${tokens} tokens in iteration 2, advantages ${JSON.stringify(step.advantages.map((a) => a === null ? null : Number(a.toFixed(4))))})`);
    expect(step.updated).toBe(true);
    // One readback in the update besides the probe's: the old and reference log-probs never came to the host.
    expect(step.metrics['perf/train_readbacks'] - probeReadbacks).toBe(1);
    expect(d1).toBeLessThan(1e-6);
    expect(d2).toBeGreaterThan(1e-3);
    expect(step.metrics['clip_ratio/region_mean']).toBeCloseTo(region / tokens / 2, 6);   // averaged over the 2 iterations
  }, 120_000);

  it('reward-weighted trainer end to end: metrics rows, episode weights, adapter trained and written', async () => {
    const out = join(dir, 'rw');
    const before = await run.ctx.trainer.exportLora();
    const rwCfg: RlConfig = { ...cfg, trainer: 'reward_weighted', train: { ...cfg.train, steps: 1 }, log: { ...cfg.log, out_dir: out } };
    const r = await runTraining({ ctx: { ...run.ctx, cfg: rwCfg }, tasks: run.tasks, emit: nodeRecorder(out), baseModelName: 'stories260K' });
    const metrics = rows(out, 'metrics.jsonl') as Record<string, number>[];
    const eps = rows(out, 'rollouts.jsonl') as unknown as RolloutRecord[];
    const w = eps.map((e) => e.advantage as number);
    console.log(`reward_weighted: loss ${metrics[0].loss.toFixed(4)} grad_norm ${metrics[0].grad_norm.toFixed(4)}; weights ${JSON.stringify(w.map((x) => Number(x.toFixed(4))))}`);
    expect(r.history).toHaveLength(1);
    expect(metrics.map((m) => m.step)).toEqual([1]);
    expect(metrics[0].loss).toBeGreaterThan(0);
    expect(metrics[0].grad_norm).toBeGreaterThan(0);
    const best = Math.max(...eps.map((e) => e.reward.total));
    eps.forEach((e, i) => expect(w[i]).toBeCloseTo(e.reward.total / best, 6));   // reward / best reward
    expect(Math.max(...w)).toBeCloseTo(1, 12);
    expect(Math.min(...w)).toBeLessThan(1);
    const after = await readPeftAdapter(new NodeDirSource(join(out, 'adapter')), run.model.model.cfg);
    let moved = 0;
    for (const [k, p] of before.pairs) p.B.forEach((v, i) => { moved = Math.max(moved, Math.abs(after.pairs.get(k)!.B[i] - v)); });
    expect(moved).toBeGreaterThan(0);
  }, 120_000);
});
