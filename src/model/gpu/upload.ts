// Uploads a decoder's weights to the GPU, one tensor at a time from the loader's stream, and
// quantizes linear layers to NF4 on the GPU when asked (the f32 upload is released right
// after). Fuses q|k|v and gate|up into one weight each. Reports the quantization error per
// tensor. Used by GpuModel.load; tested by tests/unit/model/model-gpu.test.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import { Nf4Quantizer, NF4_BLOCK, type Nf4Weight } from '../../gpu/kernels/nf4';
import type { LinearWeight } from '../../gpu/kernels/linear';
import { hfNames, type HostTensor, type ModelConfig } from '../types';
import { GpuOutOfMemoryError } from '../../gpu/errors';

export type QuantMode = 'nf4' | 'none';

export interface QuantOptions {
  /** NF4 for every linear layer (the QLoRA base), or f32 everywhere. */
  quant: QuantMode;
  /** Also quantize the token embedding / LM head (big vocabularies need it to stay small). */
  quantEmbeddings: boolean;
}

export interface QuantReportRow {
  tensor: string;
  format: 'nf4' | 'f32';
  /** Why a tensor stayed f32 under --quant nf4. */
  note?: string;
  meanAbs?: number;
  maxAbs?: number;
}

/** One layer's weights on the GPU. qkv is [(NH + 2 KVH) HS, C]; gateUp is [2I, C] (gate rows, then up). */
export interface LayerGpuWeights {
  inputNorm: GPUBuffer;
  postAttnNorm: GPUBuffer;
  qkv: LinearWeight;
  qkvBias: GPUBuffer | null;
  o: LinearWeight;
  gateUp: LinearWeight;
  down: LinearWeight;
}

export interface GpuWeights {
  embed: { format: 'f32'; wte: GPUBuffer } | { format: 'nf4'; q: Nf4Weight };
  /** The LM head weight [V, C]: the embedding's own buffers when tied. */
  lmHead: LinearWeight;
  finalNorm: GPUBuffer;
  layers: LayerGpuWeights[];
  report: QuantReportRow[];
  /** Every buffer the weights own (for release and byte counts). */
  buffers: GPUBuffer[];
}

/** A source of host tensors by Hugging Face name (the loader's WeightStore fits). */
export interface TensorReader {
  read(name: string): Promise<HostTensor>;
  has(name: string): boolean;
}

export type UploadProgress = (done: number, total: number, tensor: string) => void;

