// Provider adapters: the HTTP request each search API expects and the mapping of its JSON to
// {title, url, snippet}. Tavily, Serper, Bing, SearXNG (keyless) and a custom endpoint described
// in the config. Tested against fake providers by tests/unit/server/proxy-server.test.ts.
import type { SearchResult } from '../../tools/search/types';
import type { SearchConfig } from './config';

const DEFAULT_ENDPOINTS = {
  tavily: 'https://api.tavily.com/search',
  serper: 'https://google.serper.dev/search',
  bing: 'https://api.bing.microsoft.com/v7.0/search',
} as const;

export interface ProviderRequest {
  url: string;
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
}

export function endpointOf(c: SearchConfig): string {
  if (c.endpoint) return c.endpoint;
  if (c.provider === 'searxng' || c.provider === 'custom') {
    throw new Error(`search provider ${c.provider} needs an endpoint: set "endpoint" in the config or SEARCH_ENDPOINT`);
  }
  return DEFAULT_ENDPOINTS[c.provider];
}

export function buildRequest(c: SearchConfig, key: string | undefined, query: string, count: number): ProviderRequest {
  const endpoint = endpointOf(c);
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  switch (c.provider) {
    case 'tavily':
      return { url: endpoint, init: { method: 'POST', headers: { ...json, authorization: `Bearer ${key}` }, body: JSON.stringify({ query, max_results: count }) } };
    case 'serper':
      return { url: endpoint, init: { method: 'POST', headers: { ...json, 'x-api-key': key ?? '' }, body: JSON.stringify({ q: query, num: count }) } };
    case 'bing': {
      const u = new URL(endpoint);
      u.searchParams.set('q', query);
      u.searchParams.set('count', String(count));
      return { url: u.href, init: { method: 'GET', headers: { accept: 'application/json', 'ocp-apim-subscription-key': key ?? '' } } };
    }
    case 'searxng': {
      const u = new URL(endpoint.replace(/\/?$/, '/search'));
      u.searchParams.set('q', query);
      u.searchParams.set('format', 'json');
      return { url: u.href, init: { method: 'GET', headers: { accept: 'application/json' } } };
    }
    case 'custom': {
      const m = c.custom!;
      const headers: Record<string, string> = { accept: 'application/json' };
      if (key && m.api_key_header) headers[m.api_key_header.toLowerCase()] = `${m.api_key_prefix ?? ''}${key}`;
      if (m.method === 'GET') {
        const u = new URL(endpoint);
        u.searchParams.set(m.query_param, query);
        if (m.count_param) u.searchParams.set(m.count_param, String(count));
        return { url: u.href, init: { method: 'GET', headers } };
      }
      const body = substitute(m.body ?? { [m.query_param || 'query']: '{query}' }, query, count);
      return { url: endpoint, init: { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) } };
    }
  }
}

function substitute(v: unknown, query: string, count: number): unknown {
  if (v === '{query}') return query;
  if (v === '{count}') return count;
  if (typeof v === 'string') return v.replaceAll('{query}', query).replaceAll('{count}', String(count));
  if (Array.isArray(v)) return v.map((x) => substitute(x, query, count));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, query, count)]));
  return v;
}

function at(obj: unknown, path: string): unknown {
  return path.split('.').filter(Boolean).reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** Maps a provider's JSON answer to normalized results (at most `count`); every field is
 * redacted first and only then are snippets cut, so no part of a secret survives the cut. */
export function parseResponse(c: SearchConfig, body: unknown, count: number, redact: (s: string) => string = (s) => s): SearchResult[] {
  const fields = {
    tavily: { list: 'results', title: 'title', url: 'url', snippet: 'content' },
    serper: { list: 'organic', title: 'title', url: 'link', snippet: 'snippet' },
    bing: { list: 'webPages.value', title: 'name', url: 'url', snippet: 'snippet' },
    searxng: { list: 'results', title: 'title', url: 'url', snippet: 'content' },
    custom: c.custom ? { list: c.custom.results_path, title: c.custom.title, url: c.custom.url, snippet: c.custom.snippet } : { list: '', title: '', url: '', snippet: '' },
  }[c.provider];
  const list = at(body, fields.list);
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`search provider ${c.provider}: "${fields.list}" in the response is not a list`);
  const max = c.max_snippet_chars;
  return list.slice(0, count).map((item) => {
    const snippet = redact(str(at(item, fields.snippet))).replace(/\s+/g, ' ').trim();
    return {
      title: redact(str(at(item, fields.title))).trim(),
      url: redact(str(at(item, fields.url))),
      snippet: snippet.length > max ? `${snippet.slice(0, max)}...` : snippet,
    };
  });
}
