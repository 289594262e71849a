// The `tools:` section of the run config turned into what runs: the Python pool's limits (and which
// of tools.python / rollout.* wins), the search backend (offline corpus or a running search proxy
// through ProxyClient), the extra tools every environment is offered (`search` when asked, the
// user HTTP tools), plus the checks of tools.http entries and of conflicts between fields.
// Tested by tests/unit/rl/rl-tools-config.test.ts (a real GRPO step with the proxy and an HTTP tool).
import { httpTool } from '../tools/http-tool';
import { directHttpTransport } from '../tools/http-transport';
import { compileSchema, type JsonSchema } from '../tools/json-schema';
import { ProxyClient } from '../tools/proxy-client';
import type { Tool } from '../tools/registry';
import { searchTool } from '../tools/search-tool';
import type { SearchBackend } from '../tools/search/types';
import { DEFAULT_CONFIG, type HttpToolEntry, type RlConfig } from './config-schema';
import { responsiveSignal } from '../util/responsive-timeout';

const HTTP_KEYS = ['name', 'description', 'url', 'method', 'parameters', 'timeout_ms'];
/** Tool names the environments register themselves. */
const BUILT_IN_TOOLS = ['python', 'search'];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** tools.http checked and with defaults filled, or why not ("tools.http[1].url ..."). */
export function checkHttpTools(v: unknown, suggest: (name: string, known: readonly string[]) => string | null): { tools: HttpToolEntry[] } | { error: string } {
  if (!Array.isArray(v)) return { error: 'use a list of tools, each {name, description, url, method, parameters, timeout_ms}' };
  const tools: HttpToolEntry[] = [];
  for (const [i, t] of v.entries()) {
    const at = `tools.http[${i}]`;
    if (!isObject(t)) return { error: `${at} is ${JSON.stringify(t)}; use a mapping {name, description, url, ...}` };
    for (const k of Object.keys(t)) {
      if (!HTTP_KEYS.includes(k)) {
        const hint = suggest(k, HTTP_KEYS);
        return { error: `${at} has an unknown key ${k}${hint ? `; did you mean ${hint}?` : `; known keys: ${HTTP_KEYS.join(', ')}`}` };
      }
    }
    const { name, description, url, method = 'POST', parameters = { type: 'object', properties: {} }, timeout_ms = 10_000 } = t;
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(name)) return { error: `${at}.name is ${JSON.stringify(name)}; use 1-64 letters, digits, _ or - (not starting with a digit)` };
    if (BUILT_IN_TOOLS.includes(name)) return { error: `${at}.name "${name}" is a built-in tool; pick another name` };
    if (tools.some((x) => x.name === name)) return { error: `${at}.name "${name}" is used twice; tool names must be unique` };
    if (typeof description !== 'string' || !description) return { error: `${at}.description is missing; write one line the model reads to decide when to call ${name}` };
    if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url)) return { error: `${at}.url is ${JSON.stringify(url)}; use an http(s) URL` };
    if (method !== 'GET' && method !== 'POST') return { error: `${at}.method is ${JSON.stringify(method)}; use GET or POST` };
    if (typeof timeout_ms !== 'number' || !Number.isInteger(timeout_ms) || timeout_ms < 1) return { error: `${at}.timeout_ms is ${JSON.stringify(timeout_ms)}; use an integer >= 1 (milliseconds)` };
    if (!isObject(parameters) || parameters.type !== 'object') return { error: `${at}.parameters must be a JSON Schema of type "object", e.g. {type: object, properties: {city: {type: string}}, required: [city]}` };
    try {
      compileSchema(parameters as JsonSchema, at);
    } catch (e) {
      return { error: (e as Error).message };
    }
    tools.push({ name, description, url, method, parameters: parameters as JsonSchema, timeout_ms });
  }
  return { tools };
}

