// A custom environment named by module path (data.env_module): the CLI's loader imports
// tests/fixtures/envs/keyword-env.ts through tsx, its tasks come from data.dataset, and one real
// GRPO step runs on stories260K with its rewards in rollouts.jsonl. A module without a default
// factory, a missing file and a config without data.dataset fail with errors naming the fix.
// Run: npx vitest run tests/unit/rl/rl-custom-env.test.ts
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomEnvironment } from '../../../src/envs/node-custom-module';
import { ConfigError, resolveConfig, type RlConfig } from '../../../src/rl/config-validate';
import { startEnvServices } from '../../../src/rl/env-services';
import { customReward } from '../../../src/rl/hooks';
import { nodeRecorder, openRun, type OpenRun } from '../../../src/run/rl-node-run';
import type { RolloutRecord } from '../../../src/rl/rollout-log';
import { runTraining, type RunResult } from '../../../src/run/rl-run';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const dir = mkdtempSync(join(tmpdir(), 'rl-custom-env-'));
const out = join(dir, 'run');
const MODULE = 'tests/fixtures/envs/keyword-env.ts';
let cfg: RlConfig;
let run: OpenRun;
let result: RunResult;

beforeAll(async () => {
  writeFileSync(join(dir, 'tasks.jsonl'), '{"task_id": "cat", "keyword": "cat"}\n{"keyword": "the"}\n');
  cfg = resolveConfig({
    model: { path: join(STORIES_DIR, 'stories260K.bin'), quant: 'none', template: 'plain' },
    data: { env_module: MODULE, dataset: join(dir, 'tasks.jsonl') },
    rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 128, max_new_tokens: 8, prefill: 'Once upon a time' },
    optim: { lr: 0.01 },
    lora: { rank: 4, alpha: 8 },
    train: { steps: 1, recompute: false },
    log: { out_dir: out, checkpoint_every: 0, print_examples: 0 },
  }, 'rl-custom-env.test');
  // Keyword rewards of 8 tokens are mostly equal; the mean log-prob gives the groups variance.
  const meanLogprob = customReward('mean_logprob', 1, (e) => {
    const lps = e.logprobs.filter((_, i) => e.mask[i] === 1);
    return lps.reduce((a, v) => a + v, 0) / Math.max(1, lps.length);
  });
  run = await openRun(cfg, { log: () => {}, hooks: meanLogprob, tune: false });
  result = await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: nodeRecorder(out), baseModelName: 'stories260K' });
}, 240_000);

afterAll(async () => {
  await run?.close();
});

describe('data.env_module', () => {
  it('runs a GRPO step with the module\'s environment, tasks from data.dataset and its rewards', () => {
    expect(run.ctx.env.name).toBe('keyword');
    expect(run.tasks.map((t) => t.task_id)).toEqual(['cat', 'line-2']);
    const row = result.history[0];
    console.log(`custom env step 1: reward ${row.reward.toFixed(4)} loss ${row.loss.toExponential(3)} grad_norm ${row.grad_norm.toFixed(4)} rewards/keyword/mean ${row['rewards/keyword/mean']}`);
    expect(result.history).toHaveLength(1);
    expect(Number.isFinite(row['rewards/keyword/mean'])).toBe(true);
    expect(row.grad_norm).toBeGreaterThan(0);
    const eps = readFileSync(join(out, 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RolloutRecord);
    expect(eps).toHaveLength(4);
    for (const e of eps) {
      const keyword = e.task_id === 'cat' ? 'cat' : 'the';
      expect(e.messages![0]).toMatchObject({ role: 'user', content: `Tell a story about ${keyword}.` });
      const said = e.messages!.filter((m) => m.role === 'assistant').map((m) => m.content).join('\n');
      expect(said.startsWith('Once upon a time')).toBe(true);
      expect(e.reward.parts.keyword).toBe(said.includes(keyword) ? 1 : 0);
      expect(e.reward.parts.length).toBe(said.length);
    }
  });

  it('refuses a module without a default factory, naming the file and what to export', async () => {
    const file = resolve('tests/fixtures/envs/not-a-factory.ts');
    await expect(createCustomEnvironment('tests/fixtures/envs/not-a-factory.ts', { services: {}, weights: {} }))
      .rejects.toThrow(`data.env_module: ${file} must have a default export \`(ctx) => Environment\``);
    await expect(createCustomEnvironment('tests/fixtures/envs/not-a-factory.ts', { services: {}, weights: {} })).rejects.toThrow('(exports: env)');
    await expect(createCustomEnvironment('tests/fixtures/envs/nope.ts', { services: {}, weights: {} })).rejects.toThrow(`${resolve('tests/fixtures/envs/nope.ts')} does not exist`);
  });

  it('needs data.dataset', () => {
    expect(() => resolveConfig({ model: { path: 'm' }, data: { env_module: MODULE } }, 'c.yaml')).toThrow(ConfigError);
    expect(() => resolveConfig({ model: { path: 'm' }, data: { env_module: MODULE } }, 'c.yaml')).toThrow('c.yaml: data.env_module is tests/fixtures/envs/keyword-env.ts but data.dataset is null');
  });

  it('is refused where modules cannot be loaded (the engine worker has no loadCustomEnv)', async () => {
    const make = { createPool: () => { throw new Error('no pool expected'); }, readText: () => Promise.reject(new Error('no file expected')) };
    await expect(startEnvServices(cfg, make)).rejects.toThrow(`data.env_module ${MODULE}: a custom env module loads only in the CLI`);
  });
});
