// The validating task loader: good lines load, each bad line is skipped with its line number,
// field and reason (formatted `file:line: "field" reason`), the report counts them, unknown fields
// only warn, duplicates are caught, and every shipped dataset loads without a skip.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatLoadReport, formatProblem, loadTasks, requireTasks } from '../../../src/data/loader';
import { SHIPPED_DATASETS } from '../../../src/data/shipped';

const line = (o: unknown) => JSON.stringify(o);
const code = { task_id: 'c1', prompt: 'Add.', starter_code: '', tests: ['assert add(1, 2) == 3'], reference_solution: 'def add(a, b):\n    return a + b' };

describe('loadTasks', () => {
  it('skips bad code tasks by line and field, and keeps the good ones', () => {
    const text = [
      line(code), // 1 ok
      line({ ...code, task_id: 'c2', tests: [] }), // 2 empty tests
      '', // 3 blank: ignored
      '{"task_id": "c3", "prompt": ', // 4 not JSON
      line({ ...code, task_id: 'c4', tests: ['assert 1', 7] }), // 5 a non-string test
      line({ ...code, task_id: 5, prompt: 'Sub.', metadata: { level: 1 } }), // 6 ok (integer id)
      line({ ...code, task_id: 'c1' }), // 7 duplicate id
      line([1, 2]), // 8 not an object
      line({ ...code, task_id: 'c9', reference_solution: undefined }), // 9 missing field
      line({ ...code, task_id: 'c10', starter_code: 3 }), // 10 wrong type
      line({ ...code, task_id: 'c11', test_setup_code: 'x = 1', extra: true }), // 11 ok + warning
    ].join('\r\n');
    const r = loadTasks('code_exec', text, 'mbpp_train.jsonl');
    const msgs = r.skipped.map((p) => formatProblem(r.fileName, p));
    console.log(formatLoadReport(r));
    expect(r.tasks.map((t) => t.task_id)).toEqual(['c1', '5', 'c11']);
    expect(r.total).toBe(10);
    expect(r.tasks[1].metadata).toEqual({ level: 1 });
    expect(r.tasks[0].metadata).toEqual({});
    expect(r.tasks[2].test_setup_code).toBe('x = 1');
    expect(r.skipped.map((p) => [p.line, p.field])).toEqual([[2, 'tests'], [4, ''], [5, 'tests'], [7, 'task_id'], [8, ''], [9, 'reference_solution'], [10, 'starter_code']]);
    expect(msgs[0]).toBe('mbpp_train.jsonl:2: "tests" must be a non-empty array of strings');
    expect(msgs[1]).toMatch(/^mbpp_train\.jsonl:4: not valid JSON/);
    expect(msgs[3]).toBe('mbpp_train.jsonl:7: "task_id" duplicates the task_id "c1" of line 1');
    expect(msgs[5]).toBe('mbpp_train.jsonl:9: "reference_solution" is missing (required: a non-empty string)');
    expect(msgs[6]).toBe('mbpp_train.jsonl:10: "starter_code" must be a string (it may be empty)');
    expect(r.warnings).toEqual([{ line: 11, field: 'extra', reason: expect.stringContaining('is not a code_exec task field') }]);
    expect(formatLoadReport(r)).toMatch(/^mbpp_train\.jsonl: loaded 3 of 10 tasks, skipped 7\n/);
  });

  it('checks math and search_qa fields', () => {
    const math = loadTasks('math', [
      line({ task_id: 'm1', question: 'q', answer: 18 }),
      line({ task_id: 'm2', question: ' ', answer: '1' }),
      line({ task_id: 'm3', question: 'q', answer: '' }),
      line({ task_id: 'm4', question: 'q', answer: '2', metadata: [] }),
    ].join('\n'), 'm.jsonl');
    expect(math.tasks).toEqual([{ task_id: 'm1', question: 'q', answer: '18', metadata: {} }]);
    expect(math.skipped.map((p) => formatProblem('m.jsonl', p))).toEqual([
      'm.jsonl:2: "question" must be a non-empty string',
      'm.jsonl:3: "answer" must be a non-empty string or a number',
      'm.jsonl:4: "metadata" must be a JSON object',
    ]);
    const qa = loadTasks('search_qa', [line({ task_id: 'q1', question: 'who?', answers: ['me'], gold_doc_id: 'D#0' }), line({ task_id: 'q2', question: 'who?', answers: 'me' })].join('\n'), 'qa.jsonl');
    expect(qa.tasks.length).toBe(1);
    expect(formatProblem('qa.jsonl', qa.skipped[0])).toBe('qa.jsonl:2: "answers" must be a non-empty array of strings');
  });

  it('refuses an environment it does not know and a file where nothing loads', () => {
    expect(() => loadTasks('chess' as 'math', '', 'x')).toThrow(/unknown environment "chess"/);
    const r = loadTasks('math', 'not json\n', 'empty.jsonl');
    expect(() => requireTasks(r)).toThrow(/empty\.jsonl: loaded 0 of 1 tasks, skipped 1[\s\S]*No task loaded/);
  });

  it('loads every shipped dataset without a skip or warning', () => {
    for (const d of SHIPPED_DATASETS) {
      const r = loadTasks(d.env, readFileSync(`datasets/${d.file}`, 'utf8'), d.file);
      console.log(`${d.file}: ${r.tasks.length} tasks, ${r.skipped.length} skipped, ${r.warnings.length} warnings`);
      expect(r.skipped).toEqual([]);
      expect(r.warnings).toEqual([]);
      expect(r.tasks.length).toBe(r.total);
    }
  });
});
