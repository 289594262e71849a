// trainer: ppo through the Node run (openRun + runTraining) on stories260K, story env: 2 steps write
// metrics rows with value_loss / values/mean / advantages/mean, checkpoints holding the value
// head (value_head.weight / bias and their AdamW moments) and adapter/value_head.safetensors; a run
// crashed inside step 2 and resumed equals the 2 steps in one go (adapter, head and moments bit
// for bit, metrics). Run: npx vitest run tests/unit/rl/ppo-run.test.ts
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMetricName } from '../../../src/metrics/names';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { readSafetensorsHeader } from '../../../src/model/io/safetensors';
import { resolveConfig, type RlConfig } from '../../../src/rl/config-validate';
import { nodeRecorder, openRun } from '../../../src/run/rl-node-run';
import { runTraining } from '../../../src/run/rl-run';
import { loadTrainState, type TrainState } from '../../../src/train/checkpoint';
import { VALUE_HEAD_BIAS, VALUE_HEAD_FILE, VALUE_HEAD_WEIGHT } from '../../../src/train/value-head-params';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { compareTensors } from '../helpers/tensor-compare';

const MODEL = join(STORIES_DIR, 'stories260K.bin');

function config(out: string): RlConfig {
  return resolveConfig({
    trainer: 'ppo',
    model: { path: MODEL, quant: 'none', template: 'plain' },
    data: { env: 'story', story_words: ['girl', 'big', 'play', 'boy'] },
    env: { system_prompt: 'Write a story about {word}.' },
    rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 40, max_new_tokens: 6, prefill: ' Once upon a time' },
    grpo: { micro_batch_size: 3 },
    ppo: { vf_coef: 0.5, lambda: 0.9 },
    optim: { lr: 0.01 },
    lora: { rank: 2, alpha: 4 },
    train: { steps: 2, seed: 5, recompute: false },
    log: { out_dir: out, checkpoint_every: 1, print_examples: 0 },
  }, 'ppo-run.test');
}

async function train(cfg: RlConfig, opts: { resume?: boolean; crashAt?: number }): Promise<void> {
  const out = cfg.log.out_dir;
  const run = await openRun(cfg, {
    log: () => undefined, tune: false, resume: opts.resume ? out : undefined,
    hooks: { on_step_end: (i) => { if (i.step === opts.crashAt) throw new Error(`crash at step ${i.step}`); } },
  });
  try {
    await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: nodeRecorder(out), baseModelName: 'stories260K', start: run.start });
  } finally {
    await run.close();
  }
}

const rows = (out: string) => readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
const stable = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'step_time' && !k.startsWith('perf/') && !k.startsWith('gpu/')));

describe('trainer: ppo', () => {
  it.skipIf(!existsSync(MODEL))('2 steps log the value metrics, checkpoint the value head and resume exactly', async () => {
    const t0 = performance.now();
    const dir = mkdtempSync(join(tmpdir(), 'ppo-run-'));
    const oneGo = config(join(dir, 'one-go')), crashed = config(join(dir, 'crashed'));
    await train(oneGo, {});
    const a = rows(oneGo.log.out_dir);
    for (const r of a) {
      console.log(`step ${r.step}: reward ${r.reward.toFixed(3)} loss ${r.loss.toFixed(5)} policy ${r.policy_loss.toFixed(5)} value_loss ${r.value_loss.toFixed(5)} values/mean ${r['values/mean'].toFixed(4)} advantages/mean ${r['advantages/mean'].toExponential(2)} returns/mean ${r['returns/mean'].toFixed(4)} ev ${r.explained_variance.toFixed(3)} vf_clipfrac ${r.vf_clipfrac.toFixed(3)} grad ${r.grad_norm.toFixed(4)}`);
      for (const k of ['value_loss', 'values/mean', 'advantages/mean', 'returns/mean', 'vf_clipfrac', 'explained_variance']) {
        expect(Number.isFinite(r[k]), k).toBe(true);
        expect(isMetricName(k), k).toBe(true);
      }
      expect(r.value_loss).toBeGreaterThan(0);
      expect(Math.abs(r['advantages/mean'])).toBeLessThan(1e-5);   // whitened
      expect(r.grad_norm).toBeGreaterThan(0);
      // The step's split as GRPO reports it, and the prompt rows a group's first episode computed.
      console.log(`step ${r.step}: generation ${r['perf/generation_time'].toFixed(3)} s, GPU forward / loss / backward / optimizer ${['forward', 'loss', 'backward', 'optimizer'].map((k) => r[`perf/${k}_time`].toFixed(4)).join(' / ')} s, shared rows ${r['perf/train_shared_rows_frac'].toFixed(3)}`);
      for (const k of ['perf/generation_time', 'perf/forward_time', 'perf/loss_time', 'perf/backward_time', 'perf/optimizer_time']) expect(r[k], k).toBeGreaterThan(0);
      expect(r['perf/tool_wait_time']).toBeGreaterThanOrEqual(0);
      expect(r['perf/train_shared_rows_frac']).toBeGreaterThan(0);
      expect(r['perf/train_shared_rows_frac']).toBeLessThan(0.5);
    }
    // The head was trained: its first update moved the values of the second step's rollouts' pass.
    const ck = (cfg: RlConfig, n: number): Promise<TrainState> => loadTrainState(new NodeDirSource(join(cfg.log.out_dir, 'checkpoints', `step-${n}`)));
    const s1 = await ck(oneGo, 1), s2 = await ck(oneGo, 2);
    for (const k of [VALUE_HEAD_WEIGHT, VALUE_HEAD_BIAS]) {
      expect(s2.params.get(k), k).toBeDefined();
      expect(s2.adam.m.get(k), k).toBeDefined();
      expect(Array.from(s2.params.get(k)!.data)).not.toEqual(Array.from(s1.params.get(k)!.data));
    }
    const h = await readSafetensorsHeader(new NodeDirSource(join(oneGo.log.out_dir, 'adapter')), VALUE_HEAD_FILE);
    expect([...h.tensors.keys()].sort()).toEqual([VALUE_HEAD_BIAS, VALUE_HEAD_WEIGHT]);

    await expect(train(crashed, { crashAt: 2 })).rejects.toThrow('crash at step 2');
    await train(crashed, { resume: true });
    expect(rows(crashed.log.out_dir).map(stable)).toEqual(a.map(stable));
    const [want, got] = [s2, await ck(crashed, 2)];
    for (const [what, x, y] of [['params', want.params, got.params], ['adam m', want.adam.m, got.adam.m], ['adam v', want.adam.v, got.adam.v]] as const) {
      expect(compareTensors(x, y, what).identical).toBe(true);
    }
    for (const f of ['adapter_model.safetensors', VALUE_HEAD_FILE]) {
      expect(readFileSync(join(crashed.log.out_dir, 'adapter', f)).equals(readFileSync(join(oneGo.log.out_dir, 'adapter', f))), f).toBe(true);
    }
    console.log(`ppo run test: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }, 600_000);
});
