// The TRL bundle as `export --format trl` writes it, for every shipped preset: rows carry the
// environment's own prompts, reward columns and tool schemas; the GRPOConfig mapping keeps the
// batch arithmetic; every Python file compiles (train_grpo.py cannot run here: no TRL) and the
// rest runs under /usr/bin/python3: reward_config.json matches the reward file's parts, verl's
// compute_score equals our env on single-turn answers, and tools.py's BM25 ranks the corpus as
// ours does. Also checks the adapter copy and the command's errors.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/util/args';
import { trlBundleCommand as command } from '../../../src/cli/commands/export-trl';
import type { AgentTask, MathTask, SearchQaTask } from '../../../src/data/schemas';
import { perDeviceBatch } from '../../../src/export/trl/config-map';
import { PPO_REFUSAL } from '../../../src/export/trl/bundle';
import { exportServices } from '../../../src/export/trl/services';
import { createEpisodeState, finishEpisode, stepEnvironment } from '../../../src/envs';
import { parseConfig } from '../../../src/rl/config-validate';
import { buildEnvironment } from '../../../src/rl/env-factory';
import { loadTasksFor } from '../../../src/run/rl-node-run';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';

const PYTHON = '/usr/bin/python3';
const ADAPTER = 'tests/fixtures/goldens/tiny-qwen2-lora';
let work: string;

async function exportPreset(preset: string, extra: string[] = []): Promise<string> {
  const out = join(work, preset.replace(/\W/g, '_'));
  const code = await command.run(parseArgs(['--config', `configs/${preset}.yaml`, '--out', out, '--set', 'data.max_tasks=40', ...extra]));
  expect(code).toBe(0);
  return out;
}

const readJsonl = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const py = (cwd: string, code: string) => execFileSync(PYTHON, ['-c', code], { cwd, encoding: 'utf8' });

