// The RL config's one validation place: errors name the file, the field, the value and the fix;
// unknown keys get a did-you-mean; --set overrides are type-checked; every preset in configs/
// validates (with --model for those that need a bigger model); the README documents every field.
// No GPU. Run: npx vitest run tests/unit/rl/rl-config.test.ts
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configFieldTable, DEFAULT_CONFIG, FIELDS, getPath, parseConfig } from '../../../src/rl/config-validate';
import { tasksFromText } from '../../../src/rl/env-factory';
import { StoryEnv, mentions } from '../../../src/envs/story/env';

const base = 'model:\n  path: ../shared/models/stories260K/stories260K.bin\n';

describe('RL config validation', () => {
  it('names the field, the bad value and the allowed values', () => {
    expect(() => parseConfig(`${base}grpo:\n  loss_type: mean\n`, 'configs/x.yaml'))
      .toThrow('configs/x.yaml: grpo.loss_type is "mean"; use token-mean, seq-mean-token-mean or seq-mean-token-sum-norm');
    expect(() => parseConfig(`${base}rollout:\n  group_size: 0\n`, 'c.yaml')).toThrow('c.yaml: rollout.group_size is 0; use an integer >= 1');
    expect(() => parseConfig(`${base}grpo:\n  epsilon_low: 1.5\n`, 'c.yaml')).toThrow('grpo.epsilon_low is 1.5; use a number > 0 and < 1');
    expect(parseConfig(`${base}grpo:\n  advantage: rloo\n`, 'c.yaml').grpo.advantage).toBe('rloo');
    expect(() => parseConfig(`${base}grpo:\n  advantage: ppo\n`, 'c.yaml')).toThrow('grpo.advantage is "ppo"; use grpo, rloo, reinforce_pp or reinforce_pp_baseline');
    expect(() => parseConfig(`${base}grpo:\n  advantage: reinforce_pp\n  scale_rewards: none\n`, 'c.yaml'))
      .toThrow('grpo.scale_rewards is "none" but grpo.advantage is "reinforce_pp", which fixes its own scaling');
    expect(() => parseConfig(`${base}lora:\n  targets: [q, qq]\n`, 'c.yaml')).toThrow('"qq" is not one of q, k, v, o, gate, up, down');
  });

  it('rejects unknown keys and sections with a did-you-mean', () => {
    expect(() => parseConfig(`${base}grpo:\n  betta: 0.1\n`, 'c.yaml')).toThrow('c.yaml: unknown field grpo.betta; did you mean grpo.beta?');
    expect(() => parseConfig(`${base}rolout:\n  group_size: 4\n`, 'c.yaml')).toThrow('unknown section rolout; did you mean rollout?');
    expect(() => parseConfig(`${base}grpo:\n  num_iteration: 2\n`, 'c.yaml')).toThrow('did you mean grpo.num_iterations?');
  });

  it('type-checks --set overrides and applies them after the file', () => {
    const c = parseConfig(`${base}grpo:\n  beta: 0.1\n`, 'c.yaml', { sets: ['grpo.beta=0.04', 'grpo.filter_zero_std=true', 'data.story_words=[a, b]'] });
    expect(c.grpo.beta).toBe(0.04);
    expect(c.grpo.filter_zero_std).toBe(true);
    expect(c.data.story_words).toEqual(['a', 'b']);
    expect(() => parseConfig(base, 'c.yaml', { sets: ['grpo.beta=abc'] })).toThrow('--set grpo.beta=abc: grpo.beta is "abc"; use a number >= 0');
    expect(() => parseConfig(base, 'c.yaml', { sets: ['grpo.mask_truncated=true'] })).toThrow('did you mean grpo.mask_truncated_completions?');
    expect(() => parseConfig(base, 'c.yaml', { sets: ['grpo.beta'] })).toThrow('expected key=value');
    expect(() => parseConfig(base, 'c.yaml', { sets: ['rollout.group_size=2.5'] })).toThrow('rollout.group_size is 2.5; use an integer >= 1');
  });

  it('checks rules between fields', () => {
    expect(() => parseConfig('rollout:\n  group_size: 4\n', 'c.yaml')).toThrow('model.path is empty; set it in the config or pass --model DIR');
    expect(() => parseConfig(`${base}lora:\n  mode: full\n`, 'c.yaml')).toThrow('set model.quant: none');
    expect(() => parseConfig(`${base}rollout:\n  group_size: 1\n`, 'c.yaml')).toThrow('use 2 or more');
    expect(() => parseConfig(`${base}eval:\n  samples: 4\n`, 'c.yaml')).toThrow('set eval.temperature > 0');
    expect(() => parseConfig(`model:\n  path: m.bin\n  quant: none\n  adapter: runs/sft/adapter\nlora:\n  mode: full\n`, 'c.yaml'))
      .toThrow('c.yaml: model.adapter is runs/sft/adapter but lora.mode is "full"; an adapter starts a LoRA policy: set lora.mode: lora');
    expect(() => parseConfig(`${base}env:\n  max_attempts: 2\n`, 'c.yaml')).toThrow('env.max_attempts is 2 but data.env is "math"; test feedback and retries exist for code_exec only');
    expect(() => parseConfig(`${base}data:\n  env: code_exec\nenv:\n  max_attempts: 3\nrollout:\n  max_turns: 2\n`, 'c.yaml'))
      .toThrow('env.max_attempts (3) is above rollout.max_turns (2); every attempt is one assistant turn: raise max_turns to at least 3');
    expect(parseConfig(`${base}data:\n  env: code_exec\nenv:\n  max_attempts: 2\n  attempt_penalty: 0.2\n`, 'c.yaml').env).toMatchObject({ max_attempts: 2, attempt_penalty: 0.2 });
    expect(parseConfig(base, 'c.yaml', { model: 'other.bin', seed: 7, out: '/tmp/x' })).toMatchObject({ model: { path: 'other.bin' }, train: { seed: 7 }, log: { out_dir: '/tmp/x' } });
  });

  it('validates every preset in configs/ (Qwen presets with --model)', () => {
    const files = readdirSync('configs').filter((f) => f.endsWith('.yaml') && f !== 'search.example.yaml');
    expect(files).toEqual(expect.arrayContaining(['gsm8k_grpo.yaml', 'code_exec_grpo.yaml', 'search_qa_grpo.yaml', 'sft.yaml', 'stories_grpo.yaml']));
    for (const f of files) {
      const c = parseConfig(readFileSync(`configs/${f}`, 'utf8'), `configs/${f}`, { model: 'tiny.bin' });
      console.log(`configs/${f}: trainer ${c.trainer}, env ${c.data.env}, B=${c.rollout.batch_size} G=${c.rollout.group_size}`);
      // presets override only what differs, each with a reason comment
      for (const line of readFileSync(`configs/${f}`, 'utf8').split('\n')) {
        const m = /^\s+(\w+):\s*(\S.*)$/.exec(line);
        if (m && !m[2].startsWith('#')) expect(line, `configs/${f}: "${line.trim()}" needs a # reason`).toMatch(/#/);
      }
    }
    const stories = parseConfig(readFileSync('configs/stories_grpo.yaml', 'utf8'), 'configs/stories_grpo.yaml');
    expect(stories.model.path).toBe('public/models/stories260K'); // the shipped copy, not ../shared
  });

  it('documents every field once, in FIELDS, the table and README.md', () => {
    const leaves: string[] = [];
    const walk = (o: Record<string, unknown>, prefix: string) => {
      for (const [k, v] of Object.entries(o)) {
        const p = prefix ? `${prefix}.${k}` : k;
        if (typeof v === 'object' && v !== null && !Array.isArray(v) && !FIELDS[p]) walk(v as Record<string, unknown>, p);
        else leaves.push(p);
      }
    };
    walk(DEFAULT_CONFIG as unknown as Record<string, unknown>, '');
    expect(leaves.sort()).toEqual(Object.keys(FIELDS).sort());
    const table = configFieldTable();
    const readme = readFileSync('README.md', 'utf8');
    for (const f of Object.keys(FIELDS)) {
      expect(getPath(DEFAULT_CONFIG, f)).not.toBeUndefined();
      expect(table).toContain(`| \`${f}\` |`);
      expect(readme, `README.md lacks ${f}: paste configFieldTable() into "Training with RL"`).toContain(`| \`${f}\` |`);
    }
    expect(readme).toContain(table);
  });
});

describe('story environment', () => {
  it('rewards a whole-word mention and builds tasks from the word list', async () => {
    expect(mentions('The Dog ran.', 'dog')).toBe(true);
    expect(mentions('The doghouse.', 'dog')).toBe(false);
    const c = parseConfig(`${base}data:\n  env: story\n  story_words: [dog, cat]\n  story_target_words: 4\n`, 'c.yaml');
    const tasks = tasksFromText(c, null, 'story');
    expect(tasks.map((t) => (t as unknown as { word: string }).word)).toEqual(['dog', 'cat']);
    const env = new StoryEnv({ weights: { mentions: 1, length: 0.5 } });
    const r = env.grade({ task_id: 't', metadata: {}, word: 'dog', target_words: 4 }, 'a dog ran far');
    expect(r.parts).toEqual({ mentions: 1, length: 1 });
    expect(r.total).toBe(1.5);
  });
});