/** Why the tools fields contradict each other or the older rollout / data fields, or null. */
export function toolsConflict(c: RlConfig): string | null {
  const p = c.tools.python, s = c.tools.search, r = c.rollout;
  if (p.workers > 0 && r.python_workers !== DEFAULT_CONFIG.rollout.python_workers && r.python_workers !== p.workers) {
    return `tools.python.workers (${p.workers}) and rollout.python_workers (${r.python_workers}) disagree; tools.python.workers wins: remove rollout.python_workers`;
  }
  if (p.timeout_ms > r.tool_timeout_ms) return `tools.python.timeout_ms (${p.timeout_ms}) is above rollout.tool_timeout_ms (${r.tool_timeout_ms}), which cancels every tool call first: lower it or raise rollout.tool_timeout_ms`;
  const slow = c.tools.http.find((t) => t.timeout_ms > r.tool_timeout_ms);
  if (slow) return `tools.http ${slow.name}.timeout_ms (${slow.timeout_ms}) is above rollout.tool_timeout_ms (${r.tool_timeout_ms}), which cancels every tool call first: lower it or raise rollout.tool_timeout_ms`;
  if (s.timeout_ms > r.tool_timeout_ms) return `tools.search.timeout_ms (${s.timeout_ms}) is above rollout.tool_timeout_ms (${r.tool_timeout_ms}), which cancels every tool call first: lower it or raise rollout.tool_timeout_ms`;
  if (s.corpus !== null && c.data.corpus !== null && s.corpus !== c.data.corpus) {
    return `tools.search.corpus (${s.corpus}) and data.corpus (${c.data.corpus}) name different files; tools.search.corpus wins: remove data.corpus`;
  }
  if (s.mode === 'proxy') {
    if (s.url === null) return 'tools.search.mode is "proxy" but tools.search.url is null; set it to the proxy\'s API base, e.g. http://127.0.0.1:8787/api (start one with `npm run proxy`)';
    if (!/^https?:\/\/[^\s]+$/.test(s.url)) return `tools.search.url is ${JSON.stringify(s.url)}; use an http(s) URL such as http://127.0.0.1:8787/api`;
    if (s.corpus !== null) return 'tools.search.corpus is set but tools.search.mode is "proxy"; remove the corpus or set mode: corpus';
  } else if (s.url !== null || s.provider !== null) {
    return `tools.search.${s.url !== null ? 'url' : 'provider'} is set but tools.search.mode is "corpus"; set tools.search.mode: proxy`;
  }
  return null;
}

/** The Python pool's settings: tools.python where set, else the rollout fields. */
export function poolSettings(c: RlConfig): { workers: number; timeoutMs: number; maxMemoryBytes: number; maxOutputBytes: number } {
  const p = c.tools.python;
  return {
    workers: p.workers || c.rollout.python_workers,
    timeoutMs: p.timeout_ms || c.rollout.tool_timeout_ms,
    maxMemoryBytes: p.memory_mb * 2 ** 20,
    maxOutputBytes: p.output_bytes,
  };
}

/** The environment brings its own search tool (and needs a backend). */
export function envHasSearch(c: RlConfig): boolean {
  return c.data.env_module === null && (c.data.env === 'search_qa' || c.data.env === 'agent');
}

/** A search backend is needed: the env's own tool, or tools.search.offer. */
export function needsSearch(c: RlConfig): boolean {
  return envHasSearch(c) || c.tools.search.offer;
}

/**
 * ProxyClient on the proxy at tools.search.url, checked through its /api/health (reachable, and the
 * provider tools.search.provider asks for). Node sends the proxy's own origin, as its page would.
 */
export async function connectSearchProxy(c: RlConfig, fetchFn: typeof fetch = (...a) => fetch(...a)): Promise<SearchBackend> {
  const s = c.tools.search, timeoutMs = s.timeout_ms || c.rollout.tool_timeout_ms;
  const base = (s.url ?? '').replace(/\/$/, '');
  const origin = new URL(base).origin;
  let health: { provider?: string };
  try {
    const res = await fetchFn(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    health = (await res.json()) as { provider?: string };
  } catch (e) {
    throw new Error(`tools.search.url ${base}: no search proxy answers there (${(e as Error).message}); start one with \`npm run proxy\` and set the URL it prints + /api`);
  }
  if (s.provider !== null && health.provider !== s.provider) {
    throw new Error(`tools.search.provider is "${s.provider}" but the proxy at ${base} uses "${String(health.provider)}"; set provider in its configs/search.yaml or change tools.search.provider`);
  }
  const client = new ProxyClient(base, (input, init) => fetchFn(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin } }));
  return {
    name: client.name,
    search: (query, k, signal) => {
      // Responsive time (util/responsive-timeout.ts): the run's own synchronous GPU work does not count.
      const timeout = responsiveSignal(timeoutMs);
      return client.search(query, k, signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal).finally(timeout.clear);
    },
  };
}

/** Tools added to whatever the environment offers: `search` (tools.search.offer, when the env has none) and tools.http. */
export function extraTools(c: RlConfig, search: SearchBackend | null, fetchFn?: typeof fetch): Tool[] {
  const tools: Tool[] = [];
  if (c.tools.search.offer && !envHasSearch(c)) {
    if (!search) throw new Error('tools.search.offer is true but no search backend was started (startServices builds it)');
    tools.push(searchTool(search, { k: c.tools.search.top_k }));
  }
  if (c.tools.http.length) {
    const transport = directHttpTransport(c.tools.http, fetchFn);
    for (const t of c.tools.http) tools.push(httpTool(t, transport));
  }
  return tools;
}
