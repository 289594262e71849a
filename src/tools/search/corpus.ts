// Offline `corpus` search: documents that ship with a dataset (JSONL, one
// {"id","title","text"} per line, e.g. datasets/squad_corpus.jsonl) indexed with BM25 and
// searched through the same SearchBackend interface as the web. No proxy or network needed.
// Tested by tests/unit/tools-search.test.ts; recall@5 printed by scripts/bench-tools.ts.
import { Bm25Index } from './bm25';
import type { SearchBackend, SearchResult } from './types';

export interface CorpusDoc {
  id: string;
  title: string;
  text: string;
}

export function parseCorpusJsonl(jsonl: string, source = 'corpus'): CorpusDoc[] {
  const docs: CorpusDoc[] = [];
  jsonl.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let o: Partial<CorpusDoc>;
    try {
      o = JSON.parse(line) as Partial<CorpusDoc>;
    } catch (e) {
      throw new Error(`${source}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    if (typeof o.text !== 'string') throw new Error(`${source}:${i + 1}: each line needs a string "text" (and "id", "title")`);
    docs.push({ id: String(o.id ?? i), title: String(o.title ?? ''), text: o.text });
  });
  return docs;
}

export interface CorpusSearchOptions {
  /** Snippet length shown to the model, characters. */
  maxSnippetChars: number;
}

export class CorpusSearch implements SearchBackend {
  readonly name = 'corpus';
  private readonly index: Bm25Index;
  readonly options: CorpusSearchOptions;

  constructor(readonly docs: CorpusDoc[], options: Partial<CorpusSearchOptions> = {}) {
    this.options = { maxSnippetChars: 500, ...options };
    this.index = new Bm25Index(docs.map((d) => `${d.title} ${d.text}`));
  }

  /** The ids of the k best documents (for recall measurements). */
  rank(query: string, k: number): string[] {
    return this.index.search(query, k).map((h) => this.docs[h.doc].id);
  }

  async search(query: string, k: number): Promise<SearchResult[]> {
    const max = this.options.maxSnippetChars;
    return this.index.search(query, k).map(({ doc }) => {
      const d = this.docs[doc];
      return { title: d.title, url: `corpus://${d.id}`, snippet: d.text.length > max ? `${d.text.slice(0, max)}...` : d.text };
    });
  }
}
