// The search proxy against a fake provider on 127.0.0.1: retries on 429, gives up on persistent
// 5xx after max_retries, times out a slow provider, holds the rate limit, serves repeats (and a
// GRPO group's concurrent identical queries) from one provider call, refuses foreign Hosts (before
// any token), foreign origins and missing tokens, validates bodies and HTTP-tool arguments (ajv),
// stops reading endless answers, never leaks the API key, not even in part at a cut, and
// forwards allowlisted HTTP tools.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveSearchConfig, type SearchConfig } from '../../../src/server/search/config';
import { startProxyServer } from '../../../src/server/proxy/server';
import { ProxyClient } from '../../../src/tools/proxy-client';

const KEY = 'sk-test-SECRET-4f2a9c';
const ORIGIN = 'http://localhost:5173';

type Behaviour = (req: IncomingMessage, body: string, res: ServerResponse, hit: number) => void;
let behaviour: Behaviour;
let hits = 0;
let fake: Server;
let fakeUrl = '';
const open: Server[] = [];

const tavilyOk = (res: ServerResponse, q: string) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ results: [
    { title: ` Result for ${q} `, url: 'https://example.org/a', content: 'first   snippet\n text' },
    { title: 'Second', url: 'https://example.org/b', content: 'x'.repeat(500) },
  ] }));
};

beforeAll(async () => {
  fake = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => behaviour(req, body, res, ++hits));
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const a = fake.address();
  fakeUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});

afterAll(() => {
  fake.close();
});

afterEach(() => {
  for (const s of open.splice(0)) s.close();
  hits = 0;
});

async function proxy(over: Record<string, unknown> = {}) {
  process.env.FAKE_TAVILY_KEY = KEY;
  const config: SearchConfig = resolveSearchConfig({
    provider: 'tavily', endpoint: `${fakeUrl}/search`, api_key_env: 'FAKE_TAVILY_KEY', timeout_ms: 300,
    max_retries: 2, backoff_factor: 0.01, rate_limit_per_min: 100, max_snippet_chars: 50, allowed_origins: [ORIGIN], ...over,
  });
  const p = await startProxyServer(config, 0, '127.0.0.1');
  open.push(p.server);
  const call = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${p.url}/api${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: ORIGIN, 'x-studio-session': p.handler.token, ...headers }, body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(text).not.toContain(KEY);
    return { status: res.status, body: JSON.parse(text) as { error?: string; results?: { title: string; url: string; snippet: string }[]; cached?: boolean; text?: string; token?: string } };
  };
  return { ...p, call };
}

