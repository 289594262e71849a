// The learning experiment (not a test): GRPO on stories260K with the story env
// (configs/stories_grpo.yaml: the story must mention the asked word), fixed seed and steps.
// Prints the mean reward per step, and a before/after evaluation of the same prompts with the
// same sampling seed (k samples each at temperature 1). Figures go in docs/rl.md.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json npx tsx scripts/experiment-stories-grpo.ts [--steps N]
import { readFileSync } from 'node:fs';
import { parseArgs, getNumber, getString } from '../src/util/args';
import { parseConfig } from '../src/rl/config-validate';
import { evaluate } from '../src/rl/eval';
import { loadTasksFor, nodeRecorder, openRun } from '../src/run/rl-node-run';
import { runTraining } from '../src/run/rl-run';
import { fanOut } from '../src/run/events';
import { printRun } from '../src/run/printer';

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const file = getString(args, 'config', 'configs/stories_grpo.yaml');
  const steps = getNumber(args, 'steps', 30);
  const cfg = parseConfig(readFileSync(file, 'utf8'), file, { sets: [`train.steps=${steps}`, 'log.print_examples=0', ...(args.all.set ?? [])], out: getString(args, 'out', 'runs/experiment-stories-grpo'), seed: getNumber(args, 'seed', 1) });
  const log = (s: string) => process.stderr.write(s);
  const run = await openRun(cfg, { log });
  const t0 = performance.now();
  try {
    const evalTasks = loadTasksFor(cfg, 'train', log);
    const k = 8;
    const before = await evaluate(run.ctx, evalTasks, k, 1);
    const result = await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: fanOut(nodeRecorder(cfg.log.out_dir, cfg), printRun({ out: (l) => log(l + '\n'), log: (l) => log(l + '\n'), where: (p) => `${cfg.log.out_dir}/${p}`, printExamples: cfg.log.print_examples })), baseModelName: cfg.model.path });
    const after = await evaluate(run.ctx, evalTasks, k, 1);
    const r = result.history.map((h) => h.reward);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    console.log('step reward frac_reward_zero_std loss grad_norm');
    result.history.forEach((h) => console.log(`${h.step} ${h.reward.toFixed(3)} ${h.frac_reward_zero_std.toFixed(2)} ${h.loss.toFixed(4)} ${h.grad_norm.toFixed(3)}`));
    const n = Math.min(5, Math.floor(r.length / 2));
    console.log(`mean reward, first ${n} steps: ${mean(r.slice(0, n)).toFixed(3)}; last ${n} steps: ${mean(r.slice(-n)).toFixed(3)}`);
    console.log(`held-out style check (same ${evalTasks.length} prompts x ${k} samples, same seeds): mention rate before ${before.metrics['eval/accuracy'].toFixed(3)}, after ${after.metrics['eval/accuracy'].toFixed(3)}; per word before [${before.correct.join(', ')}] after [${after.correct.join(', ')}] of ${k}`);
    console.log(`wall time ${((performance.now() - t0) / 1000).toFixed(0)} s for ${steps} steps`);
  } finally {
    await run.close();
  }
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
