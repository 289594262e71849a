// The input reader of `cli logprobs`: a `null` line, a wrong field and an out-of-vocabulary id
// are each reported with file, line and field while the good lines still score; a sequence over
// the context is skipped (default) or truncated with a warning; a BOM on line 1 is fine.
import { describe, expect, it } from 'vitest';
import { readScoreInput } from '../../../src/data/score-input';

const encode = (s: string) => [...s].map((c) => c.charCodeAt(0) % 16);
const opts = { encode, vocabSize: 16, maxTokens: 5 };
const input = ['\uFEFF{"text": "abc"}', 'null', '{"ids": [1, 2, 99]}', '{"text": 3}', '{"ids": [1, 2, 3, 4, 5, 6, 7]}', '{"ids": [4, 5]}'].join('\n');

describe('readScoreInput', () => {
  it('skips bad and over-long lines with file, line and field; the good lines still run', () => {
    const r = readScoreInput(input, 'in.jsonl', { ...opts, tooLong: 'skip' });
    console.log(r.messages.join('\n'));
    expect(r.seqs).toEqual([encode('abc'), [4, 5]]);
    expect(r.slots.map((s) => ('seq' in s ? s.seq : s.error.split(' ')[0]))).toEqual([0, 'in.jsonl:2:', 'in.jsonl:3:', 'in.jsonl:4:', 'in.jsonl:5:', 1]);
    expect(r.messages[0]).toBe('in.jsonl:2: is null; each line must be one JSON object');
    expect(r.messages[1]).toBe('in.jsonl:3: "ids"[2] is 99; token ids are integers in [0, 16)');
    expect(r.messages[2]).toBe('in.jsonl:4: "text" is a number; expected a string');
    expect(r.messages[3]).toContain('in.jsonl:5: "ids" gives 7 tokens, more than the model\'s 5; skipped (pass --too-long truncate');
    expect(r.skipped).toBe(4);
  });

  it('truncates an over-long line to the context when asked, with a warning', () => {
    const r = readScoreInput(input, 'in.jsonl', { ...opts, tooLong: 'truncate' });
    expect(r.seqs).toEqual([encode('abc'), [1, 2, 3, 4, 5], [4, 5]]);
    expect(r.truncated).toBe(1);
    expect(r.messages).toContain('in.jsonl:5: warning: "ids" gives 7 tokens; truncated to the model\'s 5');
  });
});
