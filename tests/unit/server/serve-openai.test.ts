// The OpenAI-compatible server for real: stories260K (f32) behind startServe on 127.0.0.1, driven
// by the official `openai` npm client: models, chat, streaming, n > 1, logprobs / top_logprobs,
// batching of concurrent requests, OpenAI-shaped errors (400/401/403/404/413/429), captured traces
// (mask exactly on sampled tokens, log-probs vs a fresh forward, maxdiff printed), token-faithful
// multi-turn and divergence reports, and the reward endpoint.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles, type LoadedModel } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { DEFAULT_HTTP, startServe, type RunningServer } from '../../../src/server/openai/server';
import type { CallRecord, RewardRecord } from '../../../src/server/openai/traces';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { nodeRuntime } from '../helpers/gpu-helpers';

let rt: GpuRuntime, model: GpuModel, loaded: LoadedModel, srv: RunningServer, client: OpenAI, out: string;
const MODEL = 'stories260K';

beforeAll(async () => {
  rt = await nodeRuntime();
  loaded = await loadModelFiles(await openNodeModelSource(join(STORIES_DIR, 'stories260K.bin')));
  model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
  out = mkdtempSync(join(tmpdir(), 'serve-'));
  srv = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, {
    modelId: MODEL, host: '127.0.0.1', port: 0, outDir: out, maxBatch: 8, maxContext: 256, http: { ...DEFAULT_HTTP, maxBodyBytes: 64 * 1024 },
  });
  client = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: 'unused', maxRetries: 0 });
});

afterAll(async () => {
  await srv?.close();
  model?.dispose();
});