describe.skipIf(!existsSync(PYTHON))('export-trl bundle', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'trl-bundle-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('math: rows, config mapping, adapter copy, python files compile and the reward file agrees with reward_config.json', async () => {
    const out = await exportPreset('gsm8k_grpo', ['--adapter', ADAPTER, '--gpus', '4', '--set', 'log.keep_checkpoints=2']);
    const cfg = parseConfig(readFileSync('configs/gsm8k_grpo.yaml', 'utf8'), 'gsm8k', { sets: ['data.max_tasks=40'] });
    const env = buildEnvironment(cfg, exportServices(null));
    const tasks = loadTasksFor(cfg, 'train', () => {}) as MathTask[];
    const rows = readJsonl(join(out, 'data/train.jsonl'));
    expect(rows.length).toBe(40);
    expect(rows[3].prompt).toEqual(env.initialMessages(tasks[3]));
    expect(rows[3].answer).toBe(tasks[3].answer);
    expect(JSON.parse(rows[3].tools as string)).toEqual(env.tools().map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })));
    const g = JSON.parse(readFileSync(join(out, 'grpo_config.json'), 'utf8')) as Record<string, number | string | boolean>;
    expect(g.num_generations).toBe(cfg.rollout.group_size);
    expect((g.per_device_train_batch_size as number) * (g.gradient_accumulation_steps as number) * 4).toBe(cfg.rollout.batch_size * cfg.rollout.group_size);
    expect([g.loss_type, g.epsilon, g.epsilon_high, g.max_steps, g.mask_truncated_completions, g.max_tool_calling_iterations]).toEqual(['dapo', 0.2, 0.28, 200, true, 2]);
    expect(g.lr_scheduler_type).toBe('constant_with_warmup');
    expect(g.save_total_limit).toBe(2); // log.keep_checkpoints
    for (const f of readdirSync(ADAPTER)) expect(readFileSync(join(out, 'adapter', f))).toEqual(readFileSync(join(ADAPTER, f)));
    const md = readFileSync(join(out, 'CONFIG_MAP.md'), 'utf8');
    expect(md).toContain('| `grpo.filter_zero_std` | — | — |');
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('accelerate launch --num_processes 4 train_grpo.py');
    expect(readme).toContain('trainer.max_actor_ckpt_to_keep=2');
    expect(readme).toContain('Not a direct map for this environment: it uses tools (python)');
    // Everything Python: compiles; the reward file's parts are reward_config.json's; weights and settings load.
    execFileSync(PYTHON, ['-m', 'py_compile', ...readdirSync(out).filter((f) => f.endsWith('.py')), 'verl/to_parquet.py'], { cwd: out });
    const check = py(out, `import json, reward_math as r
c = json.load(open("reward_config.json"))
r.configure(weights=c["weights"], **c["config"])
print(json.dumps([r.PARTS, [f.__name__ for f in r.REWARD_FUNCS], c["parts"], r.CONFIG["answer_format"]]))`);
    const [parts, names, cfgParts, fmt] = JSON.parse(check) as [string[], string[], string[], string];
    expect(names).toEqual(parts);
    expect(cfgParts).toEqual(parts);
    expect(fmt).toBe('boxed');
    // The python tool TRL would call: output, failures as "Error: ..." (what the reward files count), our description.
    const tool = JSON.parse(py(out, `import json, tools, rl_common
row = json.loads(open("data/train.jsonl").readline())
[fn] = tools.tools_for(row["tools"])
ok, bad = fn(code="print(6 * 7)"), fn(code="1/0")
print(json.dumps([ok, bad.splitlines()[-1], rl_common.tool_failed({"content": bad}), rl_common.tool_failed({"content": ok}), fn.__doc__.splitlines()[0]]))`)) as [string, string, boolean, boolean, string];
    expect(tool).toEqual(['42', 'ZeroDivisionError: division by zero', true, false, env.tools()[0].description]);
  }, 60_000);

  it('verl: compute_score on verl rows equals our env grading the same single-turn answers (math); story rows', async () => {
    const out = await exportPreset('gsm8k_grpo');
    const cfg = parseConfig(readFileSync('configs/gsm8k_grpo.yaml', 'utf8'), 'gsm8k', { sets: ['data.max_tasks=40'] });
    const env = buildEnvironment(cfg, exportServices(null));
    const tasks = loadTasksFor(cfg, 'train', () => {}) as MathTask[];
    const answers = tasks.map((t, i) => [`\\boxed{${t.answer}}`, `#### ${t.answer}`, `\\boxed{${Number(t.answer) + 1}}`, 'no idea'][i % 4]);
    const got = JSON.parse(py(out, `import json, verl_reward
rows = [json.loads(l) for l in open("verl/train.jsonl")]
answers = json.loads(${JSON.stringify(JSON.stringify(answers))})
print(json.dumps([verl_reward.compute_score(r["data_source"], a, r["reward_model"]["ground_truth"], r["extra_info"]) for r, a in zip(rows, answers)]))`)) as Record<string, number>[];
    for (const [i, t] of tasks.entries()) {
      const transcript = [...env.initialMessages(t), { role: 'assistant' as const, content: answers[i] }];
      const state = createEpisodeState(`e${i}`);
      await stepEnvironment(env, t, state, answers[i], []);
      const r = await finishEpisode(env, t, state, transcript);
      expect(got[i].score).toBe(r.return);
      for (const [part, v] of Object.entries(r.parts)) expect(got[i][part]).toBe(v);
    }
    const sOut = await exportPreset('stories_grpo');
    const verlStory = readJsonl(join(sOut, 'verl/train.jsonl'));
    expect(verlStory[0].data_source).toBe('rl_studio/story');
    expect(readFileSync(join(sOut, 'README.md'), 'utf8')).toContain('The config maps directly for this environment');
  }, 60_000);

  it('agent: the default agent\'s bundle carries reward_agent.py with the checks it reuses, the agent corpus and k = 1', async () => {
    const out = await exportPreset('agent_grpo');
    const cfg = parseConfig(readFileSync('configs/agent_grpo.yaml', 'utf8'), 'agent', { sets: ['data.max_tasks=40'] });
    const tasks = loadTasksFor(cfg, 'train', () => {}) as AgentTask[];
    const rows = readJsonl(join(out, 'data/train.jsonl'));
    expect(rows.map((r) => [r.family, r.answer])).toEqual(tasks.map((t) => [t.family, t.answer]));
    expect(readFileSync(join(out, 'corpus.jsonl'), 'utf8')).toBe(readFileSync('datasets/agent_corpus.jsonl', 'utf8'));
    const rc = JSON.parse(readFileSync(join(out, 'reward_config.json'), 'utf8')) as { module: string; parts: string[]; tools: { search_k: number } };
    expect([rc.module, rc.parts, rc.tools.search_k]).toEqual(['reward_agent', ['correctness', 'format', 'tool_use', 'tool_errors'], 1]);
    execFileSync(PYTHON, ['-m', 'py_compile', ...readdirSync(out).filter((f) => f.endsWith('.py'))], { cwd: out });
    // verl grades single-turn answers (no tool ran): correctness and format only.
    const got = JSON.parse(py(out, `import json, verl_reward
rows = [json.loads(l) for l in open("verl/train.jsonl")][:2]
print(json.dumps([verl_reward.compute_score(r["data_source"], "<answer>" + r["extra_info"]["answer"] + "</answer>", r["reward_model"]["ground_truth"], r["extra_info"]) for r in rows]))`)) as Record<string, number>[];
    for (const g of got) expect([g.correctness, g.format, g.tool_use]).toEqual([1, 1, 0]);
  }, 60_000);

  it('search_qa: tools.py search ranks the corpus as our CorpusSearch and shows the same text', async () => {
    const out = await exportPreset('search_qa_grpo');
    const docs = parseCorpusJsonl(readFileSync('datasets/squad_corpus.jsonl', 'utf8'));
    const ours = new CorpusSearch(docs);
    const cfg = parseConfig(readFileSync('configs/search_qa_grpo.yaml', 'utf8'), 'sq', { sets: ['data.max_tasks=40'] });
    const tasks = loadTasksFor(cfg, 'train', () => {}) as SearchQaTask[];
    const queries = [...tasks.map((t) => t.question), 'Café Broncos', 'studies of the ionic compounds', 'x'];
    const theirs = JSON.parse(py(out, `import json, tools
tools.load_corpus("corpus.jsonl")
qs = json.loads(${JSON.stringify(JSON.stringify(queries))})
print(json.dumps([[tools._corpus["docs"][d]["id"] for d, _ in tools._corpus["index"].search(q, 5)] for q in qs] + [tools.search(qs[0])]))`)) as unknown[];
    let same = 0;
    for (const [i, q] of queries.entries()) if (JSON.stringify(ours.rank(q, 5)) === JSON.stringify(theirs[i])) same++;
    console.log(`tools.py BM25: top-5 identical for ${same}/${queries.length} queries`);
    expect(same).toBe(queries.length);
    const { formatResults } = await import('../../../src/tools/search/types');
    expect(theirs[queries.length]).toBe(formatResults(await ours.search(queries[0], 3)));
    const rows = readJsonl(join(out, 'data/train.jsonl'));
    expect(rows[0].answers).toEqual(tasks[0].answers);
  }, 60_000);

  it('the mapping refuses what it cannot keep and names the fix', async () => {
    const cfg = parseConfig(readFileSync('configs/code_exec_grpo.yaml', 'utf8'), 'code');
    expect(() => perDeviceBatch(cfg, 5)).toThrow(/32 completions per step do not split over 5 GPUs; pick --gpus dividing 32/);
    expect(perDeviceBatch(cfg, 8)).toEqual({ perDevice: 2, accumulation: 2 });
    await expect(command.run(parseArgs(['--config', 'configs/code_exec_grpo.yaml', '--out', join(work, 'x'), '--adapter', 'configs']))).rejects.toThrow(/--adapter configs: no adapter_config.json in configs/);
    await expect(command.run(parseArgs(['--config', 'configs/rejection_stories.yaml', '--out', join(work, 'y')]))).rejects.toThrow(/set trainer: grpo/);
  });

  it('refuses trainer: ppo and says why and what to use instead', async () => {
    const ppo = join(work, 'ppo.yaml');
    writeFileSync(ppo, `trainer: ppo\n${readFileSync('configs/code_exec_grpo.yaml', 'utf8')}`);
    const out = join(work, 'ppo-out');
    const err = await command.run(parseArgs(['--config', ppo, '--out', out])).then(() => null, (e: Error) => e);
    expect(err?.message).toBe(PPO_REFUSAL);
    for (const why of [/reward_model/, /value_model/, /per-turn rewards/, /own trunk/, /train --resume/, /set trainer: grpo/, /--adapter RUN_DIR\/adapter/]) expect(err?.message).toMatch(why);
    expect(existsSync(join(out, 'README.md'))).toBe(false);
  });
});