function concatRows(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * Uploads every weight. On any failure (a tensor larger than the device allows, the device out of
 * memory, a read error) it releases what it had taken and throws an error naming the tensor.
 */
export async function uploadWeights(rt: GpuRuntime, cfg: ModelConfig, src: TensorReader, q: QuantOptions, onProgress?: UploadProgress): Promise<GpuWeights> {
  const buffers: GPUBuffer[] = [];
  const advice = q.quant === 'none' ? 'try --quant nf4' : q.quantEmbeddings ? 'use a smaller model' : 'try --quant-embeddings';
  rt.device.pushErrorScope('out-of-memory');
  let scoped = true;
  try {
    const w = await uploadAll(rt, cfg, src, q, buffers, onProgress);
    scoped = false;
    const oom = await rt.device.popErrorScope();
    if (oom) throw new GpuOutOfMemoryError('model weights', w.buffers.reduce((n, b) => n + b.size, 0), `${oom.message}; ${advice}, or close other GPU work`);
    return w;
  } catch (e) {
    if (scoped) await rt.device.popErrorScope();
    for (const b of buffers) rt.pool.destroy(b);
    if (e instanceof GpuOutOfMemoryError && !e.message.includes(advice)) e.message += `; ${advice}`;
    throw e;
  }
}

async function uploadAll(rt: GpuRuntime, cfg: ModelConfig, src: TensorReader, q: QuantOptions, buffers: GPUBuffer[], onProgress?: UploadProgress): Promise<GpuWeights> {
  const report: QuantReportRow[] = [];
  const quantizer = q.quant === 'nf4' || q.quantEmbeddings ? await Nf4Quantizer.create(rt) : null;
  const total = 3 + cfg.numLayers * 9;
  let done = 0;
  const tick = (name: string) => onProgress?.(++done, total, name);

  const keep = (b: GPUBuffer) => (buffers.push(b), b);
  const f32 = async (name: string): Promise<GPUBuffer> => {
    const t = await src.read(name);
    tick(name);
    return keep(rt.upload(t.data, name));
  };

  /** Uploads [rows, cols] and quantizes it when asked and possible; the f32 copy is released. */
  const linear = async (label: string, data: Float32Array, rows: number, cols: number, wantNf4: boolean): Promise<LinearWeight> => {
    const W = keep(rt.upload(data, label));
    if (!wantNf4 || !quantizer) {
      report.push({ tensor: label, format: 'f32' });
      return { format: 'f32', W };
    }
    if (cols % NF4_BLOCK !== 0) {
      report.push({ tensor: label, format: 'f32', note: `in features ${cols} not a multiple of ${NF4_BLOCK}: kept in f32` });
      return { format: 'f32', W };
    }
    const { weight, error } = await quantizer.quantize(W, rows, cols, label);
    buffers.splice(buffers.indexOf(W), 1);
    rt.pool.destroy(W); // not pooled: the f32 copy of a big weight must not linger
    keep(weight.codes);
    keep(weight.absmax);
    report.push({ tensor: label, format: 'nf4', meanAbs: error.meanAbs, maxAbs: error.maxAbs });
    return { format: 'nf4', q: weight };
  };

  const read = async (name: string) => {
    const t = await src.read(name);
    tick(name);
    return t.data;
  };

  const V = cfg.vocabSize, C = cfg.hiddenSize, I = cfg.intermediateSize;
  const NQ = cfg.numHeads * cfg.headDim, NKV = cfg.numKvHeads * cfg.headDim;
  const nf4 = q.quant === 'nf4';

  const embedData = await read(hfNames.embed);
  const embedW = await linear(hfNames.embed, embedData, V, C, q.quantEmbeddings);
  const embed = embedW.format === 'f32' ? { format: 'f32' as const, wte: embedW.W } : { format: 'nf4' as const, q: embedW.q };
  const tied = cfg.tieWordEmbeddings || !src.has(hfNames.lmHead);
  const lmHead = tied ? embedW : await linear(hfNames.lmHead, await read(hfNames.lmHead), V, C, q.quantEmbeddings);
  if (tied) tick(hfNames.lmHead);

  const layers: LayerGpuWeights[] = [];
  for (let i = 0; i < cfg.numLayers; i++) {
    const inputNorm = await f32(hfNames.inputNorm(i));
    const postAttnNorm = await f32(hfNames.postAttnNorm(i));
    const [wq, wk, wv] = [await read(hfNames.proj(i, 'q')), await read(hfNames.proj(i, 'k')), await read(hfNames.proj(i, 'v'))];
    const qkv = await linear(`layers.${i}.qkv_proj`, concatRows([wq, wk, wv]), NQ + 2 * NKV, C, nf4);
    let qkvBias: GPUBuffer | null = null;
    if (cfg.attentionBias) {
      const parts = [];
      for (const p of ['q', 'k', 'v'] as const) parts.push((await src.read(hfNames.bias(i, p))).data);
      qkvBias = keep(rt.upload(concatRows(parts), `layers.${i}.qkv_proj.bias`));
    }
    const o = await linear(hfNames.proj(i, 'o'), await read(hfNames.proj(i, 'o')), C, NQ, nf4);
    const gateUp = await linear(`layers.${i}.gate_up_proj`, concatRows([await read(hfNames.proj(i, 'gate')), await read(hfNames.proj(i, 'up'))]), 2 * I, C, nf4);
    const down = await linear(hfNames.proj(i, 'down'), await read(hfNames.proj(i, 'down')), C, I, nf4);
    layers.push({ inputNorm, postAttnNorm, qkv, qkvBias, o, gateUp, down });
  }
  const finalNorm = await f32(hfNames.finalNorm);
  return { embed, lmHead, finalNorm, layers, report, buffers };
}
