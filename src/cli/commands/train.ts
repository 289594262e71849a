// `npm run cli -- train --config F`: RL training (GRPO, rejection sampling, reward-weighted) from
// a YAML config validated in src/rl/config.ts, with a progress line per step, metrics.jsonl,
// rollouts.jsonl, periodic checkpoints and the final PEFT adapter (full mode: model/) in the run folder.
// Tested by tests/unit/rl/rl-grpo.test.ts (the run it drives) and rl-config.test.ts (validation).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CliCommand, ParsedArgs } from '../../util/args';
import { getBool, getNumber, getString } from '../../util/args';
import { anchorPresetPaths, DEFAULT_PRESET, fromRepo } from '../defaults';
import { stopOnInterrupt } from '../interrupt';
import { prepareRunFolder, type RunFolderIntent } from '../out-path';
import { RunControl } from '../../train/run-control';
import { parseConfig, type RlConfig } from '../../rl/config-validate';
import { loadTasksFor, nodeRecorder, openRun, startServices } from '../../run/rl-node-run';
import { buildEnvironment } from '../../rl/env-factory';
import { runTraining } from '../../run/rl-run';
import { fanOut } from '../../run/events';
import { printRun } from '../../run/printer';
import { planOfRun } from '../../run/run-plan';
import { formatPlan } from '../../train/memory-plan';
import { runSft } from './sft';
import { resumedKeepCheckpoints } from '../../run/resume';
import { NodeFsStorage } from '../../run/node-storage';

