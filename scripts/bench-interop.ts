// `npm run bench -- interop [--prompt-tokens N] [--new-tokens N] [--webgpu-new-tokens N]
//  [--browser true|false] [--models 0,1]`: our engine against onnxruntime-web on the same model
// and adapter (the rows of tests/fixtures/interop-models.ts, exported to ONNX f32 in memory):
// prefill and decode tokens/s and memory, with the ratio ours / ORT per phase. In Node: ours
// (WebGPU on Dawn) vs the wasm EP. In one Chromium run (the studio's dev server, harness page):
// ours vs the WebGPU EP vs the wasm EP. Prints figures only.
import { chromium } from '@playwright/test';
import { createServer } from 'vite';
import { getNodeGpu } from '../src/gpu/node-gpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { formatBytes } from '../src/gpu/errors';
import { GpuModel } from '../src/model/gpu/model';
import { exportOnnxFolder, MemorySink, onnxModelPath } from '../src/export';
import { exportPeftAdapter } from '../src/train/peft-export';
import { configureOrt } from '../src/ort/env';
import { decoderShape, OrtDecoder } from '../src/ort/decoder';
import { benchOrt, benchOurs, type PhaseSpeed } from '../src/ort/bench';
import type { OrtBenchRequest, OrtBenchRow } from '../src/harness/ort.harness';
import { getBool, getNumber, getString, parseArgs } from '../src/util/args';
import { INTEROP_MODELS } from '../tests/fixtures/interop-models';
import { chromeFlags, findChrome } from './find-chrome.mjs';

const args = parseArgs(process.argv.slice(2));
const P = getNumber(args, 'prompt-tokens', 32), N = getNumber(args, 'new-tokens', 32), NW = getNumber(args, 'webgpu-new-tokens', 8);
const picks = getString(args, 'models', INTEROP_MODELS.map((_, i) => i).join(',')).split(',').map(Number);

interface Row extends PhaseSpeed { engine: string; memory: string }

function table(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  console.log('| engine | prefill tok/s | decode tok/s | memory | ours/ORT prefill | ours/ORT decode |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  const ours = rows[0];
  for (const r of rows) {
    const ratio = (a: number, b: number) => (r === ours ? '' : (a / b).toFixed(2));
    console.log(`| ${r.engine} | ${r.prefillTokensPerSecond.toFixed(1)} | ${r.decodeTokensPerSecond.toFixed(1)} | ${r.memory} | ${ratio(ours.prefillTokensPerSecond, r.prefillTokensPerSecond)} | ${ratio(ours.decodeTokensPerSecond, r.decodeTokensPerSecond)} |`);
  }
}

const { gpu } = await getNodeGpu();
const rt = await GpuRuntime.create(gpu);
configureOrt({ numThreads: 1 });
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const browserRuns: { name: string; req: OrtBenchRequest }[] = [];

for (const i of picks) {
  const m = INTEROP_MODELS[i];
  const input = await m.open();
  const V = input.config.vocabSize, maxPos = input.config.maxPositions;
  // Prompt + decoded tokens must fit the model's positions (the tiny Qwen2 has 64).
  const promptLen = Math.min(P, Math.floor(maxPos / 2)), n = Math.min(N, maxPos - promptLen - 1);
  const prompt = Array.from({ length: promptLen }, (_, t) => (t * 7 + 3) % V);
  const sink = new MemorySink();
  await exportOnnxFolder(input, sink, { dtypes: ['f32'] });
  const onnx = sink.files.get(onnxModelPath('f32'))!;

  rt.pool.resetPeak();
  const ours = await GpuModel.load(rt, input.config, { read: (n) => input.weights.read(n), has: (n) => input.weights.names().includes(n) }, { quant: 'none', quantEmbeddings: false, lora: input.lora });
  const o = await benchOurs(rt, ours, prompt, n);
  const rows: Row[] = [{ engine: 'ours (WebGPU, Dawn/SwiftShader)', ...o, memory: `GPU peak ${formatBytes(rt.memory().peak)}` }];
  ours.dispose();
  const rss0 = process.memoryUsage().rss;
  const ort = await OrtDecoder.create(onnx, decoderShape(input.config, 'f32'), { backend: 'wasm' });
  const w = await benchOrt(ort, prompt, n);
  rows.push({ engine: 'onnxruntime-web wasm (1 thread)', ...w, memory: `RSS +${formatBytes(Math.max(0, process.memoryUsage().rss - rss0))}` });
  await ort.release();
  table(`Node, ${m.name}: prompt ${promptLen} tokens, ${n} decode tokens, f32`, rows);

  const base: Record<string, string> = {};
  for (const f of await input.source.list()) if (f === 'config.json' || f.endsWith('.safetensors')) base[f] = b64(await input.source.read(f));
  const adapter = input.lora ? Object.fromEntries([...exportPeftAdapter(input.lora, input.config, { baseModelName: 'bench' })].map(([k, v]) => [k, b64(v)])) : null;
  browserRuns.push({ name: m.name, req: { base, adapter, onnx: b64(onnx), prompt, decodeTokens: n, engines: ['ours', 'wasm'] } });
  browserRuns.push({ name: m.name, req: { base, adapter, onnx: b64(onnx), prompt: prompt.slice(0, 8), decodeTokens: Math.min(NW, n), engines: ['ours', 'webgpu'] } });
}

if (getBool(args, 'browser', true)) {
  const chrome = findChrome();
  if (!chrome) throw new Error('No Chrome/Chromium found: set CHROME_PATH or pass --browser false');
  const server = await createServer({ server: { port: 0, strictPort: false }, logLevel: 'error' });
  await server.listen();
  const url = server.resolvedUrls?.local[0] ?? 'http://localhost:5173/';
  const browser = await chromium.launch({ executablePath: chrome, args: chromeFlags });
  try {
    const page = await browser.newPage();
    await page.goto(`${url}harness.html`);
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ortBench'), undefined, { timeout: 120_000 });
    for (const run of browserRuns) {
      const res = await page.evaluate((q) => (window as unknown as { __harness: Record<string, (q: OrtBenchRequest) => Promise<OrtBenchRow[]>> }).__harness.ortBench(q), run.req);
      const rows: Row[] = res.map((r) => ({ ...r, engine: r.error ? `${r.engine} (failed: ${r.error})` : r.engine, memory: r.memoryBytes === null ? 'n/a' : `${r.engine.startsWith('ours') ? 'GPU peak' : 'page'} ${formatBytes(r.memoryBytes)}` }));
      table(`Chromium, ${run.name}: prompt ${run.req.prompt.length} tokens, ${run.req.decodeTokens} decode tokens, f32`, rows);
    }
  } finally {
    await browser.close();
    await server.close();
  }
}
process.exit(0);
