// analyseDataset (the Datasets panel's worker-side reader) on small files: the shipped agent task
// lines are detected as the agent env's schema (not math, whose question/answer keys they also have)
// and validated with its field table, so a wrong family is skipped naming that field; a math file
// stays math with its opening messages previewed; an unknown first line says which keys it expected.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyseDataset, detectSchema } from '../../../src/ui/datasets/analyse';

const agentLines = readFileSync('datasets/agent_train.jsonl', 'utf8').split('\n').slice(0, 3);

describe('analyseDataset', () => {
  it('detects agent task lines as agent and checks their family field', () => {
    const bad = '{"task_id": "x1", "family": "search", "question": "When was Tuvamer founded?", "answer": "1848"}';
    const text = [...agentLines, bad].join('\n');
    const r = analyseDataset(text, 'mine.jsonl', text.length);
    console.log(`${r.schema} (${r.schemaReason}); skipped: ${r.skipped.map((p) => `${p.line}|${p.field}|${p.reason}`).join('; ')}`);
    expect(r.schema).toBe('agent');
    expect(r.good).toBe(3);
    expect(r.skipped.map((p) => [p.line, p.field])).toEqual([[4, 'family']]);
    expect(r.warnings).toEqual([]);
    expect(r.previews[0].messages).toBeNull();
    expect(r.notes[0]).toContain('The agent environment\'s opening messages are shown as tokens once a model is chosen');
  });

  it('keeps math files math, with the opening messages previewed', () => {
    const text = '{"task_id": "m1", "question": "What is 6 times 7?", "answer": "42"}';
    const r = analyseDataset(text, 'math.jsonl', text.length);
    expect(r.schema).toBe('math');
    expect(r.previews[0].messages?.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('names the keys it expected for an unknown first line', () => {
    expect(detectSchema('{"foo": 1}').reason).toContain('family/question/answer');
  });
});
