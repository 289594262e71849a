// Search results as every backend returns them (web providers through the proxy, the offline
// BM25 corpus) and the text the model reads. Used by search-tool.ts, corpus.ts, proxy-client.ts
// and src/server/search; tested by tests/unit/tools/tools-search.test.ts.

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchBackend {
  /** "corpus" or the web provider's name, for logs. */
  readonly name: string;
  search(query: string, k: number, signal?: AbortSignal): Promise<SearchResult[]>;
}

/** `[Title] snippet` per result (the URL after the title for web results), blank-line separated. */
export function formatResults(results: SearchResult[]): string {
  if (!results.length) return 'No results.';
  return results
    .map((r) => {
      const link = /^https?:\/\//.test(r.url) ? ` (${r.url})` : '';
      return `[${r.title}]${link} ${r.snippet}`;
    })
    .join('\n\n');
}
