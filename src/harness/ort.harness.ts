// Harness functions for onnxruntime-web in the browser: an ONNX export run on the WebGPU or
// wasm execution provider next to our engine on the same base + adapter (log-probs with and
// without past key/values, greedy tokens). Used by tests/e2e/ort.spec.ts.
import type { Harness } from './types';
import { bytesOf } from './bytes';
import { getBrowserGpu } from '../gpu/browser-gpu';
import { GpuRuntime } from '../gpu/runtime';
import { MemorySource } from '../model/io/memory-source';
import { parseModelConfig } from '../model/hf-config';
import { openWeights } from '../model/io/weights';
import { readJson } from '../model/io/source';
import { readPeftAdapter } from '../model/io/peft';
import { GpuModel } from '../model/gpu/model';
import type { OnnxDtype } from '../export/onnx/graph';
import { configureOrt, type OrtBackend } from '../ort/env';
import { decoderShape, OrtDecoder } from '../ort/decoder';
import { compareAnswers, engineAnswers, ortAnswers } from '../ort/check';
import { generate, generateOn, type Generation } from '../model/generate';
import { openEngine } from '../ort/open-engine';
import { benchOrt, benchOurs, type PhaseSpeed } from '../ort/bench';

let rt: Promise<GpuRuntime> | undefined;


const filesOf = (f: Record<string, string>) => new Map(Object.entries(f).map(([k, v]) => [k, bytesOf(v)]));

export interface OrtCompareRequest {
  /** Base model folder files (config.json, model.safetensors): name -> base64. */
  base: Record<string, string>;
  /** PEFT adapter files, or null. */
  adapter: Record<string, string> | null;
  /** The .onnx file (base64) of the merged model. */
  onnx: string;
  dtype: OnnxDtype;
  backend: OrtBackend;
  sequences: number[][];
  prompt: number[];
  maxNewTokens: number;
}

export interface OrtBenchRequest {
  base: Record<string, string>;
  adapter: Record<string, string> | null;
  onnx: string;
  prompt: number[];
  /** Decode tokens per engine. */
  decodeTokens: number;
  engines: ('ours' | OrtBackend)[];
}

export interface OrtBenchRow extends PhaseSpeed {
  engine: string;
  /** ours: the GPU pool's peak bytes; ORT: the page's memory after the run (measureUserAgentSpecificMemory), or null. */
  memoryBytes: number | null;
  error?: string;
}

/** The page's memory in bytes (needs cross-origin isolation, which the studio has), or null. */
async function pageMemory(): Promise<number | null> {
  const p = performance as Performance & { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> };
  if (!p.measureUserAgentSpecificMemory) return null;
  try {
    return (await p.measureUserAgentSpecificMemory()).bytes;
  } catch {
    return null;
  }
}

async function loadBase(req: { base: Record<string, string>; adapter: Record<string, string> | null }) {
  const src = new MemorySource(filesOf(req.base), 'base');
  const config = parseModelConfig(await readJson(src, 'config.json'));
  const weights = await openWeights(src);
  const lora = req.adapter ? await readPeftAdapter(new MemorySource(filesOf(req.adapter), 'adapter'), config) : null;
  return { config, weights, lora };
}

