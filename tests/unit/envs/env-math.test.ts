// The math environment on known examples: answer extraction in its documented order, number
// normalisation (commas, $, units, trailing .0, fractions), correct / wrong / malformed answers
// with their reward breakdown, strict format, and GSM8K tasks from the shipped eval file.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTasks } from '../../../src/data/loader';
import type { MathTask } from '../../../src/data/schemas';
import { answersMatch, extractMathAnswer, parseNumber } from '../../../src/envs/math/answer';
import { MathEnv } from '../../../src/envs/math/env';
import { createEpisodeState } from '../../../src/envs/episode-steps';

const task: MathTask = { task_id: 't1', question: 'Janet has 1,200 eggs and buys 34 more. How many?', answer: '1234', metadata: {} };

describe('math answer extraction', () => {
  it('follows the order boxed, "the answer is", ####, last number', () => {
    expect(extractMathAnswer('so 3 + 4 = 7. The answer is 12. \\boxed{1,234}')).toEqual({ value: '1,234', form: 'boxed' });
    expect(extractMathAnswer('#### 5\nThe answer is 12.')).toEqual({ value: '12.', form: 'answer_is' });
    expect(extractMathAnswer('3 + 4 = 7\n#### 7')).toEqual({ value: '7', form: 'hash' });
    expect(extractMathAnswer('She pays 3 * 4 = 12 dollars, then 12 - 2 = 10 dollars.')).toEqual({ value: '10', form: 'last_number' });
    expect(extractMathAnswer('no digits at all')).toBeNull();
    expect(extractMathAnswer('\\boxed{\\frac{3}{4}} and \\boxed{x')?.value).toBe('\\frac{3}{4}');
  });

  it('normalises numbers before comparing', () => {
    expect(parseNumber('$1,234.00 dollars')).toBe(1234);
    expect(parseNumber('\\$18')).toBe(18);
    expect(parseNumber('50%')).toBe(50);
    expect(parseNumber('\\frac{3}{4}')).toBe(0.75);
    expect(parseNumber('-\\frac{1}{2}')).toBe(-0.5);
    expect(parseNumber('7/2 hours')).toBe(3.5);
    expect(parseNumber('\\text{18 apples}')).toBe(18);
    expect(parseNumber('none')).toBeNull();
    expect(answersMatch('18.0', '18')).toBe(true);
    expect(answersMatch('1,234', '1234')).toBe(true);
    expect(answersMatch('18.5', '18')).toBe(false);
    expect(answersMatch('-3', '3')).toBe(false);
    expect(answersMatch('1000001', '1,000,000')).toBe(false); // large answers off by one stay wrong
    expect(answersMatch('0.1', '1/10')).toBe(true);
  });
});

describe('math rewards', () => {
  const env = new MathEnv();
  const grade = (text: string) => env.grade(task, text, 0);

  it('scores a correct boxed answer 1 + format bonus', () => {
    const r = grade('1200 + 34 = 1234, so the total is \\boxed{1,234}.');
    console.log('correct boxed:', JSON.stringify(r));
    expect(r.parts).toEqual({ correctness: 1, format: 1, tool_use: 0 });
    expect(r.total).toBeCloseTo(1.1, 12);
    expect(r.extracted).toBe('1,234');
  });

  it('accepts a correct answer in another form without the format bonus', () => {
    const r = grade('1200 + 34 = 1234\n#### 1234');
    expect(r.parts).toEqual({ correctness: 1, format: 0, tool_use: 0 });
    expect(r.total).toBeCloseTo(1, 12);
    expect(grade('The answer is $1,234.').parts.correctness).toBe(1);
    expect(grade('Total: 1234 eggs').parts.correctness).toBe(1);
  });

  it('scores a wrong answer 0 even when well formatted', () => {
    const r = grade('1200 + 43 = 1243, \\boxed{1243}');
    expect(r.parts).toEqual({ correctness: 0, format: 1, tool_use: 0 });
    expect(r.total).toBeCloseTo(0.1, 12);
  });

  it('scores a malformed answer 0 with a note', () => {
    const r = grade('I am not sure, \\boxed{');
    expect(r.parts.correctness).toBe(0);
    expect(r.parts.format).toBe(0);
    expect(r.notes).toContain('no answer found');
  });

  it('grades only the expected format when strict', () => {
    const strict = new MathEnv({ config: { strict: true, answerFormat: 'hash' } });
    expect(strict.grade(task, 'The answer is 1234', 0).parts.correctness).toBe(0);
    expect(strict.grade(task, 'work...\n#### 1,234', 0).parts).toEqual({ correctness: 1, format: 1, tool_use: 0 });
    expect(strict.systemPrompt(task)).toContain('####');
  });

  it('reads the last assistant turn of a transcript, ignoring its tool calls', async () => {
    const state = createEpisodeState('ep');
    const msgs = [...env.initialMessages(task), { role: 'assistant' as const, content: 'Let me think: \\boxed{1234}' }];
    const r = await env.finalReward(task, state, msgs);
    expect(r.parts.correctness).toBe(1);
    expect(msgs[0].role).toBe('system');
    expect(msgs[1].content).toBe(task.question);
  });

  it('rejects bad config with a message that says what to do', () => {
    expect(() => new MathEnv({ config: { pythonTool: true } })).toThrow(/no python runner/);
    expect(() => new MathEnv({ config: { weights: { correctness: Number.NaN } } })).toThrow(/finite number/);
  });

  it('grades GSM8K eval tasks: the reference solution text scores 1, a shifted answer 0', () => {
    const { tasks, skipped } = loadTasks('math', readFileSync('datasets/gsm8k_eval.jsonl', 'utf8'), 'gsm8k_eval.jsonl');
    expect(skipped).toEqual([]);
    let right = 0, wrong = 0;
    for (const t of tasks) {
      right += env.grade(t, t.solution ?? '', 0).parts.correctness;
      wrong += env.grade(t, `\\boxed{${Number(t.answer) + 1}}`, 0).parts.correctness;
    }
    console.log(`gsm8k eval: reference solutions scored ${right}/${tasks.length}, answer+1 scored ${wrong}/${tasks.length}`);
    expect(right).toBe(1319);
    expect(wrong).toBe(0);
  });
});