/** The run config: --config F, or the default preset (configs/agent_grpo.yaml, paths from the repo root). */
export function readConfig(args: Parameters<CliCommand['run']>[0], log: (s: string) => void = (s) => process.stderr.write(s)): RlConfig {
  const given = getString(args, 'config');
  const file = given ?? fromRepo(DEFAULT_PRESET);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--config ${file}: ${(e as Error).message}`);
  }
  const adapter = getString(args, 'adapter');
  const sets = [...(args.all.set ?? []), ...(args.flags['allow-weak-sandbox'] === true ? ['rollout.allow_weak_sandbox=true'] : []), ...(adapter !== undefined ? [`model.adapter=${adapter}`] : [])];
  const cfg = parseConfig(text, given ?? DEFAULT_PRESET, {
    sets, model: getString(args, 'model'), dataset: getString(args, 'dataset'),
    seed: getNumber(args, 'seed'), out: getString(args, 'out'),
  });
  if (given) return cfg;
  log(`config: ${DEFAULT_PRESET} (the default preset; --config F picks another)\n`);
  return anchorPresetPaths(cfg, parseConfig(text, DEFAULT_PRESET));
}

export const command: CliCommand = {
  name: 'train',
  summary: 'RL training (GRPO, rejection sampling, reward-weighted) from a YAML config (default: agent_grpo.yaml)',
  usage: `Usage: npm run cli -- train [--config F] [options]

  --config F              YAML config (see configs/ and the README table "Training with RL");
                          default configs/agent_grpo.yaml: GRPO on the shipped default agent
                          public/models/agent-tiny with the agent env (paths from the repo root)
  --model PATH            overrides model.path
  --dataset F             overrides data.dataset (task JSONL)
  --adapter DIR           overrides model.adapter: start the policy from this PEFT adapter (e.g.
                          sft's OUT/adapter; its rank, alpha and targets are used; with beta > 0
                          the KL reference is this adapter, frozen)
  --set key=value         overrides one field, type-checked (repeatable), e.g. --set grpo.beta=0.04
  --allow-weak-sandbox    run model-written Python below the "sealed" sandbox level (README:
                          Python sandbox); same as --set rollout.allow_weak_sandbox=true
  --seed N                overrides train.seed
  --out DIR               overrides log.out_dir (metrics.jsonl, rollouts.jsonl, checkpoints/, adapter/);
                          a folder that already holds files needs --resume or --overwrite
  --resume [DIR]          continue the run in DIR (default: the run folder) from its newest complete
                          checkpoint; rows of metrics.jsonl / rollouts.jsonl past it are cut
  --overwrite             delete what the run folder holds and start a new run there
  --tune true|false       time kernel variants at load (default true; false: defaults, faster start)
  --preview-tasks N       print the first N tasks' opening messages (and prefill) and exit

trainer: sft runs the SFT loop (\`npm run cli -- sft\`, src/run/sft-run.ts) on the same config,
mapped by src/run/trainer-settings.ts: data.dataset is the chat JSONL, rollout.batch_size the
examples per update.`,
  async run(args) {
    let cfg = readConfig(args);
    const log = (s: string) => process.stderr.write(s);
    const preview = getNumber(args, 'preview-tasks');
    if (preview !== undefined) {
      const tasks = loadTasksFor(cfg, 'train', log).slice(0, preview);
      const svc = await startServices(cfg);
      try {
        const env = buildEnvironment(cfg, svc.services);
        const tools = env.tools().map((t) => t.name);
        for (const t of tasks) {
          process.stdout.write(`--- ${t.task_id}${tools.length ? ` (tools: ${tools.join(', ')})` : ''}\n`);
          for (const m of env.initialMessages(t)) process.stdout.write(`${m.role}: ${m.content}\n`);
          if (cfg.rollout.prefill) process.stdout.write(`assistant (prefill, mask 0): ${cfg.rollout.prefill}\n`);
        }
      } finally {
        await svc.pool?.close();
      }
      return 0;
    }
    const { out, intent } = runFolderOf(args, cfg);
    // A resumed run keeps its own log.keep_checkpoints (its config.yaml) unless --set gives one.
    if (intent === 'resume') cfg = { ...cfg, log: { ...cfg.log, keep_checkpoints: await resumedKeepCheckpoints(new NodeFsStorage(out), cfg.log.keep_checkpoints, args.all.set ?? []) } };
    if (cfg.trainer === 'sft') {
      const flags: ParsedArgs['flags'] = { tune: String(getBool(args, 'tune', true)), ...(cfg.model.adapter !== null ? { adapter: cfg.model.adapter } : {}), ...(intent === 'resume' ? { resume: out } : intent === 'overwrite' ? { overwrite: true } : {}) };
      return runSft({ positionals: [], flags, all: {} }, { ...cfg, log: { ...cfg.log, out_dir: out } });
    }
    const folder = prepareRunFolder(out, intent, 'train');
    const run = await openRun(cfg, { log, resume: folder === 'resume' ? out : undefined, tune: getBool(args, 'tune', true) });
    try {
      log(`${cfg.trainer}: ${cfg.train.steps} steps, B=${cfg.rollout.batch_size} G=${cfg.rollout.group_size}, env ${run.ctx.env.name}${cfg.data.env_module !== null ? ` (${cfg.data.env_module})` : ''} (${run.tasks.length} tasks), out ${out}\n`);
      const control = new RunControl();
      const release = stopOnInterrupt(control, log);
      const line = (s: string) => log(s + '\n');
      const print = printRun({ out: line, log: line, where: (p) => join(out, p), printExamples: cfg.log.print_examples });
      const planned = planOfRun(run.model.model.cfg, cfg);
      if (planned) log(`memory plan (${planned.shape}):\n${formatPlan(planned.plan)}\n`);
      const r = await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: fanOut(nodeRecorder(out, cfg), print), runId: out, baseModelName: cfg.model.path, start: run.start, control, plan: planned?.plan ?? null });
      release();
      if (r.stopped) log(`stopped; continue with --resume ${out}\n`);
      log(`metrics: ${join(out, 'metrics.jsonl')}, rollouts: ${join(out, 'rollouts.jsonl')}\n`);
    } finally {
      await run.close();
    }
    return 0;
  },
};

/**
 * The run folder and what to do with it: --resume alone continues log.out_dir (or --out);
 * --resume DIR continues DIR, or the run holding DIR when DIR is one of its checkpoints (which
 * must then be its newest complete one: run-folder.ts picks that).
 */
function runFolderOf(args: ParsedArgs, cfg: RlConfig): { out: string; intent: RunFolderIntent } {
  const r = args.flags.resume;
  const overwrite = getBool(args, 'overwrite', false);
  if (r !== undefined && overwrite) throw new Error('--resume continues a run and --overwrite deletes it: pass one of them');
  if (r === undefined) return { out: resolve(cfg.log.out_dir), intent: overwrite ? 'overwrite' : 'new' };
  if (r === true) return { out: resolve(cfg.log.out_dir), intent: 'resume' };
  const dir = existsSync(join(r, 'state.json')) ? dirname(dirname(resolve(r))) : resolve(r);
  const outFlag = getString(args, 'out');
  if (outFlag && resolve(outFlag) !== dir) throw new Error(`--resume ${r} continues the run in ${dir}, but --out is ${outFlag}; drop --out`);
  return { out: dir, intent: 'resume' };
}