export function register(h: Harness): void {
  /** Our engine first (see src/ort/check.ts), then each ORT backend: prefill/decode tok/s and memory. */
  h.ortBench = async (req: OrtBenchRequest) => {
    rt ??= GpuRuntime.create(getBrowserGpu());
    const runtime = await rt;
    configureOrt({ wasmPaths: `${import.meta.env.BASE_URL}ort/` });
    const { config, weights, lora } = await loadBase(req);
    const rows: OrtBenchRow[] = [];
    for (const engine of req.engines) {
      try {
        if (engine === 'ours') {
          runtime.pool.resetPeak();
          const model = await GpuModel.load(runtime, config, { read: (n) => weights.read(n), has: (n) => weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, lora });
          const speed = await benchOurs(runtime, model, req.prompt, req.decodeTokens);
          rows.push({ engine: 'ours (WebGPU)', ...speed, memoryBytes: runtime.memory().peak });
          model.dispose();
        } else {
          const ort = await OrtDecoder.create(bytesOf(req.onnx), decoderShape(config, 'f32'), { backend: engine, gpuCache: engine === 'webgpu' });
          const speed = await benchOrt(ort, req.prompt, req.decodeTokens);
          rows.push({ engine: `onnxruntime-web ${engine}`, ...speed, memoryBytes: await pageMemory() });
          await ort.release();
        }
      } catch (e) {
        rows.push({ engine, prefillTokensPerSecond: NaN, decodeTokensPerSecond: NaN, memoryBytes: null, error: (e as Error).message });
      }
    }
    return rows;
  };

  h.ortInterleave = ortInterleaveImpl;
  h.ortGenerate = ortGenerateImpl;

  h.ortCompare = async (req: OrtCompareRequest) => {
    rt ??= GpuRuntime.create(getBrowserGpu());
    const runtime = await rt;
    configureOrt({ wasmPaths: `${import.meta.env.BASE_URL}ort/` });
    const { config, weights, lora } = await loadBase(req);
    const ours = await GpuModel.load(runtime, config, { read: (n) => weights.read(n), has: (n) => weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, lora, tune: false });
    let reference;
    try {
      reference = await engineAnswers(runtime, ours, req.sequences, req.prompt, req.maxNewTokens);
    } finally {
      ours.dispose();
    }
    const ort = await OrtDecoder.create(bytesOf(req.onnx), decoderShape(config, req.dtype), { backend: req.backend });
    try {
      return compareAnswers(reference, await ortAnswers(ort, req.sequences, req.prompt, req.maxNewTokens));
    } finally {
      await ort.release();
    }
  };
}

export interface OrtInterleaveRequest {
  base: Record<string, string>;
  adapter: Record<string, string> | null;
  onnx: string;
  prompt: number[];
  maxNewTokens: number;
  /** Scored by each step before it generates (log-probs in one pass; ORT also through the cache). */
  sequences: number[][];
  /** Engines in the order run, e.g. ['ours', 'ort', 'ours']; 'ort' is the WebGPU EP. */
  order: ('ours' | 'ort')[];
  /** Our model times its kernel variants at load (GpuModel tune). */
  tune: boolean;
  /** ORT keeps present key/values on the GPU between steps. */
  gpuCache: boolean;
  /** Per step: give up after this many ms and report a stall. */
  stepTimeoutMs: number;
}

export interface OrtInterleaveStep {
  engine: 'ours' | 'ort';
  tokens: number[] | null;
  /** Log-probs of `sequences` (one pass), flattened. */
  logprobs: number[];
  /** Opening the engine at its first step (our runtime + model, or the ORT session), ms. */
  openMs: number;
  ms: number;
  stalled: boolean;
}

/**
 * Our engine and one ORT WebGPU session alive together in one page, run in `order`. Each side
 * opens lazily at its first step (our runtime and model at the first 'ours', the ORT session at
 * the first 'ort'), so the order also decides which device exists first.
 */
