// SearchService: the server-side search used by the proxy and by the CLI: validated query ->
// cache -> rate limit -> provider (with retries) -> normalized results; and user-defined HTTP
// tools (arguments checked against their JSON Schema with ajv, then POSTed as JSON to their
// configured URL). Answers are size-capped while streaming; keys are redacted from every result
// and error before anything is cut. Tested by tests/unit/server/proxy-server.test.ts.
import type { SearchResult } from '../../tools/search/types';
import { providerKey, type SearchConfig } from './config';
import { compileSchema, type SchemaCheck } from '../../tools/json-schema';
import { readCappedText, redactSecrets } from './body';
import { buildRequest, parseResponse } from './providers';
import { ProviderError, TokenBucket, TtlCache, fetchJsonWithRetry } from './resilience';
import { responsiveTimeout } from '../../util/responsive-timeout';

export interface SearchAnswer {
  results: SearchResult[];
  cached: boolean;
}

export class SearchService {
  private readonly cache: TtlCache<SearchResult[]>;
  private readonly bucket: TokenBucket;
  /** Provider requests actually sent (cache misses that passed the rate limit). */
  providerCalls = 0;
  private readonly toolChecks = new Map<string, SchemaCheck>();

  constructor(readonly config: SearchConfig, private readonly env: Record<string, string | undefined> = process.env) {
    this.cache = new TtlCache(config.cache_ttl_s * 1000, config.cache_max_entries);
    this.bucket = new TokenBucket(config.rate_limit_per_min);
    for (const t of config.http_tools) this.toolChecks.set(t.name, compileSchema(t.parameters, `http_tools "${t.name}"`));
  }

  /** The secrets no answer may carry: the provider key, when one is set. */
  private secrets(): string[] {
    const key = this.config.api_key_env ? this.env[this.config.api_key_env] : undefined;
    return key ? [key] : [];
  }

  private redact(message: string): string {
    return redactSecrets(message, this.secrets());
  }

  async search(query: string, count: number = this.config.default_count, signal?: AbortSignal): Promise<SearchAnswer> {
    const q = query.trim().replace(/\s+/g, ' ');
    if (!q) throw new ProviderError('query must not be empty', 400);
    if (q.length > 1000) throw new ProviderError('query must be at most 1000 characters', 400);
    if (!Number.isInteger(count) || count < 1 || count > this.config.max_count) {
      throw new ProviderError(`count must be an integer in [1, ${this.config.max_count}]`, 400);
    }
    const c = this.config;
    const cacheKey = JSON.stringify([c.provider, c.endpoint ?? '', q, count]);
    const { value, hit } = this.cache.get(cacheKey, async () => {
      const token = this.bucket.tryTake();
      if (!token.ok) throw new ProviderError(`rate limit of ${c.rate_limit_per_min} searches per minute reached; retry in ${Math.ceil(token.retryAfterMs / 1000)} s`, 429);
      let key: string | undefined;
      let req;
      try {
        key = providerKey(c, this.env);
        req = buildRequest(c, key, q, count);
      } catch (e) {
        throw new ProviderError((e as Error).message, 503);
      }
      this.providerCalls++;
      const body = await fetchJsonWithRetry(req.url, req.init, {
        timeoutMs: c.timeout_ms, maxRetries: c.max_retries, backoffFactor: c.backoff_factor, label: `search provider ${c.provider}`,
        maxBytes: c.max_response_bytes, signal,
      });
      return parseResponse(c, body, count, (s) => this.redact(s));
    });
    try {
      return { results: await value, cached: hit };
    } catch (e) {
      const status = e instanceof ProviderError ? e.status : 502;
      throw new ProviderError(this.redact((e as Error).message), status);
    }
  }

  /** Calls a configured HTTP tool; only names in config.http_tools can be reached. */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const tool = this.config.http_tools.find((t) => t.name === name);
    if (!tool) throw new ProviderError(`unknown HTTP tool "${name}"; configured: ${this.config.http_tools.map((t) => t.name).join(', ') || 'none'}`, 404);
    const problems = this.toolChecks.get(name)!(args);
    if (problems.length) throw new ProviderError(`invalid call to HTTP tool ${name}: ${problems.join('; ')}`, 400);
    const ac = new AbortController();
    // Responsive time (util/responsive-timeout.ts): the proxy may share a process with a run's GPU work.
    const clearTimer = responsiveTimeout(tool.timeout_ms ?? this.config.timeout_ms, () => ac.abort());
    signal?.addEventListener('abort', () => ac.abort(), { once: true });
    try {
      const res = await fetch(tool.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(args), signal: ac.signal });
      if (!res.ok) {
        await res.body?.cancel();
        throw new ProviderError(`HTTP tool ${name} answered HTTP ${res.status}`, 502);
      }
      const max = this.config.max_tool_response_bytes;
      const { text, cut } = await readCappedText(res, max, this.secrets());
      return cut ? `${text}\n...[answer cut at ${max} bytes]` : text;
    } catch (e) {
      if (e instanceof ProviderError) throw e;
      throw new ProviderError(this.redact(ac.signal.aborted ? `HTTP tool ${name} timed out` : `HTTP tool ${name} failed: ${(e as Error).message}`), 504);
    } finally {
      clearTimer();
    }
  }
}