/** GET with a chosen Host header (fetch does not let a caller set it). */
function rawGet(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString('utf8'); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const readJsonl = <T>(file: string): T[] => readFileSync(join(out, 'traces', file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
const user = (content: string) => ({ role: 'user' as const, content });

describe('serve: the official openai client against stories260K on 127.0.0.1', () => {
  it('lists the model and answers chat with n > 1, logprobs and top_logprobs', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([MODEL]);
    const r = await client.chat.completions.create({ model: MODEL, messages: [user('Once upon a time')], max_tokens: 12, n: 3, logprobs: true, top_logprobs: 3, seed: 7 });
    let compared = 0;
    expect(r.object).toBe('chat.completion');
    expect(r.choices).toHaveLength(3);
    for (const c of r.choices) {
      expect(c.message.role).toBe('assistant');
      expect(typeof c.message.content).toBe('string');
      expect(['stop', 'length']).toContain(c.finish_reason);
      const lp = c.logprobs!.content!;
      expect(lp.length).toBeGreaterThan(0);
      // Each entry's bytes are what its token adds in the middle of a text (a SentencePiece `▁` as
      // a space, so `"` and `▁"` differ): together the message, whose decoding strips the first space.
      const bytes = lp.flatMap((t) => t.bytes!);
      expect(new TextDecoder().decode(Uint8Array.from(bytes)).replace(/^ /, ''), `choice ${c.index}`).toBe(c.message.content);
      for (const t of lp) expect(t.token).toBe(new TextDecoder().decode(Uint8Array.from(t.bytes!)));
      // The sampled token's log-prob, when it is among the top 3 (the same bytes), equals that
      // entry's (same forward, recomputed).
      let checked = 0, d = 0;
      for (const t of lp) {
        expect(t.top_logprobs).toHaveLength(3);
        expect(t.top_logprobs[0].logprob).toBeGreaterThanOrEqual(t.top_logprobs[2].logprob);
        const same = t.top_logprobs.find((x) => x.bytes!.join() === t.bytes!.join());
        if (same) { d = Math.max(d, Math.abs(same.logprob - t.logprob)); checked++; }
      }
      console.log(`choice ${c.index}: ${lp.length} tokens, sampled vs top_logprobs maxdiff ${d.toExponential(2)} over ${checked}`);
      expect(d).toBeLessThan(1e-4);
      compared += checked;
    }
    expect(compared).toBeGreaterThanOrEqual(6);
    expect(r.usage!.completion_tokens).toBeGreaterThanOrEqual(3);
  });

  it('streams chunks that add up to the non-streamed greedy answer', async () => {
    const req = { model: MODEL, messages: [user('Tell me about Lily.')], max_tokens: 16, temperature: 0 };
    const whole = await client.chat.completions.create(req);
    const stream = await client.chat.completions.create({ ...req, stream: true, stream_options: { include_usage: true } });
    let text = '', finish: string | null = null, chunks = 0, usage = 0;
    for await (const ch of stream) {
      expect(ch.object).toBe('chat.completion.chunk');
      chunks++;
      for (const c of ch.choices) {
        text += c.delta.content ?? '';
        finish = c.finish_reason ?? finish;
      }
      if (ch.usage) usage = ch.usage.completion_tokens;
    }
    console.log(`stream: ${chunks} chunks, ${JSON.stringify(text)}`);
    expect(chunks).toBeGreaterThan(3);
    expect(text).toBe(whole.choices[0].message.content);
    expect(finish).toBe(whole.choices[0].finish_reason);
    expect(usage).toBe(whole.usage!.completion_tokens);
  });

  it('batches concurrent requests into shared decode steps', async () => {
    const before = { ...srv.deps.scheduler.stats };
    const rs = await Promise.all([0, 1, 2, 3].map((i) => client.chat.completions.create({ model: MODEL, messages: [user(`Story ${i}`)], max_tokens: 10, temperature: 0.8 })));
    const s = srv.deps.scheduler.stats;
    const steps = s.steps - before.steps, rows = s.sampledRows - before.sampledRows;
    console.log(`4 concurrent requests: ${steps} steps for ${rows} sampled tokens (${(rows / steps).toFixed(2)} per step), max concurrent ${s.maxConcurrent}`);
    expect(rs.every((r) => r.choices[0].message.content !== null)).toBe(true);
    expect(s.maxConcurrent).toBeGreaterThanOrEqual(2);
    expect(rows / steps).toBeGreaterThan(1.5);
  });

  // Choice i of a seeded request draws from noise stream i at each token's position: the same
  // answer alone as batched beside another request with that seed (which joins its decode steps).
  it('a seeded request answers the same alone and batched with others', async () => {
    const req = (content: string, n = 1) => client.chat.completions.create({ model: MODEL, messages: [user(content)], max_tokens: 12, temperature: 0.9, seed: 21, n });
    const alone = await req('Story of a cat', 2);
    const before = srv.deps.scheduler.stats.steps;
    const [batched, other] = await Promise.all([req('Story of a cat', 2), req('A dog ran')]);
    const steps = srv.deps.scheduler.stats.steps - before;
    const texts = (r: typeof alone) => r.choices.map((c) => c.message.content);
    console.log(`seeded alone ${JSON.stringify(texts(alone))}, batched ${JSON.stringify(texts(batched))} (${steps} steps with ${JSON.stringify(texts(other))})`);
    expect(steps).toBeLessThan(24); // the two requests shared steps
    expect(texts(batched)).toEqual(texts(alone));
    expect(alone.choices[0].message.content).not.toBe(alone.choices[1].message.content);
  });

  it('answers bad requests with OpenAI-shaped errors', async () => {
    const fail = async (p: Promise<unknown>) => p.then(() => { throw new Error('expected an error'); }, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    const bad = await fail(client.chat.completions.create({ model: MODEL, messages: [user('x')], temperature: 5 }));
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad.status).toBe(400);
    expect(bad.param).toBe('temperature');
    expect(bad.type).toBe('invalid_request_error');
    const missing = await fail(client.chat.completions.create({ model: 'gpt-4o', messages: [user('x')] }));
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.code).toBe('model_not_found');
    const role = await fail(client.chat.completions.create({ model: MODEL, messages: [{ role: 'robot', content: 'x' } as never] }));
    expect(role.param).toBe('messages[0].role');
    const choice = await fail(client.chat.completions.create({ model: MODEL, messages: [user('x')], tool_choice: 'required' }));
    expect(choice.param).toBe('tool_choice');
    const big = await fail(client.chat.completions.create({ model: MODEL, messages: [user('x'.repeat(70 * 1024))] }));
    expect(big.status).toBe(413);
    // DNS rebinding: a page on attacker.example resolved to 127.0.0.1 sends its own Host header.
    const host = await rawGet(`${srv.url}/v1/models`, 'attacker.example:80');
    expect(host.status).toBe(403);
    expect((JSON.parse(host.body) as { error: { code: string } }).error.code).toBe('host_not_allowed');
    const reward = await fetch(`${srv.url}/v1/rollouts/r1/reward`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"reward": "high"}' });
    expect(reward.status).toBe(400);
    expect(((await reward.json()) as { error: { param: string } }).error.param).toBe('reward');
  });

  it('needs the bearer token when given one, and rate-limits per client', async () => {
    const locked = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, {
      modelId: MODEL, host: '127.0.0.1', port: 0, outDir: null, maxBatch: 2, maxContext: 64, http: { ...DEFAULT_HTTP, token: 'sekret', rateLimit: 8 },
    });
    try {
      const wrong = new OpenAI({ baseURL: `${locked.url}/v1`, apiKey: 'nope', maxRetries: 0 });
      await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
      const right = new OpenAI({ baseURL: `${locked.url}/v1`, apiKey: 'sekret', maxRetries: 0 });
      expect((await right.models.list()).data[0].id).toBe(MODEL);
      expect((await right.models.list()).data[0].id).toBe(MODEL);
      // A burst of 8 / 4 = 2 requests per client (the refused key took none); the next gets 429.
      await expect(right.models.list()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    } finally {
      await locked.close();
    }
  });

  it('cancels the choices of a client that goes away mid-stream', async () => {
    const ac = new AbortController();
    const stream = await client.chat.completions.create({ model: MODEL, messages: [user('A long story')], max_tokens: 200, stream: true, metadata: { rollout_id: 'gone' } }, { signal: ac.signal });
    let chunks = 0;
    try {
      for await (const ch of stream) {
        // Chunks that arrived in the same read as the second may still be handed out after abort().
        if (ac.signal.aborted) break;
        if (ch.choices[0]?.delta.content && ++chunks === 2) ac.abort();
      }
    } catch {
      // Depending on timing the SDK ends the iteration quietly or throws an abort error.
    }
    expect(chunks).toBe(2);
    // The trace is still written, ended early with finish_reason "cancelled".
    let rec: CallRecord | undefined;
    for (let i = 0; i < 100 && !rec; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (existsSync(join(out, 'traces', 'calls.jsonl'))) rec = readJsonl<CallRecord>('calls.jsonl').find((c) => c.rollout_id === 'gone');
    }
    console.log(`cancelled after ${rec!.tokens.length - rec!.prompt_length} of at most 200 tokens`);
    expect(rec!.finish_reason).toBe('cancelled');
    expect(rec!.tokens.length - rec!.prompt_length).toBeLessThan(200);
  });

  it('captures traces: mask exactly on sampled tokens, log-probs equal a fresh forward; rewards recorded', async () => {
    const rollout = 'trace-check';
    const r = await client.chat.completions.create({ model: MODEL, messages: [user('The dog')], max_tokens: 14, n: 2, metadata: { rollout_id: rollout, task_id: 'task-a' } });
    const recs = readJsonl<CallRecord>('calls.jsonl').filter((c) => c.rollout_id === rollout);
    expect(recs).toHaveLength(2);
    const fresh = await model.logprobs(recs.map((c) => c.tokens));
    recs.forEach((c, i) => {
      expect(c.task_id).toBe('task-a');
      expect(c.call_id).toBe(r.id);
      expect(c.mask).toEqual(c.tokens.map((_, t) => (t >= c.prompt_length ? 1 : 0)));
      expect(c.logprobs.every((v, t) => (c.mask[t] ? typeof v === 'number' : v === null))).toBe(true);
      let d = 0;
      for (let t = c.prompt_length; t < c.tokens.length; t++) d = Math.max(d, Math.abs(c.logprobs[t]! - fresh.logprobs[i][t - 1]));
      console.log(`trace choice ${i}: ${c.tokens.length - c.prompt_length} sampled tokens, log-probs vs a fresh forward maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThanOrEqual(1e-4); // decode path vs chunked log-prob path: other kernels, rounding only
    });
    const ok = await fetch(`${srv.url}/v1/rollouts/${rollout}/reward`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reward: [0.25, 0.5] }) });
    expect(ok.status).toBe(200);
    const rw = readJsonl<RewardRecord>('rewards.jsonl').filter((x) => x.rollout_id === rollout);
    expect(rw).toMatchObject([{ reward: 0.75, per_turn: [0.25, 0.5] }]);
  });

  it('continues a rollout on its stored tokens, and reports where a changed history diverges', async () => {
    const headers = { 'x-rollout-id': 'multi-turn' };
    const first = await client.chat.completions.create({ model: MODEL, messages: [user('Lily had a ball.')], max_tokens: 10, seed: 3 }, { headers });
    const answer = first.choices[0].message.content!;
    const history = [user('Lily had a ball.'), { role: 'assistant' as const, content: answer }, user('What happened next?')];
    const second = await client.chat.completions.create({ model: MODEL, messages: history, max_tokens: 8 }, { headers }).withResponse();
    expect(second.response.headers.get('x-token-faithful')).toBe('true');
    const recs = readJsonl<CallRecord>('calls.jsonl').filter((c) => c.rollout_id === 'multi-turn');
    expect(recs).toHaveLength(2);
    const [a, b] = recs;
    // The second prompt starts with every token the first call saw and sampled, untouched.
    expect(b.tokens.slice(0, a.tokens.length)).toEqual(a.tokens);
    expect(b.mask.slice(0, a.tokens.length)).toEqual(a.mask);
    expect(b.mask.slice(a.tokens.length, b.prompt_length).every((m) => m === 0)).toBe(true);
    expect(b.token_faithful && b.diverged === null).toBe(true);
    // The whole two-turn sequence, scored fresh, gives both calls' sampling log-probs.
    const fresh = await model.logprobs([b.tokens]);
    let d = 0, n = 0;
    b.mask.forEach((m, t) => {
      if (!m) return;
      d = Math.max(d, Math.abs(b.logprobs[t]! - fresh.logprobs[0][t - 1]));
      n++;
    });
    console.log(`two-turn trace: ${n} sampled tokens over both calls, log-probs vs a fresh forward maxdiff=${d.toExponential(2)}`);
    expect(n).toBe(a.tokens.length - a.prompt_length + b.tokens.length - b.prompt_length);
    expect(d).toBeLessThanOrEqual(1e-4); // decode path vs chunked log-prob path: other kernels, rounding only
    // A history whose assistant turn was edited cannot be matched: the server says where it diverged.
    const edited = [user('Lily had a ball.'), { role: 'assistant' as const, content: `${answer} and more` }, user('What happened next?')];
    const third = await client.chat.completions.create({ model: MODEL, messages: edited, max_tokens: 4 }, { headers }).withResponse();
    expect(third.response.headers.get('x-token-faithful')).toBe('false');
    const at = Number(third.response.headers.get('x-diverged-at-token'));
    console.log(`edited history diverges at token ${at} (first call prompt ${a.prompt_length} tokens)`);
    expect(at).toBeGreaterThanOrEqual(a.prompt_length);
  });
});
