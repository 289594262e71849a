// `npm run bench -- step-time [--steps N] [--batch B] [--group G]`: the Config panel's measured step
// estimate (src/workers/engine/step-time.ts) against real GRPO steps of the same config (the agent
// preset shrunk) on the same machine: the estimate and its parts, then each step's step_time, and the
// ratio estimate / mean step_time (steps after the first). The estimate's decode is an upper bound
// (every episode samples its most tokens); the ratio at the real most sampled tokens is printed too,
// and the estimate re-measured at the run's typical lengths (its episodes' mean prompt and tokens
// after it, as the Config panel uses a previous run's rollouts.jsonl) against the same steps. No asserts.
import { readFileSync } from 'node:fs';
import { parseConfig } from '../src/rl/config-validate';
import { grpoStep } from '../src/rl/grpo-trainer';
import { loadRunModel, openRun } from '../src/run/rl-node-run';
import { getNumber, parseArgs } from '../src/util/args';
import type { TypicalLengths } from '../src/run/typical-lengths';
import { measureStepTime } from '../src/workers/engine/step-time';

const args = parseArgs(process.argv.slice(2));
const steps = getNumber(args, 'steps', 4), B = getNumber(args, 'batch', 2), G = getNumber(args, 'group', 4);
const yaml = readFileSync('configs/agent_grpo.yaml', 'utf8')
  .replace('batch_size: 4 ', `batch_size: ${B} `).replace('group_size: 8 ', `group_size: ${G} `)
  .replace('micro_batch_size: 32', `micro_batch_size: ${B * G}`).replace('steps: 40 ', `steps: ${steps} `);
const cfg = parseConfig(yaml, 'configs/agent_grpo.yaml (shrunk)');
const log = () => undefined;

/** The estimate on its own copy of the model (as the worker does before Start). */
async function estimate(when: string, lengths: TypicalLengths | null = null) {
  const m = await loadRunModel(cfg, log, undefined, { tune: false });
  const est = await measureStepTime(m.rt, m.model, cfg, { lengths });
  m.model.dispose();
  console.log(`estimate ${when} (${est.lengths}): ${(est.totalMs / 1000).toFixed(2)} s per step; ${est.parts.map((p) => `${p.name} ${p.ms.toFixed(0)} ms`).join(', ')}`);
  for (const p of est.parts) console.log(`  ${p.name}: ${p.what}`);
  return est;
}
const before = await estimate('before the run');

const run = await openRun(cfg, { log, tune: false });
const times: number[] = [], lengths: number[] = [], gen: number[] = [], train: number[] = [], tools: number[] = [];
const prompts: number[] = [], afters: number[] = [];
try {
  for (let s = 0; s < steps; s++) {
    const out = await grpoStep(run.ctx, run.tasks.slice(s * B, (s + 1) * B), s);
    const x = out.metrics;
    const len = out.rollout.episodes.reduce((a, e) => Math.max(a, e.mask.reduce<number>((n, v) => n + v, 0)), 0);
    for (const e of out.rollout.episodes) {
      prompts.push(e.promptLength);
      afters.push(e.tokens.length - e.promptLength);
    }
    times.push(x.step_time); lengths.push(len); gen.push(x['perf/generation_time']); train.push(x['perf/train_time']); tools.push(x['perf/tool_wait_time']);
    console.log(`step ${s + 1}: step_time ${x.step_time.toFixed(2)} s (generation ${x['perf/generation_time'].toFixed(2)}, tool wait ${x['perf/tool_wait_time'].toFixed(2)}, train ${x['perf/train_time'].toFixed(2)}), most sampled tokens in an episode ${len}${out.note ? `; ${out.note}` : ''}`);
  }
} finally {
  await run.close();
}
const after = await estimate('after the run');
const est = after.totalMs < before.totalMs ? after : before;
console.log(`estimates before / after the run: ${(before.totalMs / 1000).toFixed(2)} / ${(after.totalMs / 1000).toFixed(2)} s (the machine is shared: the lower is used below)`);
const tail = <T>(a: T[]) => (a.length > 1 ? a.slice(1) : a);
const mean = (a: number[]) => tail(a).reduce((x, y) => x + y, 0) / tail(a).length;
const meanStep = mean(times);
const perTok = est.decodeMsPerToken ?? 0;
const atLength = est.totalMs - (est.parts.find((p) => p.name === 'decode')?.ms ?? 0) + perTok * mean(lengths);
console.log(`mean of steps ${times.length > 1 ? 2 : 1}..${steps}: step_time ${meanStep.toFixed(2)} s (generation ${mean(gen).toFixed(2)}, tool wait ${mean(tools).toFixed(2)}, train ${mean(train).toFixed(2)}), most sampled tokens ${mean(lengths).toFixed(0)}`);
console.log(`ratio estimate / step_time: ${(est.totalMs / 1000 / meanStep).toFixed(2)} (decode bound: every episode samples its most tokens); with the decode part at the real most sampled tokens: ${(atLength / 1000 / meanStep).toFixed(2)}`);

const avg = (a: number[]) => Math.round(a.reduce((x, y) => x + y, 0) / Math.max(1, a.length));
const typical = await estimate('at the run\'s typical lengths', { prompt: avg(prompts), completion: avg(afters), decoded: avg(lengths), from: `mean of this run's ${prompts.length} episodes over ${steps} steps` });
console.log(`ratio estimate / step_time: upper bound ${(est.totalMs / 1000 / meanStep).toFixed(2)}, at typical lengths ${(typical.totalMs / 1000 / meanStep).toFixed(2)} (${(typical.totalMs / 1000).toFixed(2)} s vs ${meanStep.toFixed(2)} s measured)`);
