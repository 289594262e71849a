// Offline `corpus` search: documents that ship with a dataset (JSONL, one
// {"id","title","text"} per line, e.g. datasets/squad_corpus.jsonl) indexed with BM25 and
// searched through the same SearchBackend interface as the web. No proxy or network needed.
// Tested by tests/unit/tools/tools-search.test.ts; recall@5 printed by scripts/bench-tools.ts.
import { describeJsonValue, jsonlLines, parseJsonObjectLine } from '../../data/jsonl';
import { Bm25Index } from './bm25';
import type { SearchBackend, SearchResult } from './types';

export interface CorpusDoc {
  id: string;
  title: string;
  text: string;
}

export interface CorpusReadResult {
  docs: CorpusDoc[];
  /** `file:line: "field" reason` for each line that was skipped. */
  skipped: string[];
}

/** Every good line as a document; bad lines (not an object, no string "text") are listed, not fatal. */
export function readCorpusJsonl(jsonl: string, source = 'corpus'): CorpusReadResult {
  const out: CorpusReadResult = { docs: [], skipped: [] };
  for (const { line, text } of jsonlLines(jsonl)) {
    const p = parseJsonObjectLine(text);
    if (!p.ok) {
      out.skipped.push(`${source}:${line}: ${p.reason}`);
      continue;
    }
    const o = p.value;
    if (typeof o.text !== 'string') {
      out.skipped.push(`${source}:${line}: "text" is ${describeJsonValue(o.text)}; each line needs a string "text" (and "id", "title")`);
      continue;
    }
    out.docs.push({ id: String(o.id ?? line - 1), title: String(o.title ?? ''), text: o.text });
  }
  return out;
}

/** The documents of a corpus file; skipped lines are reported on the console, and a corpus with
 * no good line at all is an error naming its first problems. */
export function parseCorpusJsonl(jsonl: string, source = 'corpus'): CorpusDoc[] {
  const r = readCorpusJsonl(jsonl, source);
  if (!r.docs.length) throw new Error(`${source}: no document loaded${r.skipped.length ? `:\n  ${r.skipped.slice(0, 3).join('\n  ')}` : ' (the file is empty)'}`);
  for (const s of r.skipped) console.warn(`skipped ${s}`);
  return r.docs;
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
