// onnxruntime-web (wasm EP, in Node) on our ONNX export against our GPU engine on the same
// base + adapter, for every model of tests/fixtures/interop-models.ts: log-probs within 1e-4 in
// one pass and through past key/values, identical greedy tokens; f16 graphs within f16 rounding;
// the external-data layout (forced with a tiny threshold) gives the same numbers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { INTEROP_MODELS } from '../../fixtures/interop-models';
import { exportOnnxFolder, MemorySink, onnxModelPath } from '../../../src/export';
import type { MergedExportInput } from '../../../src/export/hf-folder';
import { configureOrt } from '../../../src/ort/env';
import { decoderShape, OrtDecoder } from '../../../src/ort/decoder';
import { GpuModel } from '../../../src/model/gpu/model';
import { generate } from '../../../src/model/generate';
import { maxAbsDiff } from '../../../src/reference/matmul';
import type { GpuRuntime } from '../../../src/gpu/runtime';

configureOrt({ numThreads: 1 });

for (const m of INTEROP_MODELS) {
  describe(`onnxruntime-web wasm vs our engine: ${m.name}`, () => {
    let rt: GpuRuntime;
    let input: MergedExportInput;
    let ours: GpuModel;
    let files: Map<string, Uint8Array>;

    beforeAll(async () => {
      rt = await nodeRuntime();
      input = await m.open();
      ours = await GpuModel.load(rt, input.config, { read: (n) => input.weights.read(n), has: (n) => input.weights.names().includes(n) }, { quant: 'none', quantEmbeddings: false, lora: input.lora, tune: false });
      const sink = new MemorySink();
      await exportOnnxFolder(input, sink, { dtypes: ['f32', 'f16'] });
      files = sink.files;
    });
    afterAll(() => ours?.dispose());

    it('f32: log-probs within 1e-4 with and without past key/values; greedy tokens identical', async () => {
      const ort = await OrtDecoder.create(files.get(onnxModelPath('f32'))!, decoderShape(input.config, 'f32'), { backend: 'wasm' });
      const ref = (await ours.logprobs(m.sequences)).logprobs;
      for (const [i, seq] of m.sequences.entries()) {
        const full = await ort.logprobs(seq);
        const cached = await ort.logprobs(seq, 2);
        const d1 = maxAbsDiff(full, ref[i]), d2 = maxAbsDiff(cached, ref[i]);
        console.log(`${m.name} seq ${i} (T=${seq.length}): ort f32 maxdiff ${d1.toExponential(2)}, with past ${d2.toExponential(2)}`);
        expect(d1).toBeLessThan(1e-4);
        expect(d2).toBeLessThan(1e-4);
      }
      const [g] = await generate(rt, ours, null, [m.prompt], { temperature: 0, maxNewTokens: m.maxNewTokens });
      const o = await ort.greedy(m.prompt, m.maxNewTokens);
      console.log(`${m.name} greedy ours ${g.tokens.join(',')} | ort ${o.join(',')}`);
      expect(o).toEqual(g.tokens);
      await ort.release();
    });

    // f16 keeps 11 significant bits (relative rounding 4.9e-4), compounded over the layers: the
    // error of a log-prob grows with its size, so the bound is relative to max(1, |log p|).
    it('f16: log-probs within f16 rounding of the f32 engine', async () => {
      const ort = await OrtDecoder.create(files.get(onnxModelPath('f16'))!, decoderShape(input.config, 'f16'), { backend: 'wasm' });
      const ref = (await ours.logprobs(m.sequences)).logprobs;
      for (const [i, seq] of m.sequences.entries()) {
        const got = await ort.logprobs(seq, 3);
        const rel = Math.max(...Array.from(got, (v, t) => Math.abs(v - ref[i][t]) / Math.max(1, Math.abs(ref[i][t]))));
        console.log(`${m.name} seq ${i}: ort f16 maxdiff ${maxAbsDiff(got, ref[i]).toExponential(2)}, relative to max(1, |log p|) ${rel.toExponential(2)}`);
        expect(rel).toBeLessThan(1e-2);
      }
      await ort.release();
    });
  });
}

describe('ONNX external data', () => {
  it('weights moved to onnx/model.onnx_data give the same log-probs', async () => {
    const m = INTEROP_MODELS[0];
    const input = await m.open();
    const inline = new MemorySink(), ext = new MemorySink();
    await exportOnnxFolder(input, inline, { dtypes: ['f32'] });
    await exportOnnxFolder(input, ext, { dtypes: ['f32'], externalThreshold: 1024 });
    const data = ext.files.get('onnx/model.onnx_data');
    expect(data).toBeDefined();
    expect(ext.files.get('onnx/model.onnx')!.length).toBeLessThan(inline.files.get('onnx/model.onnx')!.length / 4);
    const shape = decoderShape(input.config, 'f32');
    const a = await OrtDecoder.create(inline.files.get('onnx/model.onnx')!, shape, { backend: 'wasm' });
    const b = await OrtDecoder.create(ext.files.get('onnx/model.onnx')!, shape, { backend: 'wasm', externalData: [{ path: 'model.onnx_data', data: data! }] });
    const d = maxAbsDiff(await a.logprobs(m.sequences[0]), await b.logprobs(m.sequences[0]));
    console.log(`external data vs inline: maxdiff ${d.toExponential(2)} (${data!.length} bytes external)`);
    expect(d).toBe(0);
    await a.release();
    await b.release();
  });
});
