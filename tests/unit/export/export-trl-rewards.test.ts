// The bundle's Python reward files against our environments: for each shipped environment, 500
// episodes (code_exec 150) run through the real agent loop (Qwen2.5 tokenizer and chat template, the real Pyodide
// pool, the real corpus search; only the sampler is scripted) with right, wrong and malformed
// answers and tool calls; exportRollout writes them as TRL rows, one /usr/bin/python3 process per
// environment scores them with reward_<env>.py, and every part and the total must be identical.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSpecs } from '../../../src/agents/gpu-rollout';
import { runEpisodes } from '../../../src/agents/loop';
import { TurnRenderer } from '../../../src/agents/turn-render';
import type { AgentTask, CodeTask, MathTask, SearchQaTask, Task } from '../../../src/data/schemas';
import { envRollout } from '../../../src/envs/rollout';
import { storyTasks, type StoryTask } from '../../../src/envs/story/env';
import type { EnvServices } from '../../../src/envs';
import type { Environment } from '../../../src/envs/types';
import { exportRollout, type ExportedRollout, type TrlEnvName } from '../../../src/export/trl/rows';
import { PYTHON_DIR } from '../../../src/export/trl/python-files';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadTokenizer, type Tokenizer } from '../../../src/model/tokenizer';
import { parseConfig, type RlConfig } from '../../../src/rl/config-validate';
import { buildEnvironment } from '../../../src/rl/env-factory';
import { loadTasksFor } from '../../../src/run/rl-node-run';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';
import { sharedPath } from '../../fixtures/shared';
import { ScriptedStepper } from '../../fixtures/scripted-stepper';

const DIR = sharedPath('models/qwen2.5-tokenizer');
const PYTHON = '/usr/bin/python3';
const END = '<|im_end|>';
const N = 500;
/**
 * code_exec grades each episode by running MBPP's tests, in Pyodide and in a python3 process (about
 * 75 ms a rollout): 150 rollouts still give each of its 15 answer cases 10 tasks.
 */
const N_CODE = 150;

const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** Assistant turns of episode i for a math task: a cycle of right, wrong and malformed cases. */
function mathTurns(t: MathTask, i: number): string[] {
  const a = t.answer, n = Number(a);
  const cases: string[][] = [
    [`So the total is \\boxed{${a}}.`],
    [`I think it is \\boxed{${n + 1}}.`],
    [`Adding up gives\n#### ${a}`],
    [`The answer is $${n.toLocaleString('en-US')}.`],
    [call('python', { code: `print(${a})` }), `Checked: \\boxed{${a}}`],
    [call('python', { code: '1/0' }), `It failed, so \\boxed{0}`],
    ['<tool_call>\n{"name": "python", "arguments": {"code": }\n</tool_call>', `\\boxed{${a}}`],
    [call('calculator', { expr: '2+2' }), `Fine: \\boxed{${a}}`],
    ['I am not sure how to solve this.'],
    ['<tool_call>{"name": "python"', `answer: ${a}`],
    [call('python', { code: 'print(1)' }), call('python', { code: 'print(2)' }), call('python', { code: 'print(3)' })],
    [`\\boxed{\\frac{${2 * n}}{2}}`],
    [`\\boxed{${a} dollars} and then 7`],
    [`\\boxed{-${a}}`],
    [call('python', { code: 'x = 5' }) + '\n' + call('python', { code: 'print(x)' }), `The answer is ${a}`],
    [`\\boxed{${a}`],
    [call('python', { code: 'import time; print("ok")' }) + ' and <tool_call>{"name": 1}</tool_call>', `\\boxed{${a}.0}`],
  ];
  return cases[i % cases.length];
}

