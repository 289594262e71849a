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
    // Only now the ORT session (see src/ort/check.ts on WebGPU sessions and our engine).
    const ort = await OrtDecoder.create(bytesOf(req.onnx), decoderShape(config, req.dtype), { backend: req.backend });
    try {
      return compareAnswers(reference, await ortAnswers(ort, req.sequences, req.prompt, req.maxNewTokens));
    } finally {
      await ort.release();
    }
  };
}
