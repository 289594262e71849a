// Typed settings of the search proxy: defaults, one doc line per field, loading from a YAML/JSON
// file plus SEARCH_* environment variables, validation in one place. API keys only ever come from
// the environment variable named by api_key_env. Tested by tests/unit/server/proxy-config.test.ts.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { compileSchema, type JsonSchema } from '../../tools/json-schema';

export const PROVIDERS = ['tavily', 'serper', 'bing', 'searxng', 'custom'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** How to call a custom endpoint and map its JSON to {title, url, snippet}. */
export interface CustomMapping {
  /** GET puts the query in `query_param`; POST sends `body` with "{query}"/"{count}" substituted. */
  method: 'GET' | 'POST';
  query_param: string;
  count_param?: string;
  body?: Record<string, unknown>;
  /** Dot path to the results array in the response, e.g. "data.items". */
  results_path: string;
  /** Field names (dot paths) inside each result. */
  title: string;
  url: string;
  snippet: string;
  /** Header that carries the key, e.g. "Authorization"; with `api_key_prefix` such as "Bearer ". */
  api_key_header?: string;
  api_key_prefix?: string;
}

/** A user-defined HTTP tool: the proxy POSTs the model's JSON arguments to `url`. */
export interface HttpToolConfig {
  name: string;
  description: string;
  url: string;
  parameters: JsonSchema;
  timeout_ms?: number;
}

export interface SearchConfig {
  /** Which provider answers web searches. */
  provider: ProviderName;
  /** Provider URL; defaults to the provider's public API (required for searxng and custom). */
  endpoint?: string;
  /** Name of the environment variable holding the API key (never the key itself). */
  api_key_env?: string;
  /** Per-attempt timeout of a provider request, ms. */
  timeout_ms: number;
  /** Retries after the first attempt on timeouts, network errors, 429 and 5xx. */
  max_retries: number;
  /** Backoff before retry n (0-based) is backoff_factor * 2^n seconds (urllib3 convention). */
  backoff_factor: number;
  /** Token-bucket limit on provider requests (cache hits are free). */
  rate_limit_per_min: number;
  /** Snippets longer than this are cut, characters. */
  max_snippet_chars: number;
  /** Results per search when the caller does not say. */
  default_count: number;
  /** Most results a caller may ask for. */
  max_count: number;
  /** How long a (provider, query, options) answer is reused, seconds. */
  cache_ttl_s: number;
  cache_max_entries: number;
  /** Largest provider answer read, bytes; the download stops past it (HTTP 502). */
  max_response_bytes: number;
  /** Largest HTTP-tool answer passed on, bytes; the rest is not read. */
  max_tool_response_bytes: number;
  /** Origins allowed to call the proxy besides the page's own (same host as the request). */
  allowed_origins: string[];
  /** Host names (or host:port) the proxy answers besides loopback (localhost, 127.x, [::1]). */
  allowed_hosts: string[];
  custom?: CustomMapping;
  http_tools: HttpToolConfig[];
}

export const defaultSearchConfig: SearchConfig = {
  provider: 'searxng',
  timeout_ms: 8000,
  max_retries: 2,
  backoff_factor: 0.5,
  rate_limit_per_min: 60,
  max_snippet_chars: 400,
  default_count: 5,
  max_count: 10,
  cache_ttl_s: 3600,
  cache_max_entries: 5000,
  max_response_bytes: 1024 * 1024,
  max_tool_response_bytes: 64 * 1024,
  allowed_origins: [],
  allowed_hosts: [],
  http_tools: [],
};

export const DEFAULT_KEY_ENV: Partial<Record<ProviderName, string>> = {
  tavily: 'TAVILY_API_KEY', serper: 'SERPER_API_KEY', bing: 'BING_API_KEY',
};

const NUMBER_FIELDS = [
  'timeout_ms', 'max_retries', 'backoff_factor', 'rate_limit_per_min', 'max_snippet_chars', 'default_count', 'max_count', 'cache_ttl_s',
  'cache_max_entries', 'max_response_bytes', 'max_tool_response_bytes',
] as const;

/** Reads `path` (YAML or JSON; optional) and SEARCH_* variables, then validates. */
export function loadSearchConfig(path?: string, env: Record<string, string | undefined> = process.env): SearchConfig {
  let fromFile: Record<string, unknown> = {};
  if (path) {
    const parsed = parseYaml(readFileSync(path, 'utf8')) as unknown;
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) throw new Error(`${path}: expected a mapping of settings`);
    fromFile = (parsed ?? {}) as Record<string, unknown>;
  }
  const fromEnv: Record<string, unknown> = {};
  for (const key of ['provider', 'endpoint', 'api_key_env'] as const) {
    const v = env[`SEARCH_${key.toUpperCase()}`];
    if (v) fromEnv[key] = v;
  }
  for (const key of NUMBER_FIELDS) {
    const v = env[`SEARCH_${key.toUpperCase()}`];
    if (v) fromEnv[key] = Number(v);
  }
  const origins = env.SEARCH_ALLOWED_ORIGINS;
  if (origins) fromEnv.allowed_origins = origins.split(',').map((s) => s.trim()).filter(Boolean);
  const hosts = env.SEARCH_ALLOWED_HOSTS;
  if (hosts) fromEnv.allowed_hosts = hosts.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  return resolveSearchConfig({ ...fromFile, ...fromEnv }, path ?? 'search settings');
}

