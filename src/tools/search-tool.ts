// The `search` tool: one interface over the web (providers behind the proxy) and the offline
// BM25 corpus. The model passes a query; it reads `[Title] snippet` lines. Registered by the agent
// loop; tested by tests/unit/tools/tools-registry.test.ts.
import type { Tool } from './registry';
import { formatResults, type SearchBackend } from './search/types';

export interface SearchToolOptions {
  /** Results per call. */
  k?: number;
  description?: string;
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
      const results = await backend.search(String(args.query), k, ctx.signal);
      return { text: formatResults(results), ok: true };
    },
  };
}
