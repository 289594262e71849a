// Bad JSONL input everywhere we read it: a UTF-8 BOM before line 1 is accepted by the shared
// line reader, the task loader, the corpus reader and the SFT reader; `null`, arrays and numbers
// on a line are skipped with file, line and reason while the good lines still load.
import { describe, expect, it } from 'vitest';
import { jsonlLines, parseJsonObjectLine, requireJsonlObjects } from '../../../src/data/jsonl';
import { formatProblem, loadTasks } from '../../../src/data/loader';
import { readCorpusJsonl } from '../../../src/tools/search/corpus';
import { readSftJsonl } from '../../../src/train/data';
import type { Tokenizer } from '../../../src/model/tokenizer';

const BOM = '\uFEFF';
const math = (id: string) => JSON.stringify({ task_id: id, question: 'What is 1 + 1?', answer: '2' });

describe('jsonl reading', () => {
  it('drops a BOM, accepts CRLF, numbers lines as an editor does', () => {
    expect(jsonlLines(`${BOM}{"a":1}\r\n\r\n{"a":2}\n`)).toEqual([{ line: 1, text: '{"a":1}' }, { line: 3, text: '{"a":2}' }]);
    expect(parseJsonObjectLine('null')).toEqual({ ok: false, reason: 'is null; each line must be one JSON object' });
    expect(parseJsonObjectLine('[1]')).toMatchObject({ ok: false, reason: expect.stringContaining('is an array') });
    expect(parseJsonObjectLine('7')).toMatchObject({ ok: false, reason: expect.stringContaining('is a number') });
    expect(() => requireJsonlObjects('{"a":1}\nnull\n', 'gsm8k train')).toThrow('gsm8k train:2: is null');
  });

  it('the task loader takes a BOM line 1 and skips null lines by number', () => {
    const r = loadTasks('math', `${BOM}${math('m1')}\nnull\n${math('m3')}\n42\n`, 'm.jsonl');
    const msgs = r.skipped.map((p) => formatProblem(r.fileName, p));
    console.log(msgs.join('\n'));
    expect(r.tasks.map((t) => t.task_id)).toEqual(['m1', 'm3']);
    expect(msgs).toEqual(['m.jsonl:2: is null; each line must be one JSON object', 'm.jsonl:4: is a number; each line must be one JSON object']);
  });

  it('the corpus reader takes a BOM and skips bad lines naming file, line and field', () => {
    const r = readCorpusJsonl(`${BOM}{"id":"a","title":"A","text":"x"}\nnull\n{"id":"c","text":5}\n{"id":"d","text":"y"}\n`, 'c.jsonl');
    expect(r.docs.map((d) => d.id)).toEqual(['a', 'd']);
    expect(r.skipped).toEqual(['c.jsonl:2: is null; each line must be one JSON object', 'c.jsonl:3: "text" is a number; each line needs a string "text" (and "id", "title")']);
  });

  it('the SFT reader takes a BOM on line 1', () => {
    const tokenizer = { vocabSize: 10, encode: (s: string) => [...s].map((c) => c.charCodeAt(0) % 10) } as unknown as Tokenizer;
    const ds = readSftJsonl(`${BOM}{"ids":[1,2,3],"mask":[1,1]}\nnull\n`, 's.jsonl', { tokenizer, maxLength: 8 });
    expect(ds.examples.map((e) => e.line)).toEqual([1]);
    expect(ds.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/^s\.jsonl:2: /)]);
  });
});