describe('search proxy', () => {
  it('normalizes results and retries a 429', async () => {
    behaviour = (req, body, res, hit) => {
      expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
      if (hit === 1) {
        res.writeHead(429);
        return res.end('slow down');
      }
      tavilyOk(res, (JSON.parse(body) as { query: string }).query);
    };
    const p = await proxy();
    const r = await p.call('/search', { query: '  who  won ', count: 2 });
    expect(r.status).toBe(200);
    expect(hits).toBe(2);
    expect(r.body.results).toEqual([
      { title: 'Result for who won', url: 'https://example.org/a', snippet: 'first snippet text' },
      { title: 'Second', url: 'https://example.org/b', snippet: `${'x'.repeat(50)}...` },
    ]);
  });

  it('gives up on a persistent 5xx after max_retries with a clear error, and never echoes the key', async () => {
    behaviour = (req, _b, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end(`upstream down; you sent ${req.headers.authorization}`);
    };
    const p = await proxy({ max_retries: 2 });
    const r = await p.call('/search', { query: 'q' });
    console.log(`persistent 503: HTTP ${r.status} "${r.body.error}" after ${hits} provider calls`);
    expect(r.status).toBe(502);
    expect(hits).toBe(3);
    expect(r.body.error).toBe('search provider tavily failed after 3 attempts: HTTP 503');
  });

  it('times out a slow provider', async () => {
    behaviour = (_r, body, res) => setTimeout(() => !res.destroyed && tavilyOk(res, body), 2000);
    const p = await proxy({ max_retries: 1, timeout_ms: 200 });
    const t0 = performance.now();
    const r = await p.call('/search', { query: 'slow' });
    const ms = performance.now() - t0;
    console.log(`slow provider: HTTP ${r.status} "${r.body.error}" in ${ms.toFixed(0)} ms`);
    expect(r.status).toBe(504);
    expect(r.body.error).toContain('timed out after 200 ms');
    expect(ms).toBeLessThan(1500);
  });

  it('holds the rate limit and serves repeats from the cache with one provider call', async () => {
    behaviour = (_r, body, res) => tavilyOk(res, (JSON.parse(body) as { query: string }).query);
    const p = await proxy({ rate_limit_per_min: 2 });
    const group = await Promise.all([1, 2, 3, 4].map(() => p.call('/search', { query: 'same question' })));
    expect(group.every((g) => g.status === 200)).toBe(true);
    expect(hits).toBe(1);
    expect(group.filter((g) => g.body.cached).length).toBe(3);
    expect((await p.call('/search', { query: 'same question' })).body.cached).toBe(true);
    expect((await p.call('/search', { query: 'second' })).status).toBe(200);
    const third = await p.call('/search', { query: 'third' });
    console.log(`rate limit 2/min: third distinct query -> HTTP ${third.status} "${third.body.error}"; provider calls ${hits}`);
    expect(third.status).toBe(429);
    expect(hits).toBe(2);
  });

  it('refuses foreign origins, missing tokens, bad bodies and oversized requests', async () => {
    behaviour = (_r, body, res) => tavilyOk(res, body);
    const p = await proxy();
    expect((await p.call('/search', { query: 'x' }, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await p.call('/session', {}, { origin: 'http://evil.example' })).status).toBe(403);
    const pre = await fetch(`${p.url}/api/search`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
    expect(pre.status).toBe(403);
    const preOk = await fetch(`${p.url}/api/search`, { method: 'OPTIONS', headers: { origin: ORIGIN } });
    expect(preOk.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect((await p.call('/search', { query: 'x' }, { 'x-studio-session': 'wrong' })).status).toBe(401);
    expect((await p.call('/search', { query: 'x', extra: 1 })).body.error).toContain('unknown field');
    expect((await p.call('/search', { query: '   ' })).status).toBe(400);
    expect((await p.call('/search', { query: 'x', count: 99 })).status).toBe(400);
    expect((await p.call('/search', { query: 'x'.repeat(20_000) })).status).toBe(413);
    const noOrigin = await fetch(`${p.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noOrigin.status).toBe(403);
    expect(hits).toBe(0);
  });

  it('serves the page client (session token, search) and allowlisted HTTP tools', async () => {
    behaviour = (req, body, res) => {
      if (req.url === '/weather') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`sunny in ${(JSON.parse(body) as { city: string }).city}`);
      }
      tavilyOk(res, (JSON.parse(body) as { query: string }).query);
    };
    const p = await proxy({ http_tools: [{ name: 'weather', description: 'Weather', url: `${fakeUrl}/weather`, parameters: { type: 'object' } }] });
    const client = new ProxyClient(`${p.url}/api`, (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: ORIGIN } }));
    expect((await client.search('hello', 1))[0].title).toBe('Result for hello');
    expect(await client.callTool('weather', { city: 'Paris' })).toBe('sunny in Paris');
    await expect(client.callTool('nope', {})).rejects.toThrow('unknown HTTP tool "nope"');
  });
});

/** A raw POST with the headers a browser on another site would send (fetch cannot forge Host). */
function rawPost(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

/** Answers with an endless body, 1 KiB at a time, and records when the reader hung up. */
function endless(res: ServerResponse, first: string, state: { closed: boolean; sent: number }) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(first);
  const timer = setInterval(() => {
    if (res.destroyed) return;
    res.write('y'.repeat(1024));
    state.sent += 1024;
  }, 1);
  res.on('close', () => {
    state.closed = true;
    clearInterval(timer);
  });
}

describe('search proxy hardening (issue 9)', () => {
  it('answers a foreign Host (DNS rebinding) with 403 before any token is issued', async () => {
    behaviour = (_r, body, res) => tavilyOk(res, body);
    const p = await proxy({ allowed_hosts: ['studio.lan'] });
    const port = new URL(p.url).port;
    const rebound = await rawPost(p.url, '/api/session', { host: `evil.example:${port}`, origin: `http://evil.example:${port}` });
    console.log(`foreign Host: HTTP ${rebound.status} ${rebound.body}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(p.handler.token);
    expect(rebound.body).toContain('allowed_hosts');
    for (const host of [`127.0.0.1.evil.example:${port}`, `localhost@evil.example:${port}`, '']) {
      expect((await rawPost(p.url, '/api/session', { host, origin: `http://${host}` })).status).toBe(403);
    }
    const lan = await rawPost(p.url, '/api/session', { host: `studio.lan:${port}`, origin: `http://studio.lan:${port}` });
    expect(lan.status).toBe(200);
    expect(JSON.parse(lan.body)).toEqual({ token: p.handler.token });
    const local = await rawPost(p.url, '/api/session', { host: `localhost:${port}`, origin: `http://localhost:${port}` });
    expect(local.status).toBe(200);
    expect(hits).toBe(0);
  });

  it('has no default origin: only the page\'s own origin, or one configured', async () => {
    const c = resolveSearchConfig({});
    expect(c.allowed_origins).toEqual([]);
    behaviour = (_r, body, res) => tavilyOk(res, body);
    const p = await proxy({ allowed_origins: [] });
    expect((await p.call('/session', {}, { origin: ORIGIN })).status).toBe(403);
    const port = new URL(p.url).port;
    expect((await rawPost(p.url, '/api/session', { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).status).toBe(200);
  });

  it('checks HTTP-tool arguments against their JSON Schema before calling the tool', async () => {
    behaviour = (_r, body, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`got ${body}`);
    };
    const parameters = { type: 'object', properties: { city: { type: 'string', minLength: 2 }, days: { type: 'integer', maximum: 7 } }, required: ['city'], additionalProperties: false };
    const p = await proxy({ http_tools: [{ name: 'weather', description: 'Weather', url: `${fakeUrl}/weather`, parameters }] });
    const bad = await p.call('/tool/weather', { arguments: { days: 9, extra: true } });
    console.log(`invalid HTTP-tool call: HTTP ${bad.status} "${bad.body.error}"`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid call to HTTP tool weather: arguments.city is required; arguments.extra is not a known parameter; arguments.days must be <= 7');
    expect((await p.call('/tool/weather', { arguments: { city: 'P' } })).body.error).toContain('arguments.city must NOT have fewer than 2 characters');
    expect(hits).toBe(0);
    expect((await p.call('/tool/weather', { arguments: { city: 'Paris', days: 2 } })).body.text).toBe('got {"city":"Paris","days":2}');
    expect(() => resolveSearchConfig({ http_tools: [{ name: 't', url: 'http://x', parameters: { type: 'object', properties: { a: { type: 'strin' } } } }] })).toThrow('http_tools "t": the parameters are not a valid JSON Schema');
  });

  it('stops reading an endless provider answer at max_response_bytes', async () => {
    const state = { closed: false, sent: 0 };
    behaviour = (_r, _b, res) => endless(res, '{"results": [{"title": "', state);
    const p = await proxy({ max_response_bytes: 4096, max_retries: 0, timeout_ms: 5000 });
    const r = await p.call('/search', { query: 'big' });
    console.log(`endless provider: HTTP ${r.status} "${r.body.error}"; fake sent ${state.sent} bytes before the proxy hung up`);
    expect(r.status).toBe(502);
    expect(r.body.error).toContain('answered more than 4096 bytes (max_response_bytes)');
    await new Promise((res) => setTimeout(res, 50));
    expect(state.closed).toBe(true);
  });

  it('caps an endless HTTP-tool answer while reading it', async () => {
    const state = { closed: false, sent: 0 };
    behaviour = (_r, _b, res) => endless(res, 'start ', state);
    const p = await proxy({ max_tool_response_bytes: 3000, http_tools: [{ name: 'big', description: 'Big', url: `${fakeUrl}/big`, parameters: { type: 'object' } }] });
    const r = await p.call('/tool/big', { arguments: {} });
    expect(r.status).toBe(200);
    expect(r.body.text!.startsWith('start yyy')).toBe(true);
    expect(r.body.text!.endsWith('\n...[answer cut at 3000 bytes]')).toBe(true);
    expect(r.body.text!.length).toBe(3000 + '\n...[answer cut at 3000 bytes]'.length);
  });

  it('redacts the key before cutting: a key straddling the cut never leaks in part', async () => {
    const head = KEY.slice(0, 6);
    behaviour = (req, _b, res) => {
      if (req.url === '/echo') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`${'a'.repeat(95)}${KEY} and more after the key`);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ results: [{ title: 't', url: 'https://example.org', content: `${'y'.repeat(45)}${KEY} rest` }] }));
    };
    const p = await proxy({ max_snippet_chars: 50, max_tool_response_bytes: 100, http_tools: [{ name: 'echo', description: 'Echo', url: `${fakeUrl}/echo`, parameters: { type: 'object' } }] });
    const r = await p.call('/search', { query: 'leak' });
    console.log(`snippet cut across the key: ${JSON.stringify(r.body.results![0].snippet)}`);
    expect(r.body.results![0].snippet).not.toContain(head);
    expect(r.body.results![0].snippet.startsWith(`${'y'.repeat(45)}***`)).toBe(true);
    const t = await p.call('/tool/echo', { arguments: {} });
    console.log(`tool answer cut across the key: ...${JSON.stringify(t.body.text!.slice(90))}`);
    expect(t.body.text).not.toContain(head);
    expect(t.body.text!.startsWith(`${'a'.repeat(95)}***`)).toBe(true);
  });
});
