// onnxruntime-web as a second inference engine for our ONNX exports (src/export/onnx): one
// session over the decoder graph, run with batch 1 on the wasm or WebGPU execution provider;
// log-probs of a sequence in one pass or token by token through past key/values, and greedy
// generation with the KV cache. Used by the evaluation/playground code and the interop bench;
// tested by tests/unit/ort/ort-decoder.test.ts (wasm in Node) and tests/e2e/ort.spec.ts (browser).
import * as ort from 'onnxruntime-web';
import { toFloat32 } from '../model/io/dtype';
import type { ModelConfig } from '../model/types';
import type { OnnxDtype } from '../export/onnx/graph';
import { onnxNames } from '../export/onnx/decoder';
import type { OrtBackend } from './env';

/** What the runner needs to know about a graph (from config.json and the file name). */
export interface OrtDecoderShape {
  numLayers: number;
  numKvHeads: number;
  headDim: number;
  vocabSize: number;
  dtype: OnnxDtype;
}

export function decoderShape(cfg: ModelConfig, dtype: OnnxDtype): OrtDecoderShape {
  return { numLayers: cfg.numLayers, numKvHeads: cfg.numKvHeads, headDim: cfg.headDim, vocabSize: cfg.vocabSize, dtype };
}

export interface OrtDecoderOptions {
  backend: OrtBackend;
  /** External data files named by the graph (path as written in the model, bytes). */
  externalData?: { path: string; data: Uint8Array }[];
  /** WebGPU: keep present key/values on the GPU between steps (default: read back each step). */
  gpuCache?: boolean;
}

/** The cache after some tokens: present.{i}.key/value of the last run, in layer order. */
export interface PastKv {
  length: number;
  tensors: ort.Tensor[];
}

export interface StepResult {
  /** [T, V] logits of the tokens just fed, as f32. */
  logits: Float32Array;
}

/** log softmax(row)[target], accumulated in f64. */
export function logSoftmaxAt(logits: Float32Array, row: number, V: number, target: number): number {
  let max = -Infinity;
  for (let j = 0; j < V; j++) max = Math.max(max, logits[row * V + j]);
  let sum = 0;
  for (let j = 0; j < V; j++) sum += Math.exp(logits[row * V + j] - max);
  return logits[row * V + target] - max - Math.log(sum);
}

function argmax(logits: Float32Array, row: number, V: number): number {
  let best = 0;
  for (let j = 1; j < V; j++) if (logits[row * V + j] > logits[row * V + best]) best = j;
  return best;
}

export class OrtDecoder {
  private past: PastKv | null = null;

  private constructor(private readonly session: ort.InferenceSession, readonly shape: OrtDecoderShape, readonly backend: OrtBackend) {}

  static async create(model: Uint8Array, shape: OrtDecoderShape, opts: OrtDecoderOptions): Promise<OrtDecoder> {
    const options: ort.InferenceSession.SessionOptions = {
      executionProviders: [opts.backend],
      graphOptimizationLevel: 'all',
      externalData: opts.externalData?.map((e) => ({ path: e.path, data: e.data })),
    };
    // On WebGPU keep the cache on the GPU between steps instead of reading it back every token.
    if (opts.backend === 'webgpu' && opts.gpuCache) {
      const loc: Record<string, ort.Tensor.DataLocation> = {};
      for (let i = 0; i < shape.numLayers; i++) loc[onnxNames.presentKey(i)] = loc[onnxNames.presentValue(i)] = 'gpu-buffer';
      options.preferredOutputLocation = loc;
    }
    const session = await ort.InferenceSession.create(model, options);
    return new OrtDecoder(session, shape, opts.backend);
  }

  /** Tokens held in the cache. */
  get cachedLength(): number {
    return this.past?.length ?? 0;
  }

  /** Forgets the cache (the next step starts a new sequence). */
  reset(): void {
    this.disposePast(this.past);
    this.past = null;
  }

  /** Feeds `ids` after the cached tokens; returns their logits and keeps the new cache. */
  async step(ids: number[]): Promise<StepResult> {
    const r = await this.forward(ids, this.past);
    this.disposePast(this.past);
    this.past = r.past;
    return { logits: r.logits };
  }

