// Merged export (base + LoRA folded into one Hugging Face folder) read back through our loader:
// f32 log-probs within 1e-5 of base + adapter on the GPU engine; f16/bf16 tensors exactly the
// rounded merged weights and log-probs within their rounding; config, tokenizer files and chat
// template written. Models: tests/fixtures/interop-models.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { INTEROP_MODELS } from '../../fixtures/interop-models';
import { collectMerged, exportMergedFolder, MemorySink, type MergedDtype } from '../../../src/export';
import type { MergedExportInput } from '../../../src/export/hf-folder';
import { mergeLoraPair } from '../../../src/export/merge';
import { MemorySource } from '../../../src/model/io/memory-source';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openWeights, type WeightStore } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { parseModelConfig } from '../../../src/model/hf-config';
import { fromFloat32, toFloat32 } from '../../../src/model/io/dtype';
import { GpuModel } from '../../../src/model/gpu/model';
import type { LoraWeights, ModelConfig } from '../../../src/model/types';
import { maxAbsDiff } from '../../../src/reference/matmul';
import type { GpuRuntime } from '../../../src/gpu/runtime';

const BOUND: Record<MergedDtype, number> = { f32: 1e-5, f16: 2e-2, bf16: 1e-1 };

it('mergeLoraPair adds scale * B A to W', () => {
  const W = { shape: [2, 3], data: Float32Array.of(1, 2, 3, 4, 5, 6) };
  const A = Float32Array.of(1, 0, 2); // [1, 3]
  const B = Float32Array.of(1, -1); // [2, 1]
  expect(Array.from(mergeLoraPair(W, A, B, 1, 0.5).data)).toEqual([1.5, 2, 4, 3.5, 5, 5]);
});

for (const m of INTEROP_MODELS) {
  describe(`merged export: ${m.name}`, () => {
    let rt: GpuRuntime;
    let input: MergedExportInput;
    let reference: Float32Array[];

    const load = async (cfg: ModelConfig, w: WeightStore, lora: LoraWeights | null) =>
      GpuModel.load(rt, cfg, { read: (n) => w.read(n), has: (n) => w.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, lora, tune: false });

    beforeAll(async () => {
      rt = await nodeRuntime();
      input = await m.open();
      const base = await load(input.config, input.weights as WeightStore, input.lora);
      reference = (await base.logprobs(m.sequences)).logprobs;
      base.dispose();
    });

    for (const dtype of ['f32', 'f16', 'bf16'] as const) {
      it(`${dtype}: the folder loads and matches base + adapter`, async () => {
        const sink = new MemorySink();
        const written = await exportMergedFolder(input, sink, { dtype });
        const src = new MemorySource(sink.files, `merged ${dtype}`);
        expect(written).toContain('model.safetensors');
        const cfgJson = (await readJson(src, 'config.json')) as { torch_dtype: string };
        expect(cfgJson.torch_dtype).toBe({ f32: 'float32', f16: 'float16', bf16: 'bfloat16' }[dtype]);
        // Through the whole loader when the base has a tokenizer, else config + weights.
        const hasTokenizer = written.includes('tokenizer.json');
        const loaded = hasTokenizer ? await loadModelFiles(src) : { config: parseModelConfig(await readJson(src, 'config.json')), weights: await openWeights(src) };
        if (hasTokenizer && input.chatTemplate) expect(written).toContain('chat_template.jinja');

        // Every stored tensor is the merged f32 tensor rounded to the dtype.
        const merged = await collectMerged(input);
        const st = dtype.toUpperCase() as 'F32' | 'F16' | 'BF16';
        for (const [name, t] of merged) {
          const got = await loaded.weights.read(name);
          expect(maxAbsDiff(got.data, toFloat32(st, fromFloat32(st, t.data), t.data.length))).toBe(0);
        }

        const model = await load(loaded.config, loaded.weights, null);
        const got = (await model.logprobs(m.sequences)).logprobs;
        model.dispose();
        const d = Math.max(...got.map((g, i) => maxAbsDiff(g, reference[i])));
        // f32 sums in another order (W + sBA folded vs the fused LoRA epilogue): the bound is per
        // log-prob, relative to its size past 1 (a log-prob of -13 carries ~13x the rounding of -1).
        const rel = Math.max(...got.flatMap((g, i) => Array.from(g, (v, j) => Math.abs(v - reference[i][j]) / Math.max(1, Math.abs(reference[i][j])))));
        console.log(`${m.name} merged ${dtype}: log-probs maxdiff vs base + adapter ${d.toExponential(2)} (relative past 1: ${rel.toExponential(2)})`);
        expect(rel).toBeLessThan(BOUND[dtype]);
      });
    }
  });
}
