// `npm run bench -- ppo [--steps N] [--micro B]`: PPO steps on stories260K (story env, LoRA r=2)
// through ppoStep: per step the wall time, perf/train_time (the old-value pass and the updates),
// dispatches and GPU -> host readbacks of the whole step (and of the updates alone when the
// trainer reports perf/train_readbacks). The first step warms pipelines up; the mean skips it.
import { join } from 'node:path';
import { resolveConfig } from '../src/rl/config-validate';
import { openRun } from '../src/run/rl-node-run';
import { ppoStep } from '../src/rl/ppo-trainer';
import { getNumber, parseArgs } from '../src/util/args';
import { sharedDir } from './shared-dir';

const args = parseArgs(process.argv.slice(2));
const steps = getNumber(args, 'steps', 4), micro = getNumber(args, 'micro', 2);
const cfg = resolveConfig({
  trainer: 'ppo',
  model: { path: join(sharedDir(), 'models/stories260K/stories260K.bin'), quant: 'none', template: 'plain' },
  data: { env: 'story', story_words: ['girl', 'big', 'play', 'boy'] },
  env: { system_prompt: 'Write a story about {word}.' },
  rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 40, max_new_tokens: 6, prefill: ' Once upon a time' },
  grpo: { micro_batch_size: micro, num_iterations: 2 },
  ppo: { vf_coef: 0.5, lambda: 0.9 },
  optim: { lr: 0.01 },
  lora: { rank: 2, alpha: 4 },
  train: { steps, seed: 5, recompute: false },
  log: { print_examples: 0 },
}, 'bench-ppo');
const run = await openRun(cfg, { log: () => undefined, tune: false });
const { rt } = run.ctx;
const rows: { wall: number; train: number; readbacks: number; trainReadbacks: number | undefined; dispatches: number }[] = [];
try {
  for (let s = 0; s < steps; s++) {
    const tasks = run.tasks.slice(0, cfg.rollout.batch_size);
    const r0 = rt.readbackCount, t0 = performance.now();
    const out = await ppoStep(run.ctx, tasks, s);
    const row = {
      wall: performance.now() - t0, train: out.metrics['perf/train_time'] * 1000, readbacks: rt.readbackCount - r0,
      trainReadbacks: out.metrics['perf/train_readbacks'] as number | undefined, dispatches: out.metrics['perf/dispatches_per_step'],
    };
    rows.push(row);
    console.log(`step ${s}: wall ${row.wall.toFixed(0)} ms, train ${row.train.toFixed(0)} ms, readbacks ${row.readbacks} (updates: ${row.trainReadbacks ?? 'n/a'}), dispatches ${row.dispatches}, value_loss ${out.metrics.value_loss.toFixed(5)}`);
  }
} finally {
  await run.close();
}
const tail = rows.slice(1);
const mean = (f: (r: (typeof rows)[number]) => number) => tail.reduce((a, r) => a + f(r), 0) / Math.max(1, tail.length);
console.log(`mean of steps 1..${steps - 1}: wall ${mean((r) => r.wall).toFixed(0)} ms, train ${mean((r) => r.train).toFixed(0)} ms, readbacks ${mean((r) => r.readbacks).toFixed(1)}`);
