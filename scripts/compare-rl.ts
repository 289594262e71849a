// The RL comparison on the shipped default agent (not a test): the SFT model
// (public/models/agent-tiny) trained by each algorithm with the agent preset
// (configs/agent_grpo.yaml) for the same steps and seed, then graded greedily on the held-out
// split. Each run is the CLI a user runs (`train`, then `eval --adapter`), as child processes.
// Prints one markdown row per algorithm: held-out success before/after per family, tool-call
// rate, seconds per step (rollout / training) and the run's wall time. Each eval's JSON is kept
// beside its run (eval-N.json), so running it again only prints the table. Figures go in the README.
// Run: npx tsx scripts/compare-rl.ts [--algorithms grpo,rloo,ppo] [--seed 0] [--steps 40] [--tasks 0] [--out runs/compare-rl]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getNumber, getString, parseArgs } from '../src/util/args';

/** What each algorithm sets on top of the preset. */
const ALGORITHMS: Record<string, string[]> = {
  grpo: [],
  rloo: ['grpo.advantage=rloo'],
  reinforce_pp: ['grpo.advantage=reinforce_pp'],
  ppo: ['trainer=ppo'],
};

type Figures = Record<string, number | string>;

function cli(args: string[]): string {
  const started = performance.now();
  const r = spawnSync('npx', ['tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm run cli -- ${args.join(' ')} exited with ${r.status}`);
  process.stderr.write(`  (${((performance.now() - started) / 1000).toFixed(0)} s) npm run cli -- ${args.join(' ')}\n`);
  return r.stdout;
}

/** Greedy held-out figures (the last line eval prints is their JSON), kept in `cache` so a rerun only prints. */
function evaluate(tasks: number, cache: string, adapter?: string): Figures {
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as Figures;
  const out = cli(['eval', '--config', 'configs/agent_grpo.yaml', '--tasks', String(tasks), ...(adapter ? ['--adapter', adapter] : [])]);
  const line = out.trim().split('\n').pop() ?? '{}';
  writeFileSync(cache, line + '\n');
  return JSON.parse(line) as Figures;
}

const pct = (f: Figures, k: string) => (typeof f[k] === 'number' ? `${(100 * (f[k] as number)).toFixed(1)} %` : 'n/a');
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const algorithms = getString(args, 'algorithms', 'grpo,rloo,ppo').split(',');
  for (const a of algorithms) if (!ALGORITHMS[a]) throw new Error(`--algorithms: unknown "${a}" (one of ${Object.keys(ALGORITHMS).join(', ')})`);
  const seed = getNumber(args, 'seed', 0), steps = getNumber(args, 'steps', 40), tasks = getNumber(args, 'tasks', 0);
  const out = getString(args, 'out', 'runs/compare-rl');
  mkdirSync(out, { recursive: true });
  const before = evaluate(tasks, join(out, `eval-base-${tasks}.json`));
  const rows: string[] = [];
  for (const a of algorithms) {
    const dir = join(out, `${a}-seed${seed}`);
    const t0 = performance.now();
    if (!existsSync(join(dir, 'adapter', 'adapter_config.json'))) {
      const sets = [...ALGORITHMS[a], `train.steps=${steps}`, `train.seed=${seed}`, `lora.init_seed=${seed}`, `log.out_dir=${dir}`, 'log.print_examples=0'];
      cli(['train', '--config', 'configs/agent_grpo.yaml', '--overwrite', ...sets.flatMap((s) => ['--set', s])]);
    }
    const wall = (performance.now() - t0) / 1000;
    const m = readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, number>);
    const after = evaluate(tasks, join(dir, `eval-${tasks}.json`), join(dir, 'adapter'));
    const perStep = (k: string) => mean(m.map((r) => r[k] ?? 0)).toFixed(1);
    rows.push(`| ${a} | ${pct(before, 'eval/accuracy')} -> **${pct(after, 'eval/accuracy')}** | ${pct(before, 'eval/accuracy/calculator')} -> ${pct(after, 'eval/accuracy/calculator')} | ${pct(before, 'eval/accuracy/lookup')} -> ${pct(after, 'eval/accuracy/lookup')} | ${String(before['tools/call_frequency'])} -> ${String(after['tools/call_frequency'])} | ${perStep('step_time')} (${perStep('perf/rollout_time')} / ${perStep('perf/train_time')}) | ${m.length} | ${mean(m.slice(0, 10).map((r) => r.reward)).toFixed(3)} -> ${mean(m.slice(-10).map((r) => r.reward)).toFixed(3)} | ${wall > 1 ? `${(wall / 60).toFixed(1)} min` : 'earlier run'} |`);
    process.stderr.write(`${a}: ${pct(before, 'eval/accuracy')} -> ${pct(after, 'eval/accuracy')}\n`);
  }
  console.log(`Held-out split, ${tasks || 'all'} tasks, greedy; seed ${seed}, ${steps} steps of configs/agent_grpo.yaml each.\n`);
  console.log('| algorithm | held-out success | calculator | lookup | tool calls / episode | s per step (rollout / training) | steps | batch reward, first 10 -> last 10 steps | run wall time |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}

main();
