// The search proxy against a fake provider on 127.0.0.1: retries on 429, gives up on persistent
// 5xx after max_retries, times out a slow provider, holds the rate limit, serves repeats (and a
// GRPO group's concurrent identical queries) from one provider call, refuses foreign origins and
// missing tokens, validates bodies, never leaks the API key, and forwards allowlisted HTTP tools.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveSearchConfig, type SearchConfig } from '../../src/server/search/config';
import { startProxyServer } from '../../src/server/proxy/server';
import { ProxyClient } from '../../src/tools/proxy-client';

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