export async function ortInterleaveImpl(req: OrtInterleaveRequest): Promise<OrtInterleaveStep[]> {
  configureOrt({ wasmPaths: `${import.meta.env.BASE_URL}ort/` });
  const { config, weights, lora } = await loadBase(req);
  let ours: { runtime: GpuRuntime; model: GpuModel } | null = null;
  let ort: OrtDecoder | null = null;
  const steps: OrtInterleaveStep[] = [];
  try {
    for (const engine of req.order) {
      let t0 = performance.now(), openMs = 0;
      let logprobs: number[] = [];
      const run = async (): Promise<number[]> => {
        if (engine === 'ours') {
          if (!ours) {
            rt ??= GpuRuntime.create(getBrowserGpu());
            const runtime = await rt;
            ours = { runtime, model: await GpuModel.load(runtime, config, { read: (n) => weights.read(n), has: (n) => weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, lora, tune: req.tune }) };
            openMs = performance.now() - t0;
            t0 = performance.now();
          }
          if (req.sequences.length) logprobs = (await ours.model.logprobs(req.sequences)).logprobs.flatMap((a) => Array.from(a));
          return (await generate(ours.runtime, ours.model, null, [req.prompt], { temperature: 0, maxNewTokens: req.maxNewTokens }))[0].tokens;
        }
        if (!ort) {
          ort = await OrtDecoder.create(bytesOf(req.onnx), decoderShape(config, 'f32'), { backend: 'webgpu', gpuCache: req.gpuCache });
          openMs = performance.now() - t0;
          t0 = performance.now();
        }
        for (const seq of req.sequences) {
          logprobs.push(...(await ort.logprobs(seq)));
          await ort.logprobs(seq, 2);
        }
        return ort.greedy(req.prompt, req.maxNewTokens);
      };
      const timeout = new Promise<null>((res) => setTimeout(() => res(null), req.stepTimeoutMs));
      const tokens = await Promise.race([run(), timeout]);
      steps.push({ engine, tokens, logprobs, openMs, ms: performance.now() - t0, stalled: tokens === null });
      if (tokens === null) break;
    }
  } finally {
    (ours as { model: GpuModel } | null)?.model.dispose();
    await (ort as OrtDecoder | null)?.release();
  }
  return steps;
}

export interface OrtGenerateRequest {
  base: Record<string, string>;
  adapter: Record<string, string> | null;
  /** The ONNX export folder (config.json, tokenizer files, onnx/model.onnx): name -> base64. */
  onnxFolder: Record<string, string>;
  backend: OrtBackend;
  prompt: number[];
  maxNewTokens: number;
  temperature: number;
  seed: number;
}

export interface OrtGenerateResult {
  ours: number[];
  ort: number[];
  /** Max |ours - ORT| over the sampled tokens' log-probs (while the tokens agree). */
  maxLogprobDiff: number;
  /** Ours again after the ORT session ran (the order that used to stall). */
  oursAfter: number[];
}

/** generateOn through openEngine on both choices, ours -> ORT -> ours, in one page. */
export async function ortGenerateImpl(req: OrtGenerateRequest): Promise<OrtGenerateResult> {
  rt ??= GpuRuntime.create(getBrowserGpu());
  const runtime = await rt;
  configureOrt({ wasmPaths: `${import.meta.env.BASE_URL}ort/` });
  const { config, weights, lora } = await loadBase(req);
  const model = await GpuModel.load(runtime, config, { read: (n) => weights.read(n), has: (n) => weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, lora, tune: false });
  const opts = { temperature: req.temperature, seed: req.seed, maxNewTokens: req.maxNewTokens };
  const ours = await openEngine({ engine: 'ours', rt: runtime, model });
  const ort = await openEngine({ engine: 'ort', backend: req.backend, onnx: new MemorySource(filesOf(req.onnxFolder), 'onnx export') });
  try {
    const [a]: Generation[] = await generateOn(ours.engine, null, [req.prompt], opts);
    const [b] = await generateOn(ort.engine, null, [req.prompt], opts);
    const [c] = await generateOn(ours.engine, null, [req.prompt], opts);
    let d = 0;
    for (let i = 0; i < Math.min(a.tokens.length, b.tokens.length) && a.tokens[i] === b.tokens[i]; i++) d = Math.max(d, Math.abs(a.logprobs[i] - b.logprobs[i]));
    return { ours: a.tokens, ort: b.tokens, maxLogprobDiff: d, oursAfter: c.tokens };
  } finally {
    await ort.release();
    model.dispose();
  }
}
