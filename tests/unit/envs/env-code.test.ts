// The code_exec environment in the real Pyodide sandbox (one Node worker): MBPP reference
// solutions pass their own tests (including the tasks whose test_setup_code needs the solution's
// classes), wrong / partial / syntax-error / looping answers score as documented under all_pass
// and fraction scoring, code extraction, and the retry-with-feedback loop.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTasks } from '../../../src/data/loader';
import type { CodeTask } from '../../../src/data/schemas';
import { CodeExecEnv } from '../../../src/envs/code/env';
import { extractCode } from '../../../src/envs/code/extract';
import { createEpisodeState, finishEpisode, stepEnvironment } from '../../../src/envs/episode-steps';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';

let pool: PythonPool;
const load = (file: string) => {
  const r = loadTasks('code_exec', readFileSync(`datasets/${file}`, 'utf8'), file);
  expect(r.skipped).toEqual([]);
  return r.tasks;
};
const evalTasks = load('mbpp_eval.jsonl');
const byId = (id: string) => evalTasks.find((t) => t.task_id === id) as CodeTask;
const fence = (code: string) => `Here is my solution:\n\`\`\`python\n${code}\n\`\`\``;

beforeAll(async () => {
  pool = createNodePythonPool({ workers: 1, timeoutMs: 5000 });
  await pool.ready();
});
afterAll(async () => {
  await pool.close();
});

describe('code extraction', () => {
  it('takes the last ```python block, else a bare fence, else the whole message', () => {
    expect(extractCode('```python\na = 1\n```\nbetter:\n```py\na = 2\n```')).toEqual({ code: 'a = 2\n', source: 'python' });
    expect(extractCode('```\nb = 1\n```')).toEqual({ code: 'b = 1\n', source: 'fence' });
    expect(extractCode('def f():\n    return 1')).toEqual({ code: 'def f():\n    return 1', source: 'raw' });
    expect(extractCode('<tool_call>\n{"name": "python", "arguments": {"code": "```python\\nx\\n```"}}\n</tool_call>\nc = 3').source).toBe('raw');
  });
});

describe('code_exec rewards in the sandbox', () => {
  const env = () => new CodeExecEnv({ runner: pool, config: { timeoutMs: 4000 } });

  it('MBPP reference solutions pass their own tests', async () => {
    const e = env();
    // 11, 12: plain; both tasks with test_setup_code (binary trees built from the solution's class);
    // the first validation and train tasks.
    const withSetup = [...evalTasks, ...load('mbpp_train.jsonl')].filter((t) => t.test_setup_code);
    expect(withSetup.length).toBe(2);
    const picked = [byId('mbpp/11'), byId('mbpp/12'), ...withSetup, load('mbpp_validation.jsonl')[0], load('mbpp_train.jsonl')[0]];
    const t0 = performance.now();
    for (const t of picked) {
      const r = await e.grade(t, fence(t.reference_solution), 0);
      console.log(`${t.task_id}${t.test_setup_code ? ' (setup)' : ''}: ${JSON.stringify(r.parts)} ${r.notes?.join('; ')}`);
      expect(r.parts).toEqual({ correctness: 1, pass_rate: 1, format: 1, tool_use: 0 });
      expect(r.total).toBeCloseTo(1.1, 12);
    }
    console.log(`${picked.length} reference solutions graded in ${(performance.now() - t0).toFixed(0)} ms`);
  });

  it('scores partial solutions by all_pass and by fraction', async () => {
    const t = byId('mbpp/11'); // remove first and last occurrence of a character
    // strip() removes the character only at the ends: right for "abcda" and "PHP", wrong for "hello".
    const partial = 'def remove_Occ(s, ch):\n    return s.strip(ch)';
    const all = await env().grade(t, fence(partial), 0);
    const frac = await new CodeExecEnv({ runner: pool, config: { scoring: 'fraction' } }).grade(t, fence(partial), 0);
    console.log(`partial: all_pass ${JSON.stringify(all.parts)}, fraction ${JSON.stringify(frac.parts)}`);
    expect(all.parts).toMatchObject({ correctness: 0, pass_rate: 2 / 3 });
    expect(frac.parts).toMatchObject({ correctness: 2 / 3, pass_rate: 2 / 3 });
  });

  it('gives 0 and a message for syntax errors, wrong answers, missing code and timeouts', async () => {
    const t = byId('mbpp/12');
    const syntax = await env().grade(t, fence('def sort_matrix(M)\n    return M'), 0);
    console.log(`syntax error: ${JSON.stringify(syntax.parts)} ${syntax.notes?.join('; ')}`);
    expect(syntax.parts.correctness).toBe(0);
    expect(syntax.notes?.[0]).toMatch(/SyntaxError/);
    const wrong = await env().grade(t, fence('def sort_matrix(M):\n    return M'), 0);
    expect(wrong.parts).toMatchObject({ correctness: 0, pass_rate: 0 });
    const empty = await env().grade(t, 'I cannot solve this.', 0);
    expect(empty.parts).toMatchObject({ correctness: 0, format: 0 });
    const slow = await new CodeExecEnv({ runner: pool, config: { timeoutMs: 500 } }).grade(t, fence('def sort_matrix(M):\n    while True:\n        pass'), 0);
    console.log(`timeout: ${JSON.stringify(slow.parts)} ${slow.notes?.join('; ')}`);
    expect(slow.parts.correctness).toBe(0);
    expect(slow.notes?.join(' ')).toMatch(/Timeout|KeyboardInterrupt/);
  });

  it('feeds failing tests back and grades the retry (maxAttempts 2)', async () => {
    const t = byId('mbpp/12');
    const e = new CodeExecEnv({ runner: pool, config: { maxAttempts: 2 } });
    const state = createEpisodeState('ep-code');
    const transcript = e.initialMessages(t);
    expect(transcript[1].content).toContain('Your code should pass these tests:');
    expect(transcript[1].content).toContain('def sort_matrix(M):');
    const first = fence('def sort_matrix(M):\n    return M');
    transcript.push({ role: 'assistant', content: first });
    const out1 = await stepEnvironment(e, t, state, first, []);
    expect(out1.done).toBe(false);
    expect(out1.feedback?.[0].content).toContain('passed 0 of 3 tests');
    transcript.push(...(out1.feedback ?? []));
    const second = fence(t.reference_solution);
    transcript.push({ role: 'assistant', content: second });
    const out2 = await stepEnvironment(e, t, state, second, []);
    expect(out2.done).toBe(true);
    const ep = await finishEpisode(e, t, state, transcript);
    console.log(`retry episode: return ${ep.return}, turns ${ep.turns.length}, final ${JSON.stringify(ep.final.parts)}`);
    expect(ep.final.parts.correctness).toBe(1);
    expect(ep.return).toBeCloseTo(1.1, 12);
  });
});
