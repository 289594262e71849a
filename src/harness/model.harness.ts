// Harness functions for the GPU engine in the browser: load a model from File objects (as a
// user's drop would give), build the GPU model and generate greedily. Used by
// tests/e2e/model.spec.ts (stories260K in headless Chromium on WebGPU).
import type { Harness } from './types';
import { bytesOf } from './bytes';
import { getBrowserGpu } from '../gpu/browser-gpu';
import { GpuRuntime } from '../gpu/runtime';
import { FileListSource } from '../model/io/browser-source';
import { loadModelFiles } from '../model/io/loader';
import { GpuModel } from '../model/gpu/model';
import { generate } from '../model/generate';
import type { QuantMode } from '../model/gpu/upload';

let rt: Promise<GpuRuntime> | undefined;


export function register(h: Harness): void {
  /** files: name -> base64 bytes. Returns the greedy text from BOS and the speed. */
  h.gpuGenerateFromFiles = async (files: Record<string, string>, maxNewTokens: number, quant: QuantMode = 'none') => {
    rt ??= GpuRuntime.create(getBrowserGpu());
    const runtime = await rt;
    const list = Object.entries(files).map(([name, b64]) => new File([bytesOf(b64) as BlobPart], name));
    const m = await loadModelFiles(new FileListSource(list));
    const model = await GpuModel.load(runtime, m.config, { read: (n) => m.weights.read(n), has: (n) => m.weights.tensors.has(n) }, { quant, quantEmbeddings: false, tune: false });
    const bos = m.tokenizer.bosTokenId ?? m.config.bosTokenId ?? 1;
    const t0 = performance.now();
    const [g] = await generate(runtime, model, m.tokenizer, [[bos]], { maxNewTokens, temperature: 0, stopTokenIds: [bos] });
    const seconds = (performance.now() - t0) / 1000;
    const memory = runtime.memory();
    model.dispose();
    return { text: g.text, tokens: g.tokens.length, tokensPerSecond: g.tokens.length / seconds, peakBytes: memory.peak };
  };
}
