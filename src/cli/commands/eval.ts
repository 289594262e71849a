// `npm run cli -- eval [--config F] [--model DIR] [--adapter DIR] [--engine ort --onnx DIR]`:
// held-out accuracy / pass@k of a model (plus the config's model.adapter, or --adapter) on the
// config's environment, separate from training, on our engine or onnxruntime-web
// (src/cli/engine-option.ts). Prints the metrics as JSON on stdout. Tested by
// tests/unit/rl/rl-grpo.test.ts, tests/unit/cli/eval-cli.test.ts and tests/unit/ort/ort-engine.test.ts.
import { writeFileSync } from 'node:fs';
import type { Task } from '../../data/schemas';
import type { CliCommand } from '../../util/args';
import { getBool, getNumber, getString } from '../../util/args';
import { evalTemperature, evaluatePolicy } from '../../rl/eval-run';
import { isCorrect, type EvalResult } from '../../rl/eval';
import { rolloutRecord, toJsonl } from '../../rl/rollout-log';
import { loadRunModel, loadTasksFor, startServices } from '../../run/rl-node-run';
import { readConfig } from './train';
import { ENGINE_OPTIONS, openCliEngine } from '../engine-option';

export const command: CliCommand = {
  name: 'eval',
  summary: 'held-out accuracy / pass@k of a model (+ adapter) on a config\'s environment (default: agent_grpo.yaml)',
  usage: `Usage: npm run cli -- eval [--config F] [--model DIR] [--adapter DIR] [options]

  --config F              YAML config (environment, data, rollout limits, eval section); default
                          configs/agent_grpo.yaml: the shipped default agent public/models/agent-tiny
                          on the agent env's held-out split (paths from the repo root)
  --model PATH            overrides model.path
  --adapter DIR           PEFT adapter to evaluate (e.g. OUT/adapter); default: the config's
                          model.adapter, else the bare base model
  --split eval|train      which tasks (default eval.split)
  --samples K             samples per task: pass@K (default eval.samples; K > 1 samples at eval.temperature or 1)
  --tasks N               tasks graded (default eval.num_tasks; 0 = all)
  --set key=value         overrides a config field (repeatable)
  --tune true|false       time kernel variants at load (default true; false: defaults, faster start)
  --episodes FILE         also write every episode as a JSON line to FILE: its rollouts.jsonl
                          record (tokens, tool calls, reward, conversation) + answer, correct
  --allow-weak-sandbox    run model-written Python below the "sealed" sandbox level
${ENGINE_OPTIONS}`,
  async run(args) {
    const cfg = readConfig(args);
    const log = (s: string) => process.stderr.write(s);
    const split = getString(args, 'split', cfg.eval.split);
    if (split !== 'eval' && split !== 'train') throw new Error(`--split must be eval or train, got "${split}"`);
    const k = getNumber(args, 'samples', cfg.eval.samples);
    if (!(Number.isInteger(k) && k >= 1)) throw new Error(`--samples must be an integer >= 1, got ${k}`);
    const temperature = evalTemperature(cfg, k);
    const n = getNumber(args, 'tasks', cfg.eval.num_tasks);
    let tasks = loadTasksFor(cfg, split, log);
    if (n > 0) tasks = tasks.slice(0, n);
    // readConfig put --adapter (when given) into model.adapter, so this is the flag or the config's.
    const adapter = cfg.model.adapter ?? undefined;
    const e = await openCliEngine(args, cfg.model.path, () => loadRunModel(cfg, log, adapter, { tune: getBool(args, 'tune', true) }), log);
    log(`eval: ${evalHeader(args, adapter)}\n`);
    const svc = await startServices(cfg);
    try {
      const r = await evaluatePolicy(cfg, e.engine, e.tokenizer, svc.services, tasks, k, (done, total) => log(`\reval ${done}/${total}`));
      log('\n');
      const episodesFile = getString(args, 'episodes');
      if (episodesFile) {
        writeFileSync(episodesFile, episodeLines(tasks, k, r));
        log(`episodes: ${r.episodes.length} written to ${episodesFile}\n`);
      }
      process.stdout.write(JSON.stringify({ split, tasks: tasks.length, samples: k, temperature, ...r.metrics }) + '\n');
    } finally {
      await e.close();
      await svc.pool?.close();
    }
    return 0;
  },
};

/** Which policy the eval ran: the base, the base + which adapter (and where it was named). */
export function evalHeader(args: Parameters<CliCommand['run']>[0], adapter: string | undefined): string {
  if (getString(args, 'engine', 'ours') === 'ort') {
    return adapter ? `ONNX export as is (any adapter is merged into it; model.adapter ${adapter} not applied)` : 'ONNX export as is';
  }
  if (!adapter) return 'base model, no adapter';
  return `adapter ${adapter} (${getString(args, 'adapter') !== undefined ? '--adapter' : 'model.adapter in the config'})`;
}

/** One JSON line per episode (task-major): its rollouts.jsonl record (step 0, no advantage) with the task's family, answer and grade. */
export function episodeLines(tasks: readonly Task[], k: number, r: EvalResult): string {
  return toJsonl(r.episodes.map((e, i) => {
    const task = tasks[Math.floor(i / k)] as Task & { family?: unknown; answer?: unknown };
    return {
      ...rolloutRecord(0, e, r.rewards[i], null, task.task_id),
      ...(typeof task.family === 'string' ? { family: task.family } : {}), answer: task.answer ?? null, correct: isCorrect(r.rewards[i]),
    };
  }));
}
