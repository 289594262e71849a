// Load test of the OpenAI-compatible server (not a test: it prints figures, never fails on
// time): starts `serve` in this process on 127.0.0.1 (stories260K by default), then N streaming
// clients (the official openai package) send chat requests back to back for a fixed duration.
// Prints requests/s, completion tokens/s, p50/p99 latency and time to first token, failures,
// traces written vs requests answered (no lost trace), and memory (RSS, GPU pool) over time.
//   npx tsx scripts/load-serve.ts [--clients 32] [--seconds 120] [--max-tokens 32] [--model PATH]
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { getNumber, getString, parseArgs } from '../src/util/args';
import { loadCliModel } from '../src/model/node-load';
import { DEFAULT_HTTP, startServe } from '../src/server/openai/server';
import { sharedDir } from './shared-dir';

const args = parseArgs(process.argv.slice(2));
const clients = getNumber(args, 'clients', 32), seconds = getNumber(args, 'seconds', 120), maxTokens = getNumber(args, 'max-tokens', 32);
const modelPath = getString(args, 'model', join(sharedDir(), 'models/stories260K/stories260K.bin'));
const log = (s: string) => process.stderr.write(s);

const { rt, loaded, model } = await loadCliModel(parseArgs(['--model', modelPath, '--quant', getString(args, 'quant', 'none')]), log);
const out = mkdtempSync(join(tmpdir(), 'load-serve-'));
const srv = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, {
  modelId: 'load', host: '127.0.0.1', port: 0, outDir: out, maxBatch: getNumber(args, 'max-batch', clients), maxContext: Math.min(model.cfg.maxPositions, 256),
  http: { ...DEFAULT_HTTP, rateLimit: 0, maxQueue: 4 * clients },
});
const client = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 120_000 });
const words = ['Lily', 'Tom', 'a dog', 'the sun', 'a red ball', 'the park', 'a cat', 'a big tree'];

const latencies: number[] = [], firstToken: number[] = [];
let ok = 0, failed = 0, tokens = 0;
const errors = new Map<string, number>();
const memory: { t: number; rss: number; gpu: number }[] = [];
const t0 = performance.now();
const deadline = t0 + seconds * 1000;
const sampler = setInterval(() => memory.push({ t: (performance.now() - t0) / 1000, rss: process.memoryUsage().rss, gpu: rt.memory().inUse }), 5000);

async function worker(id: number): Promise<void> {
  for (let i = 0; performance.now() < deadline; i++) {
    const start = performance.now();
    let first = 0;
    try {
      const stream = await client.chat.completions.create({
        model: 'load', stream: true, stream_options: { include_usage: true }, max_tokens: maxTokens,
        messages: [{ role: 'user', content: `Tell a story about ${words[(id + i) % words.length]}.` }],
      }, { headers: { 'x-rollout-id': `load-${id}-${i}` } });
      for await (const ch of stream) {
        if (!first && ch.choices[0]?.delta.content) first = performance.now() - start;
        if (ch.usage) tokens += ch.usage.completion_tokens;
      }
      latencies.push(performance.now() - start);
      firstToken.push(first);
      ok++;
    } catch (e) {
      failed++;
      const k = (e as Error).message.slice(0, 80);
      errors.set(k, (errors.get(k) ?? 0) + 1);
    }
  }
}

await Promise.all(Array.from({ length: clients }, (_, i) => worker(i)));
clearInterval(sampler);
const secs = (performance.now() - t0) / 1000;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const traced = readFileSync(join(out, 'traces', 'calls.jsonl'), 'utf8').trim().split('\n').length;
const mb = (b: number) => (b / 2 ** 20).toFixed(1);
const half = Math.floor(memory.length / 2);
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const st = srv.deps.scheduler.stats;
console.log(`load-serve: ${clients} streaming clients, ${secs.toFixed(1)} s, max_tokens ${maxTokens}, model ${modelPath}`);
console.log(`requests: ${ok} ok, ${failed} failed (${(ok / secs).toFixed(2)} requests/s)`);
console.log(`completion tokens: ${tokens} (${(tokens / secs).toFixed(1)} tokens/s); decode steps ${st.steps}, ${(st.sampledRows / Math.max(1, st.steps)).toFixed(1)} sequences per step, max ${st.maxConcurrent}`);
console.log(`latency (request to [DONE]): p50 ${(pct(latencies, 50) / 1000).toFixed(2)} s, p99 ${(pct(latencies, 99) / 1000).toFixed(2)} s; first token p50 ${(pct(firstToken, 50) / 1000).toFixed(2)} s, p99 ${(pct(firstToken, 99) / 1000).toFixed(2)} s`);
console.log(`traces: ${traced} records for ${ok} answered requests${traced === ok ? ' (none lost)' : ' (MISMATCH)'}`);
console.log(`memory: RSS first half avg ${mb(avg(memory.slice(0, half).map((m) => m.rss)))} MiB, second half ${mb(avg(memory.slice(half).map((m) => m.rss)))} MiB, max ${mb(Math.max(...memory.map((m) => m.rss)))} MiB; GPU pool in use ${mb(memory[0]?.gpu ?? 0)} -> ${mb(memory[memory.length - 1]?.gpu ?? 0)} MiB`);
for (const [k, n] of errors) console.log(`  error x${n}: ${k}`);
await srv.close();
model.dispose();
process.exit(0);
