// The Llama/Qwen2 decoder as an ONNX graph of standard opset-17 ops, laid out the way
// transformers.js and onnxruntime-web run decoders (anchors.md section 9): inputs input_ids,
// attention_mask, position_ids (int64) and past_key_values.{i}.key/value [B, KVH, P, HS];
// outputs logits [B, T, V] and present.{i}.key/value [B, KVH, P + T, HS]. One graph serves
// prefill (P = 0) and decode. Per layer: RMSNorm (primitives, computed in f32) -> q/k/v MatMul
// (+ bias) -> RoPE (rotate_half, cos/sin tables gathered by position_ids) -> concat with the
// past -> grouped-query attention with the causal and padding mask -> o -> residual ->
// RMSNorm -> gate/up SiLU -> down -> residual. Exercised by tests/unit/cli/export-cli.test.ts and tests/unit/ort/ort-engine.test.ts.
import { hfNames, type HostTensor, type ModelConfig } from '../../model/types';
import { DataType } from './proto';
import { elemType, GraphBuilder, type OnnxDtype } from './graph';

/** Large negative score for masked positions (fits f16). */
const MASKED = -65504;

export const onnxNames = {
  inputIds: 'input_ids',
  attentionMask: 'attention_mask',
  positionIds: 'position_ids',
  logits: 'logits',
  pastKey: (i: number) => `past_key_values.${i}.key`,
  pastValue: (i: number) => `past_key_values.${i}.value`,
  presentKey: (i: number) => `present.${i}.key`,
  presentValue: (i: number) => `present.${i}.value`,
};

/** [out, in] (HF Linear layout) -> [in, out] (MatMul's right operand). */
function transposed(t: HostTensor): [number[], Float32Array] {
  const [out, inp] = t.shape;
  const d = new Float32Array(t.data.length);
  for (let o = 0; o < out; o++) for (let i = 0; i < inp; i++) d[i * out + o] = t.data[o * inp + i];
  return [[inp, out], d];
}

/** cos and sin of pos * inv_freq for every position: [maxPos, HS/2] each (f32 angles, as HF). */
function ropeTables(cfg: ModelConfig): [Float32Array, Float32Array] {
  const half = cfg.headDim / 2, P = cfg.maxPositions;
  const cos = new Float32Array(P * half), sin = new Float32Array(P * half);
  for (let i = 0; i < half; i++) {
    const invFreq = Math.fround(1 / Math.pow(cfg.ropeTheta, (2 * i) / cfg.headDim));
    for (let p = 0; p < P; p++) {
      const angle = Math.fround(p * invFreq);
      cos[p * half + i] = Math.cos(angle);
      sin[p * half + i] = Math.sin(angle);
    }
  }
  return [cos, sin];
}

