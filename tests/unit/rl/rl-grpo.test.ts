// Two GRPO steps of the whole pipeline on stories260K: math env with the real python tool (a
// Pyodide pool), the call teacher-forced by rollout.prefill, a custom reward hook giving the
// groups variance, micro-batches with gradient accumulation. Checks the anchor metric names,
// the adapter changed, tool output masked (0) in rollouts.jsonl, the run folder's files and the
// resume point; one step where every group has zero variance makes no update; one RLOO step
// (grpo.advantage); one rejection-sampling step; and `eval` (CLI) reports accuracy / pass@k.
// Run: npx vitest run tests/unit/rl/rl-grpo.test.ts
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseArgs } from '../../../src/util/args';
import { command as evalCommand } from '../../../src/cli/commands/eval';
import { isMetricName, METRIC } from '../../../src/metrics/names';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { resolveConfig, type RlConfig } from '../../../src/rl/config-validate';
import { grpoStep } from '../../../src/rl/grpo-trainer';
import { composeHooks, customReward } from '../../../src/rl/hooks';
import { nodeRecorder, openRun, type OpenRun } from '../../../src/run/rl-node-run';
import type { RolloutRecord } from '../../../src/rl/rollout-log';
import { resumePoint, runTraining, type RunResult } from '../../../src/run/rl-run';
import { rwStep } from '../../../src/rl/rw-trainer';
import { loadTrainState } from '../../../src/train/checkpoint';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const dir = mkdtempSync(join(tmpdir(), 'rl-grpo-'));
const out = join(dir, 'run');
const forced = '<tool_call>\n{"name": "python", "arguments": {"code": "print(6*7)"}}\n</tool_call></s>';
let cfg: RlConfig;
let run: OpenRun;
let result: RunResult;
const seen: Record<string, number>[] = [];

beforeAll(async () => {
  writeFileSync(join(dir, 'tasks.jsonl'), '{"task_id": "a", "question": "What is 6*7?", "answer": "42"}\n{"task_id": "b", "question": "What is 5+5?", "answer": "10"}\n');
  cfg = resolveConfig({
    model: { path: join(STORIES_DIR, 'stories260K.bin'), quant: 'none', template: 'plain_no_tools' },
    data: { env: 'math', dataset: join(dir, 'tasks.jsonl') },
    env: { python_tool: true, system_prompt: 'Answer.' },   // a short prompt keeps the sequences short
    rollout: { batch_size: 2, group_size: 2, max_turns: 2, max_tokens: 480, max_new_tokens: 6, python_workers: 1, prefill: forced },
    grpo: { micro_batch_size: 3 },
    optim: { lr: 0.01 },
    lora: { rank: 4, alpha: 8 },
    train: { steps: 2, recompute: false },
    log: { out_dir: out, checkpoint_every: 1, print_examples: 0 },
  }, 'rl-grpo.test');
  // Mean sampling log-prob of the generated tokens: a continuous value, so groups have variance.
  const meanLogprob = customReward('mean_logprob', 1, (e) => {
    const lps = e.logprobs.filter((_, i) => e.mask[i] === 1);
    return lps.reduce((a, v) => a + v, 0) / Math.max(1, lps.length);
  });
  run = await openRun(cfg, { log: () => {}, hooks: { ...meanLogprob, on_step_end: (i) => { seen.push(i.metrics); } } });
  result = await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: nodeRecorder(out), baseModelName: 'stories260K' });
}, 240_000);

afterAll(async () => {
  await run?.close();
});

