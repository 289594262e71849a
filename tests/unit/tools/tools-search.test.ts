// Offline corpus search: the BM25 tokenizer and ranking on a toy corpus, JSONL parsing errors,
// the model-facing format, and recall@5 of the gold paragraph on a fixed sample of SQuAD dev
// questions over the shipped corpus (datasets/squad_corpus*.jsonl); the search tool's
// relevant-sentences-first ordering.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Bm25Index, tokenize } from '../../../src/tools/search/bm25';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';
import { formatResults } from '../../../src/tools/search/types';
import { relevantSentencesFirst, searchTool } from '../../../src/tools/search-tool';

describe('BM25', () => {
  it('tokenizes, drops stop words and stems plurals', () => {
    expect(tokenize('The Broncos defeated the Panthers, Café!')).toEqual(['bronco', 'defeat', 'panther', 'cafe']);
  });

  it('ranks the document sharing the rarest terms first', () => {
    const idx = new Bm25Index(['the cat sat on the mat', 'dogs chase cats in the park', 'a quantum computer uses qubits']);
    expect(idx.search('qubits computer', 3).map((h) => h.doc)).toEqual([2]);
    const cats = idx.search('cat', 3);
    expect(cats.map((h) => h.doc).sort()).toEqual([0, 1]);
    expect(idx.search('unseen words', 3)).toEqual([]);
  });
});

describe('corpus search', () => {
  it('parses JSONL and names the bad line', () => {
    expect(parseCorpusJsonl('{"id":"a","title":"A","text":"x"}\n\n{"text":"y"}\n')).toEqual([
      { id: 'a', title: 'A', text: 'x' },
      { id: '2', title: '', text: 'y' },
    ]);
    expect(() => parseCorpusJsonl('{"id":1}\n', 'f.jsonl')).toThrow('f.jsonl:1');
  });

  it('returns results in the shared shape and formats them for the model', async () => {
    const cs = new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/squad_corpus.jsonl', 'utf8')), { maxSnippetChars: 80 });
    const res = await cs.search('AFC champion Denver Broncos defeated the NFC champion Carolina Panthers', 3);
    const gold = res.find((r) => r.url === 'corpus://Super_Bowl_50#0');
    expect(gold).toMatchObject({ title: 'Super Bowl 50' });
    expect(res.every((r) => r.snippet.length <= 83)).toBe(true);
    expect(formatResults([gold!])).toMatch(/^\[Super Bowl 50\] Super Bowl 50 was an American football game/);
    expect(formatResults([])).toBe('No results.');
  });

  it('finds the gold SQuAD paragraph in the top 5 for most questions', () => {
    const cs = new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/squad_corpus.jsonl', 'utf8')));
    const qs = readFileSync('datasets/squad_corpus_questions.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { question: string; doc_id: string });
    const sample = qs.filter((_, i) => i % 50 === 0); // 212 questions spread over all articles
    let hit1 = 0, hit5 = 0;
    for (const q of sample) {
      const top = cs.rank(q.question, 5);
      if (top[0] === q.doc_id) hit1++;
      if (top.includes(q.doc_id)) hit5++;
    }
    console.log(`SQuAD dev corpus (${cs.docs.length} paragraphs), ${sample.length} questions: recall@1 ${(hit1 / sample.length).toFixed(3)}, recall@5 ${(hit5 / sample.length).toFixed(3)}`);
    expect(hit5 / sample.length).toBeGreaterThan(0.7);
  });
});

describe('relevant sentences first', () => {
  const doc = { title: 'Vebroth', url: 'corpus://vebroth', snippet: 'Vebroth is an island in the Bovour region. Its leader is Lilus Laibrai. It was founded in 1182. Its main export is paper.' };

  it('moves the sentences sharing query words (stemmed, not the title) to the front, ties in order', () => {
    expect(relevantSentencesFirst(doc, 'founding of Vebroth').snippet).toBe('It was founded in 1182. Vebroth is an island in the Bovour region. Its leader is Lilus Laibrai. Its main export is paper.');
    expect(relevantSentencesFirst(doc, 'export of Vebroth').snippet.startsWith('Its main export is paper. Vebroth is')).toBe(true);
    // Only the title matches: nothing moves; the words and sentences are the same whatever the order.
    expect(relevantSentencesFirst(doc, 'Vebroth').snippet).toBe(doc.snippet);
    const moved = relevantSentencesFirst(doc, 'leader of Vebroth').snippet;
    expect(moved.split(' ').sort()).toEqual(doc.snippet.split(' ').sort());
  });

  it('is what the search tool returns when asked, and off by default', async () => {
    const backend = { name: 'corpus', search: async () => [doc] };
    const call = (relevant: boolean) => searchTool(backend, { k: 1, relevantSentencesFirst: relevant }).call({ query: 'leader of Vebroth' }, { episodeId: 'e1' });
    expect((await call(true)).text).toBe('[Vebroth] Its leader is Lilus Laibrai. Vebroth is an island in the Bovour region. It was founded in 1182. Its main export is paper.');
    expect((await call(false)).text).toBe(`[Vebroth] ${doc.snippet}`);
  });
});
