// The `search` tool: one interface over the web (providers behind the proxy) and the offline
// BM25 corpus. The model passes a query; it reads `[Title] snippet` lines, optionally with each
// snippet's sentences reordered so those sharing the most query words come first (a small model
// then finds the asked fact at the start of the result). Registered by the agent loop; tested by
// tests/unit/tools/tools-registry.test.ts and tests/unit/tools/tools-search.test.ts.
import type { Tool } from './registry';
import { tokenize } from './search/bm25';
import { formatResults, type SearchBackend, type SearchResult } from './search/types';

export interface SearchToolOptions {
  /** Results per call. */
  k?: number;
  description?: string;
  /** Put each snippet's sentences that share the most query words first (default false). */
  relevantSentencesFirst?: boolean;
}

/**
 * The snippet's sentences, those sharing more (stemmed, stop-word free) query words first; ties
 * keep their order. Words of the result's title do not count (every sentence is about it).
 */
export function relevantSentencesFirst(result: SearchResult, query: string): SearchResult {
  const title = new Set(tokenize(result.title));
  const wanted = new Set(tokenize(query).filter((w) => !title.has(w)));
  const sentences = result.snippet.split(/(?<=[.!?])\s+/);
  if (wanted.size === 0 || sentences.length < 2) return result;
  const scored = sentences.map((text, i) => ({ text, i, hits: new Set(tokenize(text).filter((w) => wanted.has(w))).size }));
  scored.sort((a, b) => b.hits - a.hits || a.i - b.i);
  return { ...result, snippet: scored.map((x) => x.text).join(' ') };
}

export function searchTool(backend: SearchBackend, opts: SearchToolOptions = {}): Tool {
  const k = opts.k ?? 3;
  return {
    name: 'search',
    description: opts.description ?? (backend.name === 'corpus' ? 'Search the offline corpus' : 'Search the web'),
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for', minLength: 1, maxLength: 500 } },
      required: ['query'],
    },
    async call(args, ctx) {
      const query = String(args.query);
      const results = await backend.search(query, k, ctx.signal);
      return { text: formatResults(opts.relevantSentencesFirst ? results.map((r) => relevantSentencesFirst(r, query)) : results), ok: true };
    },
  };
}
