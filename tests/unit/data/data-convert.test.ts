// The dataset converters: re-running them on ../shared/datasets reproduces the shipped files
// byte for byte, with the documented counts (GSM8K 7473/1319, MBPP 374/500/90/10 by task-id
// range, SQuAD 10,570 questions split by article), GSM8K answers after `####` with commas
// stripped, and MBPP starter code from the tested function's signature.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertGsm8k, gsm8kFinalAnswer } from '../../../src/data/convert/gsm8k';
import { convertMbpp, mbppSplit, sanitizedMbppIds, starterFromSolution } from '../../../src/data/convert/mbpp';
import { articleOf, convertSquadQuestions } from '../../../src/data/convert/squad';
import { SHIPPED_DATASETS, SQUAD_SPLIT } from '../../../src/data/shipped';
import type { Task } from '../../../src/data/schemas';
import { sharedDir } from '../../../scripts/shared-dir';

const shared = join(sharedDir(), 'datasets');
const haveShared = existsSync(join(shared, 'gsm8k/train.jsonl')) && existsSync(join(shared, 'mbpp/mbpp.jsonl'));
const read = (p: string) => readFileSync(p, 'utf8');
const jsonl = (tasks: Task[]) => tasks.map((t) => JSON.stringify(t)).join('\n') + '\n';
const shipped = (file: string) => read(join('datasets', file));

describe('converter pieces', () => {
  it('reads the GSM8K final answer and MBPP split and signature', () => {
    expect(gsm8kFinalAnswer('5 * 2 = <<5*2=10>>10\n#### 1,000')).toBe('1000');
    expect(gsm8kFinalAnswer('no marker')).toBeNull();
    expect([1, 10, 11, 510, 511, 600, 601, 974].map(mbppSplit)).toEqual(['prompt', 'prompt', 'test', 'test', 'validation', 'validation', 'train', 'train']);
    expect(() => mbppSplit(975)).toThrow(/outside/);
    const code = 'R = 3\ndef helper(x):\n    return x\ndef min_cost(cost, m, n): \n    return helper(cost[m][n])';
    expect(starterFromSolution(code, ['assert min_cost([[1]], 0, 0) == 1'])).toBe('def min_cost(cost, m, n):\n    pass\n');
    expect(starterFromSolution('x = 1', ['assert x == 1'])).toBe('');
    expect(articleOf('Super_Bowl_50#12')).toBe('Super_Bowl_50');
  });

  it('lists every shipped file with its license in datasets/LICENSES.md', () => {
    const licenses = read('datasets/LICENSES.md');
    for (const d of SHIPPED_DATASETS) expect(licenses).toContain(`\`${d.file}\``);
  });
});

describe.skipIf(!haveShared)('converted datasets match the shipped files', () => {
  it('GSM8K: 7473 train, 1319 eval, byte-identical', () => {
    const train = convertGsm8k(read(join(shared, 'gsm8k/train.jsonl')), 'train');
    const test = convertGsm8k(read(join(shared, 'gsm8k/test.jsonl')), 'test');
    console.log(`gsm8k: train ${train.length}, eval ${test.length}; eval[0] answer ${test[0].answer}`);
    expect([train.length, test.length]).toEqual([7473, 1319]);
    expect(jsonl(train)).toBe(shipped('gsm8k_train.jsonl'));
    expect(jsonl(test)).toBe(shipped('gsm8k_eval.jsonl'));
    expect(train.every((t) => /^-?\d+(\.\d+)?$/.test(t.answer))).toBe(true);
  });

  it('MBPP: official splits by task id, byte-identical', () => {
    const m = convertMbpp(read(join(shared, 'mbpp/mbpp.jsonl')), sanitizedMbppIds(read(join(shared, 'mbpp/sanitized-mbpp.json'))));
    const counts = { train: m.train.length, test: m.test.length, validation: m.validation.length, prompt: m.prompt.length };
    const sanitized = Object.values(m).flat().filter((t) => t.metadata.sanitized).length;
    console.log(`mbpp: ${JSON.stringify(counts)}, sanitized ${sanitized}, starter code for ${Object.values(m).flat().filter((t) => t.starter_code).length}/974`);
    expect(counts).toEqual({ train: 374, test: 500, validation: 90, prompt: 10 });
    expect(sanitized).toBe(427);
    expect(m.test.every((t) => { const id = t.metadata.mbpp_task_id as number; return id >= 11 && id <= 510; })).toBe(true);
    expect(jsonl(m.train)).toBe(shipped('mbpp_train.jsonl'));
    expect(jsonl(m.test)).toBe(shipped('mbpp_eval.jsonl'));
    expect(jsonl(m.validation)).toBe(shipped('mbpp_validation.jsonl'));
    expect(jsonl(m.prompt)).toBe(shipped('mbpp_prompt.jsonl'));
  });

  it('SQuAD QA: every corpus question, split by article, byte-identical', () => {
    const s = convertSquadQuestions(shipped('squad_corpus_questions.jsonl'), SQUAD_SPLIT);
    const articles = (ts: Task[]) => new Set(ts.map((t) => String(t.metadata.article)));
    const trainA = articles(s.train), evalA = articles(s.eval);
    console.log(`squad_qa: train ${s.train.length} questions / ${trainA.size} articles, eval ${s.eval.length} / ${evalA.size}`);
    expect(s.train.length + s.eval.length).toBe(10570);
    expect([...evalA].some((a) => trainA.has(a))).toBe(false);
    expect(evalA.size).toBe(Math.round((trainA.size + evalA.size) * SQUAD_SPLIT.evalFraction));
    expect(jsonl(s.train)).toBe(shipped('squad_qa_train.jsonl'));
    expect(jsonl(s.eval)).toBe(shipped('squad_qa_eval.jsonl'));
  });
});
