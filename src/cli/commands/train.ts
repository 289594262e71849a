// `npm run cli -- train --config F`: RL training (GRPO, rejection sampling, reward-weighted) from
// a YAML config validated in src/rl/config.ts, with a progress line per step, metrics.jsonl,
// rollouts.jsonl, periodic checkpoints and the final PEFT adapter in the run folder.
// Tested by tests/unit/rl-grpo.test.ts (the run it drives) and rl-config.test.ts (validation).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliCommand } from '../args';
import { getNumber, getString, requireString } from '../args';
import { parseConfig, type RlConfig } from '../../rl/config';
import { loadTasksFor, nodeSink, openRun } from '../../rl/node-run';
import { runTraining } from '../../rl/run';

export function readConfig(args: Parameters<CliCommand['run']>[0]): RlConfig {
  const file = requireString(args, 'config');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--config ${file}: ${(e as Error).message}`);
  }
  return parseConfig(text, file, {
    sets: args.all.set ?? [], model: getString(args, 'model'), dataset: getString(args, 'dataset'),
    seed: getNumber(args, 'seed'), out: getString(args, 'out'),
  });
}

export const command: CliCommand = {
  name: 'train',
  summary: 'RL training (GRPO, rejection sampling, reward-weighted) from a YAML config',
  usage: `Usage: npm run cli -- train --config F [options]

  --config F              YAML config (see configs/ and the README table "Training with RL")
  --model PATH            overrides model.path
  --dataset F             overrides data.dataset (task JSONL)
  --set key=value         overrides one field, type-checked (repeatable), e.g. --set grpo.beta=0.04
  --seed N                overrides train.seed
  --out DIR               overrides log.out_dir (metrics.jsonl, rollouts.jsonl, checkpoints/, adapter/)
  --resume DIR            continue from a checkpoint folder (OUT/checkpoints/step-N)
  --preview-tasks N       print the first N prompts as the model will see them and exit

The sft trainer is run by \`npm run cli -- sft\`.`,
  async run(args) {
    const cfg = readConfig(args);
    const log = (s: string) => process.stderr.write(s);
    const preview = getNumber(args, 'preview-tasks');
    if (preview !== undefined) {
      const tasks = loadTasksFor(cfg, 'train', log).slice(0, preview);
      for (const t of tasks) process.stdout.write(JSON.stringify(t) + '\n');
      return 0;
    }
    if (cfg.trainer === 'sft') throw new Error('trainer "sft" runs through `npm run cli -- sft` (SFT on chat JSONL); this command runs grpo, rejection_sampling and reward_weighted');
    const run = await openRun(cfg, { log, resume: getString(args, 'resume') });
    try {
      const out = cfg.log.out_dir;
      log(`${cfg.trainer}: ${cfg.train.steps} steps, B=${cfg.rollout.batch_size} G=${cfg.rollout.group_size}, env ${cfg.data.env} (${run.tasks.length} tasks), out ${out}\n`);
      await runTraining({ ctx: run.ctx, tasks: run.tasks, sink: nodeSink(out, log), baseModelName: cfg.model.path, start: run.start });
      log(`metrics: ${join(out, 'metrics.jsonl')}, rollouts: ${join(out, 'rollouts.jsonl')}\n`);
    } finally {
      await run.close();
    }
    return 0;
  },
};