export function buildDecoderGraph(cfg: ModelConfig, tensors: Map<string, HostTensor>, dtype: OnnxDtype): GraphBuilder {
  const g = new GraphBuilder(dtype);
  const { numLayers: L, numHeads: NH, numKvHeads: KVH, headDim: HS, vocabSize: V } = cfg;
  const G = NH / KVH, half = HS / 2;
  const T = elemType(dtype);
  const get = (name: string): HostTensor => {
    const t = tensors.get(name);
    if (!t) throw new Error(`ONNX export: tensor "${name}" is missing from the merged weights`);
    return t;
  };
  const linearWeight = (name: string) => {
    const [dims, data] = transposed(get(name));
    return g.weight(`${name}.T`, dims, data);
  };

  const ids = g.input(onnxNames.inputIds, DataType.INT64, ['batch_size', 'sequence_length']);
  const amask = g.input(onnxNames.attentionMask, DataType.INT64, ['batch_size', 'total_sequence_length']);
  const pos = g.input(onnxNames.positionIds, DataType.INT64, ['batch_size', 'sequence_length']);
  g.output(onnxNames.logits, T, ['batch_size', 'sequence_length', V]);
  for (let i = 0; i < L; i++) {
    g.input(onnxNames.pastKey(i), T, ['batch_size', KVH, 'past_sequence_length', HS]);
    g.input(onnxNames.pastValue(i), T, ['batch_size', KVH, 'past_sequence_length', HS]);
  }

  // Mask [B, 1, 1, T, S]: key j visible from query i when j <= P + i and attention_mask[j] = 1.
  const i64 = (v: number) => g.int64([v], []);
  const seqLen = g.op('Gather', [g.op('Shape', [ids]), i64(1)], { axis: 0 });
  const total = g.op('Gather', [g.op('Shape', [amask]), i64(1)], { axis: 0 });
  const past = g.op('Sub', [total, seqLen]);
  const qPos = g.op('Range', [past, total, i64(1)]);
  const kPos = g.op('Range', [i64(0), total, i64(1)]);
  const causal = g.op('LessOrEqual', [g.op('Unsqueeze', [kPos, g.int64([0])]), g.op('Unsqueeze', [qPos, g.int64([1])])]);
  const padding = g.op('Unsqueeze', [g.op('Cast', [amask], { to: DataType.BOOL }), g.int64([1, 2, 3])]);
  const mask = g.op('And', [causal, padding]);

  // RoPE tables gathered by position: [B, T, 1, HS/2], broadcast over heads.
  const [cosT, sinT] = ropeTables(cfg);
  const cos = g.op('Unsqueeze', [g.op('Gather', [g.weight('rope.cos', [cfg.maxPositions, half], cosT), pos], { axis: 0 }), g.int64([2])]);
  const sin = g.op('Unsqueeze', [g.op('Gather', [g.weight('rope.sin', [cfg.maxPositions, half], sinT), pos], { axis: 0 }), g.int64([2])]);
  const rope = (x: string) => {
    const x1 = g.op('Slice', [x, g.int64([0]), g.int64([half]), g.int64([3])]);
    const x2 = g.op('Slice', [x, g.int64([half]), g.int64([HS]), g.int64([3])]);
    const r1 = g.op('Sub', [g.op('Mul', [x1, cos]), g.op('Mul', [x2, sin])]);
    const r2 = g.op('Add', [g.op('Mul', [x2, cos]), g.op('Mul', [x1, sin])]);
    return g.op('Concat', [r1, r2], { axis: 3 });
  };

  // RMSNorm in f32 (as HF does), the weight applied in the model dtype.
  const eps = g.scalar(cfg.rmsNormEps, 'f32');
  const rmsnorm = (x: string, weightName: string) => {
    const xf = dtype === 'f16' ? g.op('Cast', [x], { to: DataType.FLOAT }) : x;
    const ms = g.op('ReduceMean', [g.op('Mul', [xf, xf])], { axes: [-1], keepdims: 1 });
    const y = g.op('Mul', [xf, g.op('Reciprocal', [g.op('Sqrt', [g.op('Add', [ms, eps])])])]);
    const yt = dtype === 'f16' ? g.op('Cast', [y], { to: DataType.FLOAT16 }) : y;
    const w = get(weightName);
    return g.op('Mul', [yt, g.weight(weightName, w.shape, w.data)]);
  };
  const linear = (x: string, weightName: string, biasName?: string) => {
    const y = g.op('MatMul', [x, linearWeight(weightName)]);
    if (!biasName) return y;
    const b = get(biasName);
    return g.op('Add', [y, g.weight(biasName, b.shape, b.data)]);
  };

  const embed = get(hfNames.embed);
  const embedName = g.weight(hfNames.embed, embed.shape, embed.data);
  let x = g.op('Gather', [embedName, ids], { axis: 0 });
  const scale = g.scalar(1 / Math.sqrt(HS));
  for (let l = 0; l < L; l++) {
    const h = rmsnorm(x, hfNames.inputNorm(l));
    const bias = (p: 'q' | 'k' | 'v') => (cfg.attentionBias ? hfNames.bias(l, p) : undefined);
    const q = rope(g.op('Reshape', [linear(h, hfNames.proj(l, 'q'), bias('q')), g.int64([0, 0, NH, HS])]));
    const k = rope(g.op('Reshape', [linear(h, hfNames.proj(l, 'k'), bias('k')), g.int64([0, 0, KVH, HS])]));
    const v = g.op('Reshape', [linear(h, hfNames.proj(l, 'v'), bias('v')), g.int64([0, 0, KVH, HS])]);
    const presentK = g.op('Concat', [onnxNames.pastKey(l), g.op('Transpose', [k], { perm: [0, 2, 1, 3] })], { axis: 2 }, onnxNames.presentKey(l));
    const presentV = g.op('Concat', [onnxNames.pastValue(l), g.op('Transpose', [v], { perm: [0, 2, 1, 3] })], { axis: 2 }, onnxNames.presentValue(l));
    // Grouped-query attention in rank 5: q [B, KVH, G, T, HS] against k/v [B, KVH, 1, S, HS].
    const q5 = g.op('Mul', [g.op('Transpose', [g.op('Reshape', [q, g.int64([0, 0, KVH, G, HS])])], { perm: [0, 2, 3, 1, 4] }), scale]);
    const k5t = g.op('Transpose', [g.op('Unsqueeze', [presentK, g.int64([2])])], { perm: [0, 1, 2, 4, 3] });
    const v5 = g.op('Unsqueeze', [presentV, g.int64([2])]);
    const scores = g.op('Where', [mask, g.op('MatMul', [q5, k5t]), g.scalar(MASKED)]);
    const att = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), v5]);
    const merged = g.op('Reshape', [g.op('Transpose', [att], { perm: [0, 3, 1, 2, 4] }), g.int64([0, 0, NH * HS])]);
    x = g.op('Add', [x, linear(merged, hfNames.proj(l, 'o'))]);
    const h2 = rmsnorm(x, hfNames.postAttnNorm(l));
    const gate = linear(h2, hfNames.proj(l, 'gate'));
    const act = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), linear(h2, hfNames.proj(l, 'up'))]);
    x = g.op('Add', [x, linear(act, hfNames.proj(l, 'down'))]);
    g.output(onnxNames.presentKey(l), T, ['batch_size', KVH, 'total_sequence_length', HS]);
    g.output(onnxNames.presentValue(l), T, ['batch_size', KVH, 'total_sequence_length', HS]);
  }
  const hf = rmsnorm(x, hfNames.finalNorm);
  const head = cfg.tieWordEmbeddings ? g.op('Transpose', [embedName], { perm: [1, 0] }) : linearWeight(hfNames.lmHead);
  g.op('MatMul', [hf, head], {}, onnxNames.logits);
  return g;
}
