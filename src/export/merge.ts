// Folds a LoRA adapter into the base weights: W' = W + scale * B A for every adapted projection
// (A [R, in], B [out, R], scale = alpha / r or alpha / sqrt(r)), in f64 then rounded to f32, so
// the merged model computes what base + adapter computes. Streams one tensor at a time.
// Used by hf-folder.ts and onnx/; tested by tests/unit/export/export-merged.test.ts.
import { hfNames, loraKey, loraScale, PROJECTIONS, projShape, type HostTensor, type LoraWeights, type ModelConfig, type Projection } from '../model/types';

/** Reads the base model's tensors by Hugging Face name (a WeightStore fits). */
export interface TensorSource {
  names(): string[];
  read(name: string): Promise<HostTensor>;
}

/** W [out, in] + scale * B [out, R] @ A [R, in], as a new tensor. */
export function mergeLoraPair(W: HostTensor, A: Float32Array, B: Float32Array, R: number, scale: number): HostTensor {
  const [out, inp] = W.shape;
  if (A.length !== R * inp || B.length !== out * R) {
    throw new Error(`mergeLoraPair: W is [${out}, ${inp}] but lora_A has ${A.length} values (expected ${R * inp}) and lora_B ${B.length} (expected ${out * R})`);
  }
  const data = new Float32Array(W.data.length);
  const acc = new Float64Array(inp);
  for (let o = 0; o < out; o++) {
    acc.fill(0);
    for (let r = 0; r < R; r++) {
      const b = B[o * R + r];
      if (b === 0) continue;
      for (let i = 0; i < inp; i++) acc[i] += b * A[r * inp + i];
    }
    for (let i = 0; i < inp; i++) data[o * inp + i] = W.data[o * inp + i] + scale * acc[i];
  }
  return { shape: [out, inp], data };
}

/** name -> (layer, projection) for the projection weights. */
function projectionIndex(cfg: ModelConfig): Map<string, [number, Projection]> {
  const m = new Map<string, [number, Projection]>();
  for (let l = 0; l < cfg.numLayers; l++) for (const p of PROJECTIONS) m.set(hfNames.proj(l, p), [l, p]);
  return m;
}

/**
 * The tensors of the merged model, in the base checkpoint's order (tensors the model does not
 * use, such as rotary_emb.inv_freq, are left out). Without an adapter: the base tensors.
 */
export async function* mergedTensors(cfg: ModelConfig, base: TensorSource, lora: LoraWeights | null): AsyncGenerator<[string, HostTensor]> {
  const index = projectionIndex(cfg);
  const scale = lora ? loraScale(lora.config) : 0;
  const used = new Set<string>([hfNames.embed, hfNames.finalNorm, ...index.keys()]);
  if (!cfg.tieWordEmbeddings) used.add(hfNames.lmHead);
  for (let l = 0; l < cfg.numLayers; l++) {
    used.add(hfNames.inputNorm(l));
    used.add(hfNames.postAttnNorm(l));
    if (cfg.attentionBias) for (const p of ['q', 'k', 'v'] as const) used.add(hfNames.bias(l, p));
  }
  for (const name of base.names()) {
    if (!used.has(name)) continue;
    const t = await base.read(name);
    const at = index.get(name);
    const pair = at && lora?.pairs.get(loraKey(at[0], at[1]));
    if (!at || !pair || !lora) {
      yield [name, t];
      continue;
    }
    const [out, inp] = projShape(cfg, at[1]);
    if (t.shape[0] !== out || t.shape[1] !== inp) throw new Error(`${name}: shape [${t.shape.join(', ')}], expected [${out}, ${inp}] from config.json`);
    yield [name, mergeLoraPair(t, pair.A, pair.B, lora.config.rank, scale)];
  }
}
