// GRPO resume == continuous through the Node run (src/run/rl-node-run.ts openRun + run.ts): 3 steps
// in one go, against a run that crashes inside step 2 (after its metrics and rollouts rows were
// written, before its checkpoint) and is resumed from its run folder. The resumed run's folder
// must equal the continuous one's: adapter files byte for byte, the last checkpoint's LoRA
// params, AdamW moments and t bit for bit, metrics.jsonl (every value but timings) and
// rollouts.jsonl. stories260K, story env, entropy bonus so every step updates, cosine schedule.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { resolveConfig, type RlConfig } from '../../../src/rl/config-validate';
import { nodeRecorder, openRun, type OpenRunOptions } from '../../../src/run/rl-node-run';
import { runTraining } from '../../../src/run/rl-run';
import { loadTrainState, type TrainState } from '../../../src/train/checkpoint';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { compareTensors } from '../helpers/tensor-compare';

const MODEL = join(STORIES_DIR, 'stories260K.bin');

function config(out: string): RlConfig {
  return resolveConfig({
    model: { path: MODEL, quant: 'none', template: 'plain' },
    data: { env: 'story', story_words: ['girl', 'big', 'play', 'boy'] },
    env: { system_prompt: 'Write a story about {word}.' },
    rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 40, max_new_tokens: 6, prefill: ' Once upon a time' },
    grpo: { micro_batch_size: 4, entropy_coef: 0.05 },
    optim: { lr: 0.01, schedule: 'cosine', warmup_steps: 1, weight_decay: 0.01 },
    lora: { rank: 2, alpha: 4 },
    train: { steps: 3, seed: 3, recompute: false },
    log: { out_dir: out, checkpoint_every: 1, print_examples: 0 },
  }, 'rl-resume.test');
}

/** Runs cfg into its out_dir (resuming it when asked); `crashAt`: throw in on_step_end of that step. */
async function train(cfg: RlConfig, opts: { resume?: boolean; crashAt?: number }): Promise<void> {
  const out = cfg.log.out_dir;
  const o: OpenRunOptions = {
    log: () => undefined, tune: false, resume: opts.resume ? out : undefined,
    hooks: { on_step_end: (i) => { if (i.step === opts.crashAt) throw new Error(`crash at step ${i.step}`); } },
  };
  const run = await openRun(cfg, o);
  try {
    await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: nodeRecorder(out), baseModelName: 'stories260K', start: run.start });
  } finally {
    await run.close();
  }
}

/** Metric rows without the timing and memory values (they differ between any two runs). */
function metricRows(out: string): Record<string, number>[] {
  return readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => {
    const row = JSON.parse(l) as Record<string, number>;
    return Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'step_time' && !k.startsWith('perf/') && !k.startsWith('gpu/')));
  });
}

describe('GRPO resume == continuous', () => {
  it.skipIf(!existsSync(MODEL))('a run crashed inside step 2 and resumed equals 3 steps in one go', async () => {
    const t0 = performance.now();
    const dir = mkdtempSync(join(tmpdir(), 'rl-resume-'));
    const oneGo = config(join(dir, 'one-go')), crashed = config(join(dir, 'crashed'));
    await train(oneGo, {});
    await expect(train(crashed, { crashAt: 2 })).rejects.toThrow('crash at step 2');
    expect(metricRows(crashed.log.out_dir).map((r) => r.step)).toEqual([1, 2]);   // row 2 written, no step-2 checkpoint
    expect(readdirSync(join(crashed.log.out_dir, 'checkpoints')).sort()).toEqual(['step-1']);
    await train(crashed, { resume: true });

    const a = metricRows(oneGo.log.out_dir), b = metricRows(crashed.log.out_dir);
    console.log(`one go:  ${a.map((r) => `step ${r.step} reward ${r.reward.toFixed(3)} loss ${r.loss.toExponential(4)} grad ${r.grad_norm.toFixed(5)} lr ${r.learning_rate.toExponential(3)}`).join('\n         ')}`);
    expect(a.map((r) => r.grad_norm).every((g) => g > 0)).toBe(true);   // every step updated
    expect(b).toEqual(a);
    expect(readFileSync(join(crashed.log.out_dir, 'rollouts.jsonl'), 'utf8')).toBe(readFileSync(join(oneGo.log.out_dir, 'rollouts.jsonl'), 'utf8'));
    for (const f of ['adapter_config.json', 'adapter_model.safetensors']) {
      expect(readFileSync(join(crashed.log.out_dir, 'adapter', f)).equals(readFileSync(join(oneGo.log.out_dir, 'adapter', f))), f).toBe(true);
    }
    const last = (cfg: RlConfig): Promise<TrainState> => loadTrainState(new NodeDirSource(join(cfg.log.out_dir, 'checkpoints', 'step-3')));
    const [want, got] = [await last(oneGo), await last(crashed)];
    expect(got.step).toBe(want.step);
    expect(got.adam.t).toBe(want.adam.t);
    expect(got.schedule).toEqual(want.schedule);
    expect(got.rng).toEqual(want.rng);
    for (const [what, x, y] of [['params', want.params, got.params], ['adam m', want.adam.m, got.adam.m], ['adam v', want.adam.v, got.adam.v]] as const) {
      expect(compareTensors(x, y, what).identical).toBe(true);
    }
    console.log(`rl resume test: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }, 600_000);
});