/** A code_exec answer: reference, wrong, unfenced, broken, flooding, tool use first, ... */
function codeTurns(t: CodeTask, i: number, other: CodeTask): string[] {
  const ref = t.reference_solution;
  const cases: string[][] = [
    ['```python\n' + ref + '\n```'],
    ['```python\n' + other.reference_solution + '\n```'],
    ['Here:\n```\n' + ref + '\n```'],
    [ref],
    ['```python\ndef broken(:\n    pass\n```'],
    ['```python\nraise ValueError("no")\n```'],
    [call('python', { code: ref + '\nprint("defined")' }), '```python\n' + ref + '\n```'],
    ['<tool_call>\n{"name": "python", "arguments": {"code": }\n</tool_call>', '```python\n' + other.reference_solution + '\n```'],
    ['I cannot solve this.'],
    [''],
    ['```python\nprint("x" * 100000)\n' + ref + '\n```'],
    ['```python\n' + ref + '\nimport sys\nsys.exit(0)\n```'],
    ['```py\n' + ref + '\n```'],
    ['```python\nx = 1\n```\nbetter:\n```python\n' + ref + '\n```'],
    [call('python', { code: 'print(undefined_name)' }), '```python\n' + ref + '\n```'],
  ];
  return cases[i % cases.length];
}

function searchTurns(t: SearchQaTask, i: number): string[] {
  const g = t.answers[0];
  const q = { query: t.question };
  const cases: string[][] = [
    [call('search', q), `<answer>${g}</answer>`],
    [`<answer>${g}</answer>`],
    [call('search', q), '<answer>Paris</answer>'],
    [call('search', q), `The answer is ${g}.`],
    [call('search', q), `<answer>${g} and some more words here</answer>`],
    ['<tool_call>\n{"name": "search", "arguments": {"query": }\n</tool_call>', `<answer>${g}</answer>`],
    [call('search', { q: 'x' }), `<answer>${g}</answer>`],
    [call('search', q), '<answer></answer>'],
    [g],
    [call('search', q) + '\n' + call('search', { query: g }), `Answer: ${g.toUpperCase()}!!`],
    [call('search', q), call('search', q), call('search', q), call('search', q)],
    [`<answer>THE ${g}!</answer> <answer>an ${g.split(' ')[0]}</answer>`],
    [call('search', q), `<answer>Café ${g}</answer>`],
  ];
  return cases[i % cases.length];
}

function storyTurns(t: StoryTask, i: number): string[] {
  const w = t.word;
  const cases = [
    `Once upon a time a ${w} played in the park.`,
    'Once upon a time there was a little girl.',
    `The hot${w} was big.`,
    `${w.toUpperCase()}! said Tim.`,
    `Lily saw the ${w}'s hat. It was red and the sun was up and they all played.`,
    `a_${w}_b`,
    `${w}é`,
    '',
    `${w}`,
  ];
  return [cases[i % cases.length]];
}

/** An agent episode: right, wrong, malformed, no tool call, the other family's tool, several turns. */
function agentTurns(t: AgentTask, i: number): string[] {
  const a = t.answer;
  const meta = (t as AgentTask & { metadata?: { code?: string; query?: string } }).metadata ?? {};
  const own = t.family === 'calculator' ? call('python', { code: meta.code ?? `print(${a})` }) : call('search', { query: meta.query ?? t.question });
  const other = t.family === 'calculator' ? call('search', { query: t.question }) : call('python', { code: 'print(6 * 7)' });
  const wrong = t.family === 'calculator' ? String(Number(a) + 3) : 'Paris';
  const cases: string[][] = [
    [own, `<answer>${a}</answer>`],
    [`<answer>${a}</answer>`],
    [own, `<answer>${wrong}</answer>`],
    [own, `The answer is ${a}.`],
    [other, `<answer>${a}</answer>`],
    ['<tool_call>\n{"name": "python", "arguments": {"code": }\n</tool_call>', `<answer>${a}</answer>`],
    [call('calculator', { expr: a }), `<answer>${a}</answer>`],
    [own, '<answer></answer>'],
    [a],
    [own, own, other, `<answer> ${a.toUpperCase()}. </answer>`],
    [own, own, own, own],
    [call('python', { code: '1/0' }), `<answer>${a}</answer>`],
    [own + '\n' + other, `Answer: ${a}`],
    [`<answer>${wrong}</answer> then <answer>${a}</answer>`],
    [own, `<answer>${t.family === 'calculator' ? `${a}.0` : `The ${a}`}</answer>`],
    ['<tool_call>{"name": "search"', `<answer>${a}</answer>`],
    [call('search', { q: 'x' }), `<answer>${a}`],
  ];
  return cases[i % cases.length];
}

