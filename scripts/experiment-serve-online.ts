// The serve-and-learn experiment (not a test): the example agent (examples/openai-tool-agent.ts,
// written only against the `openai` package) trained through `serve --online` on the shipped
// default agent, graded on the held-out split before and after through the same agent code.
//   1. `serve` on the base model; the example runs the held-out tasks greedily (1 sample each).
//   2. `serve --online` (a fresh LoRA, GRPO over each task's rollouts, one update per --batch
//      rewarded rollouts, the adapter hot-swapped); the example runs --train-tasks training tasks
//      x --samples at temperature 1, --concurrency rollouts at once.
//   3. `serve --adapter` with the adapter the online run wrote; the held-out tasks again.
// Prints success per family before/after, tool calls per rollout, the online updates' rewards
// and wall times. Figures go in the README ("serve, train-traces").
// Run: npx tsx scripts/experiment-serve-online.ts [--train-tasks 160] [--samples 8] [--batch 32]
//        [--concurrency 8] [--eval-tasks 0] [--lr 3e-4] [--seed 0] [--out runs/serve-online]
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTasks, runAgent, summarize } from '../examples/openai-tool-agent';
import type { AgentTask } from '../src/data/schemas';
import { getNumber, getString, parseArgs } from '../src/util/args';

const MODEL = 'public/models/agent-tiny';

interface Served {
  url: string;
  child: ChildProcess;
}

/** Starts `npm run cli -- serve ...` on a port and waits until /health answers. */
async function serve(port: number, extra: string[]): Promise<Served> {
  const args = ['node_modules/tsx/dist/cli.mjs', 'src/cli/main.ts', 'serve', '--model', MODEL, '--quant', 'none', '--max-context', '512', '--tune', 'false', '--port', String(port), '--rate-limit', '0', '--model-id', 'agent-tiny', ...extra];
  process.stderr.write(`$ node ${args.join(' ')}\n`);
  // Node and tsx directly (npx does not pass SIGINT on to the server).
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode} before answering /health`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`serve on port ${port} did not answer /health in 5 minutes`);
}

async function stop(s: Served): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGINT');
  const late = setTimeout(() => s.child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(late);
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const out = getString(a, 'out', 'runs/serve-online');
  const trainTasks = getNumber(a, 'train-tasks', 160), samples = getNumber(a, 'samples', 8), batch = getNumber(a, 'batch', 32);
  const concurrency = getNumber(a, 'concurrency', 8), evalTasks = getNumber(a, 'eval-tasks', 0);
  const lr = getString(a, 'lr', '3e-4'), seed = getString(a, 'seed', '0');
  const quiet = () => undefined;
  const agent = (url: string, tasks: AgentTask[], k: number, temperature: number) =>
    runAgent({ baseURL: `${url}/v1`, model: 'agent-tiny', tasks, samples: k, maxTurns: 2, temperature, maxTokens: 48, corpusFile: 'datasets/agent_corpus.jsonl', log: quiet, concurrency });
  const heldOut = readTasks('datasets/agent_eval.jsonl', evalTasks);
  const t0 = performance.now();
  const secs = () => ((performance.now() - t0) / 1000).toFixed(0);

  let s = await serve(8601, ['--out', join(out, 'eval-before')]);
  const before = await agent(s.url, heldOut, 1, 0);
  await stop(s);
  process.stderr.write(`[${secs()} s] before: ${summarize(before)}\n`);

  const online = join(out, 'online');
  s = await serve(8602, ['--out', online, '--online', '--online-batch', String(batch), '--lr', lr, '--rank', '8', '--alpha', '16', '--micro-batch', '32', '--seed', seed, '--checkpoint-every', '10']);
  const tStart = performance.now();
  const train = await agent(s.url, readTasks('datasets/agent_train.jsonl', trainTasks), samples, 1);
  // The last update may still be running: wait until the server is idle.
  for (;;) {
    const st = (await (await fetch(`${s.url}/v1/train/status`)).json()) as { training: boolean; updates: number; rollouts_pending: number };
    if (!st.training && st.rollouts_pending < batch) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  await stop(s);
  const trainSecs = (performance.now() - tStart) / 1000;
  const metrics = readFileSync(join(online, 'metrics.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, number>);
  process.stderr.write(`[${secs()} s] online: ${train.length} rollouts, ${metrics.length} updates in ${trainSecs.toFixed(0)} s; ${summarize(train)}\n`);

  s = await serve(8603, ['--out', join(out, 'eval-after'), '--adapter', join(online, 'adapter')]);
  const after = await agent(s.url, heldOut, 1, 0);
  await stop(s);

  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / Math.max(1, xs.length);
  const rewards = metrics.map((m) => m.reward);
  const quarter = Math.max(1, Math.floor(rewards.length / 4));
  console.log(`held-out (${heldOut.length} tasks, greedy, the example agent through serve):`);
  console.log(`  before (base): ${summarize(before)}`);
  console.log(`  after ${metrics.length} online updates: ${summarize(after)}`);
  console.log(`online training: ${train.length} rollouts of ${trainTasks} training tasks x ${samples} at temperature 1, ${concurrency} at once; ${metrics.length} updates of ${batch} rollouts, lr ${lr}, seed ${seed}; ${trainSecs.toFixed(0)} s (${(trainSecs / Math.max(1, metrics.length)).toFixed(1)} s per update incl. rollouts)`);
  console.log(`  mean update reward, first ${quarter} updates ${mean(rewards.slice(0, quarter)).toFixed(3)}, last ${quarter} ${mean(rewards.slice(-quarter)).toFixed(3)}; training rollouts ${summarize(train)}`);
  console.log(`wall time ${secs()} s`);
}

main().then(() => process.exit(0), (e: unknown) => {
  console.error(e);
  process.exit(1);
});
