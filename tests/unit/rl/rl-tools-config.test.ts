// The run config's `tools:` section end to end: a real GRPO step on agent-tiny (math env) with
// the search tool in proxy mode (the project's proxy server, src/server/proxy, in front of a fake
// Tavily provider on loopback) and one user HTTP tool (a loopback server), both calls forced by
// rollout.prefill in turn 1 (math env, which has no tools of its own here); turn 2 is the model's. Checks the tools were offered (system prompt) and called (rollouts.jsonl, the
// servers' hits); plus the field checks: did-you-mean, tools.http entries, conflicts with rollout.*
// and data.corpus, the Python pool's settings, and the GET form of the HTTP transport.
// Run: npx vitest run tests/unit/rl/rl-tools-config.test.ts
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxyServer } from '../../../src/server/proxy/server';
import { resolveSearchConfig } from '../../../src/server/search/config';
import { directHttpTransport } from '../../../src/tools/http-transport';
import { resolveConfig, type RlConfig } from '../../../src/rl/config-validate';
import { customReward } from '../../../src/rl/hooks';
import { nodeRecorder, openRun, startServices, type OpenRun } from '../../../src/run/rl-node-run';
import type { RolloutRecord } from '../../../src/rl/rollout-log';
import { runTraining, type RunResult } from '../../../src/run/rl-run';
import { poolSettings } from '../../../src/rl/tools-config';
import { AGENT_DIR } from '../../fixtures/interop-models';

const KEY = 'sk-fake-tools-config';
const dir = mkdtempSync(join(tmpdir(), 'rl-tools-'));
const out = join(dir, 'run');
const forced = '<tool_call>\n{"name": "search", "arguments": {"query": "red ball"}}\n</tool_call>\n'
  + '<tool_call>\n{"name": "weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>';   // agent-tiny ends a turn with <|im_end|>
const servers: Server[] = [];
const providerQueries: string[] = [];
const weatherBodies: unknown[] = [];
let proxyApi = '';
let weatherUrl = '';
let run: OpenRun;
let result: RunResult;