export function resolveSearchConfig(raw: Record<string, unknown>, source = 'search settings'): SearchConfig {
  const fail = (msg: string): never => {
    throw new Error(`${source}: ${msg}`);
  };
  for (const k of Object.keys(raw)) {
    if (/^(api_?key|key|token|secret)$/i.test(k)) fail(`"${k}" is not allowed: keys come only from the environment; set api_key_env to the variable's name`);
    if (!(k in defaultSearchConfig) && !['endpoint', 'api_key_env', 'custom'].includes(k)) fail(`unknown setting "${k}"`);
  }
  const c = { ...defaultSearchConfig, ...raw } as SearchConfig;
  if (!PROVIDERS.includes(c.provider)) fail(`provider must be one of ${PROVIDERS.join(', ')}, got "${String(c.provider)}"`);
  for (const k of NUMBER_FIELDS) {
    const v = c[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(`${k} must be a number >= 0, got ${JSON.stringify(v)}`);
  }
  if (c.timeout_ms < 1) fail('timeout_ms must be at least 1');
  if (c.default_count < 1 || c.default_count > c.max_count) fail(`default_count must be in [1, max_count=${c.max_count}]`);
  if ((c.provider === 'searxng' || c.provider === 'custom') && c.endpoint === undefined) {
    // allowed: the proxy runs, and /api/search explains what to set
  }
  if (c.endpoint !== undefined && !/^https?:\/\//.test(c.endpoint)) fail(`endpoint must be an http(s) URL, got "${c.endpoint}"`);
  if (c.provider === 'custom' && c.endpoint && !c.custom) fail('provider "custom" needs a "custom" mapping (method, query_param, results_path, title, url, snippet)');
  if (c.custom) {
    const m = c.custom;
    if (m.method !== 'GET' && m.method !== 'POST') fail('custom.method must be GET or POST');
    for (const f of ['results_path', 'title', 'url', 'snippet'] as const) if (typeof m[f] !== 'string') fail(`custom.${f} must be a string (a dot path)`);
    if (m.method === 'GET' && typeof m.query_param !== 'string') fail('custom.query_param is required for GET');
  }
  if (!Array.isArray(c.allowed_origins)) fail('allowed_origins must be a list of origins such as http://localhost:5173');
  for (const o of c.allowed_origins) {
    if (typeof o !== 'string' || !/^https?:\/\/[^/]+$/.test(o)) fail(`allowed_origins: "${String(o)}" is not an origin; write scheme://host[:port] with no path, e.g. http://localhost:5173`);
  }
  if (!Array.isArray(c.allowed_hosts) || c.allowed_hosts.some((h) => typeof h !== 'string' || !h || h.includes('/'))) {
    fail('allowed_hosts must be a list of host names (optionally host:port), e.g. [studio.lan, 192.168.1.20:5173]');
  }
  if (c.max_response_bytes < 1024 || c.max_tool_response_bytes < 1) fail('max_response_bytes must be >= 1024 and max_tool_response_bytes >= 1');
  if (!Array.isArray(c.http_tools)) fail('http_tools must be a list');
  for (const t of c.http_tools) {
    if (!t.name || !t.url || !/^https?:\/\//.test(t.url)) fail(`http_tools: each tool needs a name and an http(s) url (${JSON.stringify(t)})`);
    t.parameters ??= { type: 'object', properties: {} };
    t.description ??= t.name;
    try {
      compileSchema(t.parameters, `http_tools "${t.name}"`);
    } catch (e) {
      fail((e as Error).message);
    }
  }
  c.api_key_env ??= DEFAULT_KEY_ENV[c.provider];
  return c;
}

/** The provider key from the environment, or an error saying which variable to set. */
export function providerKey(c: SearchConfig, env: Record<string, string | undefined> = process.env): string | undefined {
  const needs = c.provider === 'tavily' || c.provider === 'serper' || c.provider === 'bing';
  const key = c.api_key_env ? env[c.api_key_env] : undefined;
  if (needs && !key) throw new Error(`search provider ${c.provider} needs an API key: set the environment variable ${c.api_key_env}`);
  return key || undefined;
}
