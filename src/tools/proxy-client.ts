// The studio page's client of the search proxy (src/server/proxy): fetches the per-server-start
// session token once, then calls /api/search and /api/tool/<name> with it. Lives on the page
// only: the Python workers never see the token (and their CSP cannot reach /api anyway).
// Tested in Node against a real proxy by tests/unit/server/proxy-server.test.ts.
import type { HttpToolTransport } from './http-tool';
import type { SearchBackend, SearchResult } from './search/types';

export const SESSION_HEADER = 'x-studio-session';

export class ProxyClient implements SearchBackend {
  readonly name = 'web';
  private token?: Promise<string>;

  /** `base` is the proxy's origin + `/api` (default: this page's `/api`). */
  constructor(
    private readonly base: string = '/api',
    private readonly fetchFn: typeof fetch = (...a) => fetch(...a),
  ) {}

  private session(): Promise<string> {
    this.token ??= this.post<{ token: string }>('/session', {}, undefined).then((r) => r.token);
    this.token.catch(() => (this.token = undefined));
    return this.token;
  }

  private async post<T>(path: string, body: unknown, token: string | undefined, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers[SESSION_HEADER] = token;
    const res = await this.fetchFn(`${this.base}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal });
    const data = (await res.json().catch(() => ({}))) as T & { error?: string };
    if (!res.ok) throw new Error(data.error ?? `proxy answered ${res.status} ${res.statusText}`);
    return data;
  }

  async search(query: string, k: number, signal?: AbortSignal): Promise<SearchResult[]> {
    const r = await this.post<{ results: SearchResult[] }>('/search', { query, count: k }, await this.session(), signal);
    return r.results;
  }

  /** Transport for httpTool(). */
  readonly callTool: HttpToolTransport = async (name, args, signal) => {
    const r = await this.post<{ text: string }>(`/tool/${encodeURIComponent(name)}`, { arguments: args }, await this.session(), signal);
    return r.text;
  };
}