  /**
   * Feeds `ids` after `past` (null: a new sequence): their [T, V] logits and the cache that
   * follows. `past` stays valid (callers holding several sequences dispose it with disposePast).
   */
  async forward(ids: number[], past: PastKv | null): Promise<StepResult & { past: PastKv }> {
    const { numLayers: L, numKvHeads: KVH, headDim: HS, vocabSize: V, dtype } = this.shape;
    const P = past?.length ?? 0, T = ids.length;
    const feeds: Record<string, ort.Tensor> = {
      [onnxNames.inputIds]: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]),
      [onnxNames.attentionMask]: new ort.Tensor('int64', new BigInt64Array(P + T).fill(1n), [1, P + T]),
      [onnxNames.positionIds]: new ort.Tensor('int64', BigInt64Array.from({ length: T }, (_, i) => BigInt(P + i)), [1, T]),
    };
    const kvType = dtype === 'f16' ? 'float16' : 'float32';
    for (let i = 0; i < L; i++) {
      const empty = () => new ort.Tensor(kvType, dtype === 'f16' ? new Uint16Array(0) : new Float32Array(0), [1, KVH, 0, HS]);
      feeds[onnxNames.pastKey(i)] = past ? past.tensors[2 * i] : empty();
      feeds[onnxNames.pastValue(i)] = past ? past.tensors[2 * i + 1] : empty();
    }
    const out = await this.session.run(feeds);
    const tensors: ort.Tensor[] = [];
    for (let i = 0; i < L; i++) tensors.push(out[onnxNames.presentKey(i)], out[onnxNames.presentValue(i)]);
    const lt = out[onnxNames.logits];
    const raw = (await lt.getData()) as Float32Array | Uint16Array;
    const logits = raw instanceof Float32Array ? raw : toFloat32('F16', new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), T * V);
    return { logits, past: { length: P + T, tensors } };
  }

  /** Frees a cache's GPU tensors (CPU tensors are garbage collected). */
  disposePast(past: PastKv | null): void {
    for (const t of past?.tensors ?? []) if (t.location === 'gpu-buffer') t.dispose();
  }

  /**
   * log p(seq[t+1] | seq[..t]) for t < len - 1. Without `prefix`: one pass over the sequence.
   * With `prefix` = k: the first k tokens in one pass, then one token per step through the
   * past key/values (the generation path).
   */
  async logprobs(seq: number[], prefix?: number): Promise<Float32Array> {
    const V = this.shape.vocabSize;
    this.reset();
    const out = new Float32Array(Math.max(0, seq.length - 1));
    const k = prefix === undefined ? seq.length : Math.max(1, Math.min(prefix, seq.length));
    let r = await this.step(seq.slice(0, k));
    for (let t = 0; t < k && t + 1 < seq.length; t++) out[t] = logSoftmaxAt(r.logits, t, V, seq[t + 1]);
    for (let t = k; t + 1 < seq.length; t++) {
      r = await this.step([seq[t]]);
      out[t] = logSoftmaxAt(r.logits, 0, V, seq[t + 1]);
    }
    this.reset();
    return out;
  }

  /** Greedy generation: the prompt in one pass, then one token per step; stops after a stop id. */
  async greedy(prompt: number[], maxNewTokens: number, stopTokenIds: number[] = [], onToken?: (id: number) => void): Promise<number[]> {
    const V = this.shape.vocabSize;
    this.reset();
    const tokens: number[] = [];
    let r = await this.step(prompt);
    let row = prompt.length - 1;
    while (tokens.length < maxNewTokens) {
      const id = argmax(r.logits, row, V);
      tokens.push(id);
      onToken?.(id);
      if (stopTokenIds.includes(id) || tokens.length >= maxNewTokens) break;
      r = await this.step([id]);
      row = 0;
    }
    this.reset();
    return tokens;
  }

  async release(): Promise<void> {
    this.reset();
    await this.session.release();
  }
}