describe('GRPO end to end on stories260K with the python tool', () => {
  it('logs every computable anchor metric per step', () => {
    expect(result.history).toHaveLength(2);
    expect(seen).toEqual(result.history);
    const want = ['reward', 'reward_std', 'rewards/correctness/mean', 'rewards/mean_logprob/mean', 'rewards/mean_logprob/std', 'frac_reward_zero_std',
      'completions/mean_length', 'completions/max_length', 'completions/clipped_ratio', 'loss', 'policy_loss', 'entropy',
      'clip_ratio/low_mean', 'clip_ratio/high_mean', 'clip_ratio/region_mean', 'grad_norm', 'learning_rate',
      'tools/call_frequency', 'tools/failure_frequency', 'num_turns/mean', 'num_turns/max', 'step_time', 'num_tokens',
      'perf/tokens_per_s', 'perf/rollout_time', 'perf/train_time', 'perf/dispatches_per_step', 'perf/train_shared_rows_frac', 'gpu/bytes_in_use', 'gpu/peak_bytes'];
    for (const row of result.history) {
      console.log(`step ${row.step}: reward ${row.reward.toFixed(4)} loss ${row.loss.toExponential(3)} grad_norm ${row.grad_norm.toFixed(4)} entropy ${row.entropy.toFixed(3)} tools/call_frequency ${row['tools/call_frequency']} step_time ${row.step_time.toFixed(1)} s`);
      for (const k of want) expect(Number.isFinite(row[k]), k).toBe(true);
      for (const k of Object.keys(row)) if (k !== 'step') expect(isMetricName(k), k).toBe(true);
      expect(row['tools/call_frequency']).toBe(1);
      expect(row['tools/failure_frequency']).toBe(0);
      expect(row.grad_norm).toBeGreaterThan(0);
      expect(row[METRIC.learning_rate.name]).toBeCloseTo(0.01);
      // Each pair's prompt runs once in the micro-batch holding both episodes.
      console.log(`step ${row.step}: perf/train_shared_rows_frac ${row['perf/train_shared_rows_frac'].toFixed(3)}`);
      expect(row['perf/train_shared_rows_frac']).toBeGreaterThan(0);
      expect(row['perf/train_shared_rows_frac']).toBeLessThan(0.5);
    }
    expect(result.history[1].num_tokens).toBeGreaterThan(result.history[0].num_tokens);
  });

  it('samples each step\'s rollouts with the adapter merged into the f32 weights, and trains on the separate path', () => {
    // One merge per step (the adapter changed since the last), none left for the training passes.
    expect(run.ctx.model.loraMerges).toBe(result.history.length);
    expect(run.ctx.model.loraMerged).toBe(false);
  });

  it('writes metrics.jsonl, rollouts.jsonl with tool output masked, checkpoints and the adapter', async () => {
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
    const eps = readFileSync(join(out, 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RolloutRecord);
    expect(eps).toHaveLength(2 * 2 * 2);
    const tok = run.model.loaded.tokenizer;
    const response = tok.encode('\ntool: 42\nassistant:', { addSpecialTokens: false });
    for (const e of eps) {
      expect(e.tool_calls.map((c) => [c.name, c.ok])).toEqual([['python', true]]);
      // The conversation as the agent loop saw it (TRL conversational): the forced call, the tool's answer.
      expect(e.messages!.slice(0, 4).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
      expect(e.messages![2].tool_calls).toEqual([{ type: 'function', function: { name: 'python', arguments: { code: 'print(6*7)' } } }]);
      expect(e.messages![3]).toMatchObject({ role: 'tool', name: 'python', content: '42' });
      expect(e.reward.parts.mean_logprob).toBeLessThanOrEqual(0);
      expect(typeof e.advantage).toBe('number');
      e.mask.forEach((m, i) => expect(m === 1 ? Number.isFinite(e.logprobs[i]) : e.logprobs[i] === null).toBe(true));
      if (e.task_id === 'a') {
        const stop = e.tokens.indexOf(2);
        expect(e.tokens.slice(stop + 1, stop + 1 + response.length)).toEqual(response);
        expect(e.mask.slice(0, stop + 1 + response.length).every((m) => m === 0)).toBe(true);   // prompt, forced call, tool output
        expect(e.mask.indexOf(1)).toBe(stop + 1 + response.length);
      }
    }
    for (const s of [1, 2]) expect(existsSync(join(out, 'checkpoints', `step-${s}`, 'state.json'))).toBe(true);
    const st = await loadTrainState(new NodeDirSource(join(out, 'checkpoints', 'step-2')), run.model.model.cfg);
    expect(resumePoint(st)).toMatchObject({ step: 2, sampler: { epoch: expect.any(Number) as number } });
    const adapter = await readPeftAdapter(new NodeDirSource(join(out, 'adapter')), run.model.loaded.config);
    let maxB = 0;
    for (const p of adapter!.pairs.values()) for (const v of p.B) maxB = Math.max(maxB, Math.abs(v));
    console.log(`adapter: max |lora_B| after 2 steps ${maxB.toExponential(3)} (fresh: 0)`);
    expect(maxB).toBeGreaterThan(0);
  });

  it('makes no update when every group has zero reward variance (beta 0), and says why', async () => {
    const before = await run.ctx.trainer.exportLora();
    const flat = { on_rollout_end: (i: { rewards: { return: number }[] }) => { i.rewards.forEach((r) => { r.return = 0.5; }); } };
    const step = await grpoStep({ ...run.ctx, hooks: composeHooks(flat) }, run.tasks, 7);
    const after = await run.ctx.trainer.exportLora();
    console.log(`zero-variance step: ${step.note}`);
    expect(step.updated).toBe(false);
    expect(step.metrics.frac_reward_zero_std).toBe(1);
    expect(step.metrics.loss).toBe(0);
    expect(step.note).toMatch(/zero reward variance/);
    for (const [k, p] of before.pairs) {
      expect(after.pairs.get(k)!.A).toEqual(p.A);
      expect(after.pairs.get(k)!.B).toEqual(p.B);
    }
  }, 120_000);

  it('runs an RLOO step: leave-one-out advantages reach the loss and the adapter updates', async () => {
    const fixed = [1, 0, 0.5, 0.5];
    const set = { on_rollout_end: (i: { rewards: { return: number }[] }) => { i.rewards.forEach((r, k) => { r.return = fixed[k]; }); } };
    const rloo = await grpoStep({ ...run.ctx, cfg: { ...cfg, grpo: { ...cfg.grpo, advantage: 'rloo' } }, hooks: composeHooks(set) }, run.tasks, 9);
    console.log(`rloo step: advantages ${JSON.stringify(rloo.advantages)} loss ${rloo.metrics.loss.toExponential(3)} grad_norm ${rloo.metrics.grad_norm.toFixed(4)}`);
    expect(rloo.advantages).toEqual([1, -1, 0, 0]);   // G = 2: r - the other one
    expect(rloo.updated).toBe(true);
    expect(rloo.metrics.grad_norm).toBeGreaterThan(0);
  }, 120_000);

  it('runs a rejection-sampling step on the kept episodes (threshold below every reward: all kept)', async () => {
    const ctx = { ...run.ctx, cfg: { ...cfg, trainer: 'rejection_sampling' as const, rejection: { threshold: -1e9, epochs: 1 } } };
    const step = await rwStep(ctx, run.tasks, 8);
    console.log(`rejection sampling: loss ${step.metrics.loss.toFixed(4)} grad_norm ${step.metrics.grad_norm.toFixed(4)}`);
    expect(step.updated).toBe(true);
    expect(step.metrics.loss).toBeGreaterThan(0);
  }, 120_000);

  it('eval reports accuracy and pass@k from the CLI, with the trained adapter', async () => {
    const chunks: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => { chunks.push(String(s)); return true; });
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await evalCommand.run(parseArgs(['--config', 'configs/stories_grpo.yaml', '--model', join(STORIES_DIR, 'stories260K.bin'), '--adapter', join(out, 'adapter'),
        '--samples', '2', '--tasks', '2', '--set', 'eval.temperature=1', '--set', 'rollout.max_new_tokens=8']));
      expect(code).toBe(0);
    } finally {
      spy.mockRestore();
      err.mockRestore();
    }
    const r = JSON.parse(chunks.join('').trim()) as Record<string, number>;
    console.log(`eval: ${JSON.stringify(r)}`);
    expect(r.tasks).toBe(2);
    expect(r['eval/accuracy']).toBeGreaterThanOrEqual(0);
    expect(r['eval/accuracy']).toBeLessThanOrEqual(1);
    expect(r['eval/pass@2']).toBeGreaterThanOrEqual(r['eval/accuracy']);
    expect(Number.isFinite(r['eval/reward'])).toBe(true);
  }, 120_000);
});
