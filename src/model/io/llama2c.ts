// llama2.c legacy checkpoints (run.c "version 0"): 7 int32 (dim, hidden_dim, n_layers,
// n_heads, n_kv_heads, vocab_size (negative = unshared classifier), seq_len), then f32
// weights layer-major per kind: embedding, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3,
// rms_final, two skipped RoPE tables, [wcls]. Mapped to HF Llama names and a ModelConfig.
//
// RoPE convention: llama2.c rotates interleaved pairs (2i, 2i+1) of each head; HF Llama rotates
// (i, i + HS/2) (rotate_half). As transformers' Llama conversion script does, we permute the
// output rows of wq and wk within each head (new row p*HS/2 + i = old row 2i + p), so the HF
// forward gives the same logits. Tested by tests/unit/model/io-llama2c.test.ts (greedy sample).
import type { HostTensor, ModelConfig, TensorMap } from '../types';
import { hfNames } from '../types';
import { ModelLoadError } from './errors';

export interface Llama2cHeader {
  dim: number;
  hiddenDim: number;
  nLayers: number;
  nHeads: number;
  nKvHeads: number;
  vocabSize: number;
  sharedClassifier: boolean;
  seqLen: number;
}

const HEADER_BYTES = 28;
const MAGIC_V1 = 0x616b3432; // "ak42": llama2.c export.py version >= 1

export function parseLlama2cHeader(bytes: Uint8Array, file = 'model.bin'): Llama2cHeader {
  if (bytes.length < HEADER_BYTES) throw new ModelLoadError(file, `is ${bytes.length} bytes, too small for a llama2.c checkpoint`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const h = [0, 1, 2, 3, 4, 5, 6].map((i) => dv.getInt32(4 * i, true));
  if (h[0] === MAGIC_V1) throw new ModelLoadError(file, `is a llama2.c export of version ${h[1]}; only the legacy format (version 0, as run.c reads) is supported: re-export with \`export.py --version 0\``);
  const [dim, hiddenDim, nLayers, nHeads, nKvHeads, vocab, seqLen] = h;
  const ok = [dim, hiddenDim, nLayers, nHeads, nKvHeads, seqLen].every((x) => x > 0 && x < 1 << 20) && vocab !== 0 && dim % nHeads === 0 && nHeads % nKvHeads === 0;
  if (!ok) throw new ModelLoadError(file, `header [${h.join(', ')}] is not a llama2.c checkpoint header (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len)`);
  return { dim, hiddenDim, nLayers, nHeads, nKvHeads, vocabSize: Math.abs(vocab), sharedClassifier: vocab > 0, seqLen };
}

export function llama2cConfig(h: Llama2cHeader): ModelConfig {
  return {
    architecture: 'llama',
    vocabSize: h.vocabSize,
    hiddenSize: h.dim,
    intermediateSize: h.hiddenDim,
    numLayers: h.nLayers,
    numHeads: h.nHeads,
    numKvHeads: h.nKvHeads,
    headDim: h.dim / h.nHeads,
    ropeTheta: 10000,
    rmsNormEps: 1e-5,
    maxPositions: h.seqLen,
    tieWordEmbeddings: h.sharedClassifier,
    attentionBias: false,
    bosTokenId: 1,
    eosTokenIds: [2],
  };
}

/**
 * Rows of a [heads*HS, cols] projection from llama2.c's interleaved RoPE order to HF's
 * half-split order: within each head, new row p*HS/2 + i takes old row 2i + p.
 */
export function permuteRopeRows(w: Float32Array, heads: number, HS: number, cols: number): Float32Array {
  const out = new Float32Array(w.length);
  const half = HS / 2;
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < half; i++) {
      for (let p = 0; p < 2; p++) {
        const src = (h * HS + 2 * i + p) * cols, dst = (h * HS + p * half + i) * cols;
        out.set(w.subarray(src, src + cols), dst);
      }
    }
  }
  return out;
}

/** Read a legacy llama2.c checkpoint into HF-named f32 tensors (q/k rows permuted for HF RoPE). */
export function readLlama2cCheckpoint(bytes: Uint8Array, file = 'model.bin'): { config: ModelConfig; tensors: TensorMap } {
  const h = parseLlama2cHeader(bytes, file);
  const config = llama2cConfig(h);
  const C = h.dim, I = h.hiddenDim, L = h.nLayers, V = h.vocabSize, HS = config.headDim;
  const KV = h.nKvHeads * HS;
  const perLayer = C + C * C + 2 * KV * C + C * C + C + 3 * I * C;
  const floats = V * C + L * perLayer + C + h.seqLen * HS + (h.sharedClassifier ? 0 : V * C);
  const expected = HEADER_BYTES + 4 * floats;
  if (bytes.length < expected) throw new ModelLoadError(file, `has ${bytes.length} bytes but its header [dim ${C}, hidden ${I}, layers ${L}, vocab ${V}] needs ${expected}: the file is truncated; re-download it`);
  if (bytes.length > expected) throw new ModelLoadError(file, `has ${bytes.length - expected} bytes more than its header needs (${expected}): not a legacy llama2.c checkpoint, or a different export version`);
  const all = new Float32Array(bytes.slice(HEADER_BYTES).buffer);
  let at = 0;
  const take = (n: number, shape: number[]): HostTensor => {
    const data = all.slice(at, at + n);
    at += n;
    return { shape, data };
  };
  const perKind = (rows: number, cols: number, name: (i: number) => string, map?: (d: Float32Array) => Float32Array) => {
    for (let i = 0; i < L; i++) {
      const t = take(rows * cols, cols === 1 ? [rows] : [rows, cols]);
      tensors.set(name(i), map ? { shape: t.shape, data: map(t.data) } : t);
    }
  };
  const tensors: TensorMap = new Map();
  tensors.set(hfNames.embed, take(V * C, [V, C]));
  perKind(C, 1, hfNames.inputNorm);
  perKind(h.nHeads * HS, C, (i) => hfNames.proj(i, 'q'), (d) => permuteRopeRows(d, h.nHeads, HS, C));
  perKind(KV, C, (i) => hfNames.proj(i, 'k'), (d) => permuteRopeRows(d, h.nKvHeads, HS, C));
  perKind(KV, C, (i) => hfNames.proj(i, 'v'));
  perKind(C, h.nHeads * HS, (i) => hfNames.proj(i, 'o'));
  perKind(C, 1, hfNames.postAttnNorm);
  perKind(I, C, (i) => hfNames.proj(i, 'gate'));
  perKind(C, I, (i) => hfNames.proj(i, 'down'));
  perKind(I, C, (i) => hfNames.proj(i, 'up'));
  tensors.set(hfNames.finalNorm, take(C, [C]));
  at += h.seqLen * HS; // freq_cis_real and freq_cis_imag (seq_len x HS/2 each): recomputed
  if (!h.sharedClassifier) tensors.set(hfNames.lmHead, take(V * C, [V, C]));
  return { config, tensors };
}