let tok: Tokenizer;
let template: string;
let work: string;
let pool: PythonPool;

interface Scored {
  parts: Record<string, number>;
  total: number;
  trl: Record<string, number | null>;
}

/** Runs the N episodes through the loop, exports them, scores them in Python; returns both sides. */
async function roundTrip(env: TrlEnvName, cfg: RlConfig, envObj: Environment<Task>, tasks: (Task | StoryTask)[], turns: (i: number) => string[]) {
  const r = envRollout(envObj, tasks as Task[], 1);
  const renderer = new TurnRenderer(tok, { tools: toolSpecs(r.registry), template });
  const scripts = tasks.map((_, i) => turns(i).flatMap((t) => tok.encode(t + END, { addSpecialTokens: false })));
  const t0 = performance.now();
  const batch = await runEpisodes({
    stepper: new ScriptedStepper(scripts.length, scripts), renderer, registry: r.registry, prompts: r.prompts,
    config: { temperature: 0, samplesPerPrompt: 1, maxTurns: cfg.rollout.max_turns, maxTokens: 8192, maxTokensPerTurn: 8192, toolTimeoutMs: 30_000 }, hooks: r.hooks,
  });
  const t1 = performance.now();
  const rewards = await r.rewards(batch.episodes);
  const t2 = performance.now();
  const rows: ExportedRollout[] = batch.episodes.map((e, i) =>
    exportRollout(env, tasks[e.promptIndex], e.messages, r.prompts[e.promptIndex].messages.length, e.toolCalls, rewards[i]));
  const file = join(work, `${env}.jsonl`);
  writeFileSync(file, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const out = execFileSync(PYTHON, ['tests/fixtures/trl/score_rollouts.py', PYTHON_DIR, env, file, JSON.stringify(envObj.weights)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  console.log(`${env}: agent loop ${(t1 - t0).toFixed(0)} ms, our rewards ${(t2 - t1).toFixed(0)} ms, python3 scoring ${(performance.now() - t2).toFixed(0)} ms`);
  const scored = out.trim().split('\n').map((l) => JSON.parse(l) as Scored);
  return { rows, scored, episodes: batch.episodes };
}

function compare(env: string, rows: ExportedRollout[], scored: Scored[]) {
  expect(scored.length).toBe(rows.length);
  let maxdiff = 0, mismatches = 0;
  const totals = new Map<number, number>();
  rows.forEach((row, i) => {
    const ours = row.reward, py = scored[i];
    const d = Math.abs(ours.total - py.total);
    maxdiff = Math.max(maxdiff, d);
    const same = d === 0 && JSON.stringify(sorted(ours.parts)) === JSON.stringify(sorted(py.parts));
    if (!same && mismatches++ < 5) console.log(`${env} ${row.task_id}: ours ${JSON.stringify(ours)} python ${JSON.stringify({ parts: py.parts, total: py.total })}\n${JSON.stringify(row.completion).slice(0, 600)}`);
    for (const [name, v] of Object.entries(py.trl)) expect(v, `${env} ${row.task_id} TRL function ${name}`).toBe(py.parts[name] ?? null);
    totals.set(ours.total, (totals.get(ours.total) ?? 0) + 1);
  });
  const spread = [...totals.entries()].sort((a, b) => a[0] - b[0]).map(([t, n]) => `${t.toFixed(3)}x${n}`).join(' ');
  console.log(`${env}: ${rows.length} rollouts, maxdiff(total) ${maxdiff}, mismatches ${mismatches}; totals ${spread}`);
  expect(mismatches).toBe(0);
  expect(totals.size).toBeGreaterThan(3); // a real mix of outcomes, not one repeated case
}

function sorted(o: Record<string, number>): [string, number][] {
  return Object.entries(o).sort((a, b) => a[0].localeCompare(b[0]));
}

/** A preset's config, its environment (sharing the one Python pool) and its train tasks. */
function preset(file: string, sets: string[] = []): { cfg: RlConfig; env: Environment<Task>; tasks: Task[] } {
  const cfg = parseConfig(readFileSync(file, 'utf8'), file, { sets });
  const services: EnvServices = { python: pool };
  if (cfg.data.env === 'search_qa') services.search = new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/squad_corpus.jsonl', 'utf8')));
  if (cfg.data.env === 'agent') services.search = new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/agent_corpus.jsonl', 'utf8')));
  return { cfg, env: buildEnvironment(cfg, services), tasks: loadTasksFor(cfg, 'train', () => {}) };
}

describe.skipIf(!existsSync(DIR) || !existsSync(PYTHON))('TRL bundle reward files = our environments (500 rollouts each, code_exec 150)', () => {
  beforeAll(async () => {
    tok = await loadTokenizer(new NodeDirSource(DIR));
    template = readFileSync(`${DIR}/chat_template.jinja`, 'utf8');
    work = mkdtempSync(join(tmpdir(), 'trl-rewards-'));
    pool = createNodePythonPool({ workers: 2, timeoutMs: 10_000 });
    await pool.ready();
  }, 120_000);
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await pool?.close();
  });

  it('math (GSM8K, python tool on as in configs/gsm8k_grpo.yaml)', async () => {
    const p = preset('configs/gsm8k_grpo.yaml');
    const tasks = p.tasks.slice(0, N) as MathTask[];
    const { rows, scored } = await roundTrip('math', p.cfg, p.env, tasks, (i) => mathTurns(tasks[i], i));
    compare('math', rows, scored);
  }, 120_000);

  it('code_exec (MBPP, graded in Pyodide vs forked python3 processes)', async () => {
    const p = preset('configs/code_exec_grpo.yaml');
    const all = p.tasks as CodeTask[];
    const tasks = Array.from({ length: N_CODE }, (_, i) => all[i % all.length]);
    const { rows, scored } = await roundTrip('code_exec', p.cfg, p.env, tasks, (i) => codeTurns(tasks[i], i, all[(i + 7) % all.length]));
    compare('code_exec', rows, scored);
  }, 120_000);

  it('search_qa (SQuAD, the shipped corpus)', async () => {
    const p = preset('configs/search_qa_grpo.yaml');
    const tasks = p.tasks.slice(0, N) as SearchQaTask[];
    const { rows, scored } = await roundTrip('search_qa', p.cfg, p.env, tasks, (i) => searchTurns(tasks[i], i));
    compare('search_qa', rows, scored);
  }, 120_000);

  it('agent (the default agent: calculator + lookup, python and search tools, up to 4 turns)', async () => {
    const p = preset('configs/agent_grpo.yaml', ['rollout.max_turns=4']);
    const tasks = p.tasks.slice(0, N) as AgentTask[];
    expect(new Set(tasks.map((t) => t.family))).toEqual(new Set(['calculator', 'lookup']));
    const { rows, scored, episodes } = await roundTrip('agent', p.cfg, p.env, tasks, (i) => agentTurns(tasks[i], i));
    console.log(`agent: turns per episode ${[...new Set(episodes.map((e) => e.turns))].sort().join(',')}`);
    expect(Math.max(...episodes.map((e) => e.turns))).toBeGreaterThanOrEqual(3);
    compare('agent', rows, scored);
  }, 180_000);

  it('story (word and length parts)', async () => {
    // A length weight (default 0) so the total mixes both parts; it reaches Python through configure().
    const cfg = parseConfig(readFileSync('configs/stories_grpo.yaml', 'utf8'), 'configs/stories_grpo.yaml', { sets: ['data.story_target_words=8'] });
    cfg.env.weights = { mentions: 1, length: 0.5 };
    const env = buildEnvironment(cfg, {});
    const tasks = storyTasks(['girl', 'big', 'play', 'boy', 'dog'], N, 8);
    const { rows, scored } = await roundTrip('story', cfg, env, tasks, (i) => storyTurns(tasks[i], i));
    compare('story', rows, scored);
  }, 120_000);
});
