// Store slice for the Tools & search panel: the search mode (offline corpus or the proxy), the
// proxy's base URL, and the result of a test query against the real backend. API keys are never
// part of this state: they live on the proxy's side. Exercised by tests/e2e/studio-tools.spec.ts.
import type { StateCreator } from 'zustand';
import { ProxyClient } from '../tools/proxy-client';
import { CorpusSearch, parseCorpusJsonl } from '../tools/search/corpus';
import type { SearchBackend, SearchResult } from '../tools/search/types';
import { fetchShipped } from '../ui/datasets/shipped-urls';
import type { StudioState } from './store';

export type SearchMode = 'corpus' | 'proxy';

/** The offline corpus the search_qa environment reads by default. */
export const CORPUS_FILE = 'squad_corpus.jsonl';

export interface SearchTest {
  running: boolean;
  query: string;
  results: SearchResult[] | null;
  error: string | null;
  ms: number;
  backend: string;
}

export interface ToolsSlice {
  searchMode: SearchMode;
  proxyUrl: string;
  searchTest: SearchTest;
  setSearchMode: (m: SearchMode) => void;
  setProxyUrl: (url: string) => void;
  testSearch: (query: string) => Promise<void>;
}

let corpus: Promise<CorpusSearch> | null = null;

function corpusSearch(): Promise<CorpusSearch> {
  corpus ??= fetchShipped(CORPUS_FILE).then(async (b) => new CorpusSearch(parseCorpusJsonl(await b.text(), `datasets/${CORPUS_FILE}`)));
  corpus.catch(() => (corpus = null));
  return corpus;
}

export const createToolsSlice: StateCreator<StudioState, [], [], ToolsSlice> = (set, get) => ({
  searchMode: 'corpus',
  proxyUrl: '/api',
  searchTest: { running: false, query: '', results: null, error: null, ms: 0, backend: '' },

  setSearchMode: (searchMode) => set({ searchMode }),
  setProxyUrl: (proxyUrl) => set({ proxyUrl }),
  testSearch: async (query) => {
    const { searchMode, proxyUrl } = get();
    const backendName = searchMode === 'corpus' ? `corpus datasets/${CORPUS_FILE}` : `proxy ${proxyUrl}`;
    set({ searchTest: { running: true, query, results: null, error: null, ms: 0, backend: backendName } });
    const t0 = performance.now();
    try {
      if (!query.trim()) throw new Error('Type a query first.');
      const backend: SearchBackend = searchMode === 'corpus' ? await corpusSearch() : new ProxyClient(proxyUrl.replace(/\/$/, ''));
      const results = await backend.search(query, 5);
      set({ searchTest: { running: false, query, results, error: null, ms: performance.now() - t0, backend: backendName } });
    } catch (e) {
      const msg = (e as Error).message;
      const advice = searchMode === 'proxy' ? ' Check that the proxy runs (npm start mounts it under /api; npm run proxy serves it on :8787) and that its provider key is set in its environment.' : '';
      set({ searchTest: { running: false, query, results: null, error: `${backendName}: ${msg}${advice}`, ms: performance.now() - t0, backend: backendName } });
    }
  },
});