async function listen(handle: (req: IncomingMessage, body: string) => { status: number; json?: unknown; text?: string }): Promise<string> {
  const s = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const r = handle(req, body);
      res.writeHead(r.status, { 'content-type': r.json !== undefined ? 'application/json' : 'text/plain' });
      res.end(r.json !== undefined ? JSON.stringify(r.json) : r.text);
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

function config(tools: Record<string, unknown>, over: Record<string, unknown> = {}): RlConfig {
  return resolveConfig({
    // agent-tiny's own chat template lists the tools in the system turn (Qwen2.5 style).
    model: { path: AGENT_DIR, quant: 'none', template: 'auto' },
    data: { env: 'math', dataset: join(dir, 'tasks.jsonl') },
    env: { system_prompt: 'Answer.' },   // a short prompt keeps the sequences inside agent-tiny's 512 positions
    rollout: { batch_size: 1, group_size: 2, max_turns: 2, max_tokens: 512, max_new_tokens: 6, prefill: forced },
    optim: { lr: 0.01 },
    lora: { rank: 4, alpha: 8 },
    train: { steps: 1, recompute: false },
    log: { out_dir: out, checkpoint_every: 0, print_examples: 0 },
    tools,
    ...over,
  }, 'rl-tools.test');
}

beforeAll(async () => {
  writeFileSync(join(dir, 'tasks.jsonl'), '{"task_id": "a", "question": "What is 6*7?", "answer": "42"}\n');
  // The fake provider answers in Tavily's format; the proxy normalizes it.
  const provider = await listen((req, body) => {
    const q = (JSON.parse(body) as { query: string }).query;
    providerQueries.push(q);
    if (req.headers.authorization !== `Bearer ${KEY}`) return { status: 401, json: { error: 'bad key' } };
    return { status: 200, json: { results: [{ title: `Ball facts for ${q}`, url: 'https://example.org/ball', content: 'A ball is round.' }] } };
  });
  weatherUrl = `${await listen((_req, body) => {
    const args = JSON.parse(body) as { city: string };
    weatherBodies.push(args);
    return { status: 200, text: `sunny in ${args.city}` };
  })}/weather`;
  process.env.FAKE_TOOLS_TAVILY_KEY = KEY;
  const proxy = await startProxyServer(resolveSearchConfig({ provider: 'tavily', endpoint: `${provider}/search`, api_key_env: 'FAKE_TOOLS_TAVILY_KEY', timeout_ms: 2000 }), 0, '127.0.0.1');
  servers.push(proxy.server);
  proxyApi = `${proxy.url}/api`;
  const cfg = config({
    search: { mode: 'proxy', url: proxyApi, provider: 'tavily', offer: true, top_k: 2, timeout_ms: 5000 },
    http: [{ name: 'weather', description: 'City weather', url: weatherUrl, parameters: { type: 'object', properties: { city: { type: 'string' } } }, timeout_ms: 3000 }],
  });
  const meanLogprob = customReward('mean_logprob', 1, (e) => {
    const lps = e.logprobs.filter((_, i) => e.mask[i] === 1);
    return lps.reduce((a, v) => a + v, 0) / Math.max(1, lps.length);
  });
  run = await openRun(cfg, { log: () => {}, hooks: meanLogprob, tune: false });
  result = await runTraining({ ctx: run.ctx, tasks: run.tasks, emit: nodeRecorder(out), baseModelName: 'stories260K' });
}, 240_000);

afterAll(async () => {
  await run?.close();
  for (const s of servers) s.close();
});

describe('tools: search proxy and an HTTP tool in a GRPO step', () => {
  it('offers both tools, calls them through the proxy and the loopback server, and trains', () => {
    const row = result.history[0];
    console.log(`tools step 1: reward ${row.reward.toFixed(4)} loss ${row.loss.toExponential(3)} grad_norm ${row.grad_norm.toFixed(4)} tools/call_frequency ${row['tools/call_frequency']} tools/failure_frequency ${row['tools/failure_frequency']}`);
    expect(row['tools/call_frequency']).toBe(2);
    expect(row['tools/failure_frequency']).toBe(0);
    expect(row.grad_norm).toBeGreaterThan(0);
    expect(run.ctx.env.tools().map((t) => t.name)).toEqual(['search', 'weather']);
    const eps = readFileSync(join(out, 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RolloutRecord);
    expect(eps).toHaveLength(2);
    for (const e of eps) {
      // Offered: the prompt the model saw (its tokens, masked 0) carries both tools' signatures.
      const prompt = run.model.loaded.tokenizer.decode(e.tokens.slice(0, e.mask.indexOf(1)));
      expect(prompt).toContain('"name": "search"');
      expect(prompt).toContain('"name": "weather"');
      expect(prompt).toContain('City weather');
      expect(e.tool_calls.map((c) => [c.name, c.ok])).toEqual([['search', true], ['weather', true]]);
      const tool = e.messages!.filter((m) => m.role === 'tool');
      expect(tool.map((m) => m.name)).toEqual(['search', 'weather']);
      expect(tool[0].content).toBe('[Ball facts for red ball] (https://example.org/ball) A ball is round.');
      expect(tool[1].content).toBe('sunny in Paris');
    }
    // The group's identical queries reach the provider once (the proxy's cache); the HTTP tool once per episode.
    expect(providerQueries).toEqual(['red ball']);
    expect(weatherBodies).toEqual([{ city: 'Paris' }, { city: 'Paris' }]);
  });

  it('refuses a proxy that runs another provider, and a URL where no proxy answers', async () => {
    const wrong = config({ search: { mode: 'proxy', url: proxyApi, provider: 'serper', offer: true } });
    await expect(startServices(wrong, () => {})).rejects.toThrow(`tools.search.provider is "serper" but the proxy at ${proxyApi} uses "tavily"`);
    const none = config({ search: { mode: 'proxy', url: 'http://127.0.0.1:9/api', offer: true, timeout_ms: 2000 } });
    await expect(startServices(none, () => {})).rejects.toThrow('tools.search.url http://127.0.0.1:9/api: no search proxy answers there');
  });
});

describe('tools: the config fields', () => {
  const base = { model: { path: 'm' } };
  const err = (raw: Record<string, unknown>) => {
    try {
      resolveConfig({ ...base, ...raw }, 'c.yaml');
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };

  it('fills defaults and keeps rollout.python_workers working', () => {
    const c = resolveConfig({ ...base, tools: { http: [{ name: 'w', description: 'd', url: 'http://127.0.0.1:1/w' }] } }, 'c.yaml');
    expect(c.tools.http).toEqual([{ name: 'w', description: 'd', url: 'http://127.0.0.1:1/w', method: 'POST', parameters: { type: 'object', properties: {} }, timeout_ms: 10_000 }]);
    expect(c.tools.search).toMatchObject({ mode: 'corpus', offer: false, top_k: 3 });
    expect(poolSettings(resolveConfig({ ...base, rollout: { python_workers: 3, tool_timeout_ms: 5000 } }, 'c.yaml')))
      .toEqual({ workers: 3, timeoutMs: 5000, maxMemoryBytes: 512 * 2 ** 20, maxOutputBytes: 65_536 });
    expect(poolSettings(resolveConfig({ ...base, tools: { python: { workers: 4, timeout_ms: 2000, memory_mb: 256, output_bytes: 1000 } } }, 'c.yaml')))
      .toEqual({ workers: 4, timeoutMs: 2000, maxMemoryBytes: 256 * 2 ** 20, maxOutputBytes: 1000 });
    const set = resolveConfig(base, 'c.yaml', { sets: ['tools.search.mode=proxy', 'tools.search.url=http://127.0.0.1:8787/api'] });
    expect(set.tools.search).toMatchObject({ mode: 'proxy', url: 'http://127.0.0.1:8787/api' });
  });

  it('says did you mean, names the bad tools.http entry and the conflicting fields', () => {
    expect(err({ tools: { search: { mod: 'proxy' } } })).toBe('c.yaml: unknown field tools.search.mod; did you mean tools.search.mode?');
    expect(err({ tools: { serch: { mode: 'proxy' } } })).toContain('c.yaml: unknown section tools.serch; did you mean tools.search?');
    expect(err({ tools: { search: { mode: 'web' } } })).toBe('c.yaml: tools.search.mode is "web"; use corpus or proxy');
    expect(err({ tools: { http: [{ name: 'w', description: 'd', urll: 'http://x' }] } })).toBe('c.yaml: tools.http[0] has an unknown key urll; did you mean url?');
    expect(err({ tools: { http: [{ name: 'w', description: 'd', url: 'ftp://x' }] } })).toBe('c.yaml: tools.http[0].url is "ftp://x"; use an http(s) URL');
    expect(err({ tools: { http: [{ name: 'python', description: 'd', url: 'http://x' }] } })).toContain('tools.http[0].name "python" is a built-in tool');
    expect(err({ tools: { http: [{ name: 'w', description: 'd', url: 'http://x', parameters: { type: 'string' } }] } })).toContain('tools.http[0].parameters must be a JSON Schema of type "object"');
    expect(err({ tools: { python: { workers: 4 } }, rollout: { python_workers: 3 } }))
      .toBe('c.yaml: tools.python.workers (4) and rollout.python_workers (3) disagree; tools.python.workers wins: remove rollout.python_workers');
    expect(err({ tools: { python: { timeout_ms: 20_000 } } })).toContain('tools.python.timeout_ms (20000) is above rollout.tool_timeout_ms (10000)');
    expect(err({ tools: { http: [{ name: 'w', description: 'd', url: 'http://x', timeout_ms: 60_000 }] } })).toContain('tools.http w.timeout_ms (60000) is above rollout.tool_timeout_ms (10000)');
    expect(err({ tools: { search: { corpus: 'a.jsonl' } }, data: { corpus: 'b.jsonl' } })).toContain('tools.search.corpus (a.jsonl) and data.corpus (b.jsonl) name different files');
    expect(err({ tools: { search: { mode: 'proxy' } } })).toContain('tools.search.mode is "proxy" but tools.search.url is null');
    expect(err({ tools: { search: { url: 'http://127.0.0.1:8787/api' } } })).toContain('tools.search.url is set but tools.search.mode is "corpus"; set tools.search.mode: proxy');
  });

  it('offers the corpus search to an env without one (tools.search.offer) and names a missing corpus', async () => {
    const svc = await startServices(config({ search: { offer: true, corpus: 'datasets/squad_corpus.jsonl', top_k: 1 } }), () => {});
    const search = svc.services.extraTools!.find((t) => t.name === 'search')!;
    const out = await search.call({ query: 'Super Bowl 50' }, { episodeId: 'e' });
    console.log(`corpus search: ${out.text.slice(0, 100)}`);
    expect(out.ok).toBe(true);
    expect(out.text.split('\n\n')).toHaveLength(1);   // top_k 1
    expect(out.text).toContain('Super Bowl');
    await expect(startServices(config({ search: { offer: true, corpus: 'datasets/nope.jsonl' } }), () => {}))
      .rejects.toThrow('tools.search: the corpus datasets/nope.jsonl cannot be read (no such file); set tools.search.corpus');
  });

  it('sends GET tools their arguments as a query string and reports HTTP errors', async () => {
    const url = await listen((req) => (req.url?.includes('city=Oslo') ? { status: 200, text: `got ${req.method} ${req.url}` } : { status: 404, text: 'no such city' }));
    const call = directHttpTransport([{ name: 'w', url: `${url}/w`, method: 'GET', timeout_ms: 2000 }]);
    expect(await call('w', { city: 'Oslo', days: 2 })).toBe('got GET /w?city=Oslo&days=2');
    await expect(call('w', { city: 'Rome' })).rejects.toThrow(`${url}/w answered HTTP 404: no such city`);
  });
});
