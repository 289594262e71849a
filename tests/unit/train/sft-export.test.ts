// PEFT export/import round trip of a trained adapter: stories260K (f32 and NF4 base) trained for
// 3 SFT updates with a fresh LoRA (r=4, all projections), exported through SftRun.exportFiles
// (adapter_config.json + adapter_model.safetensors), read back with readPeftAdapter (bit-exact),
// then loaded into a fresh GpuModel and into a new SftRun that continues training: both give log
// probabilities identical to the trainer's own. Prints maxdiff per comparison. Remembered kernel
// choices that differ between gate|up's fused class (the model's) and its plain class are set
// first: the trainer's plain gate|up must run the model's choice to sum in the same order.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { MemorySource } from '../../../src/model/io/memory-source';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { ADAPTER_CONFIG, ADAPTER_WEIGHTS, readPeftAdapter } from '../../../src/model/io/peft';
import { readJson } from '../../../src/model/io/source';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { readSftJsonl } from '../../../src/train/data';
import { resolveSftConfig, SftRun } from '../../../src/run/sft-run';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { setTuning } from '../../../src/gpu/tuning';
import { mapTuningStore, useTestTuningStore } from '../helpers/tuning-store';
import { tuningFamily } from '../../../src/gpu/kernels/linear-tune';

const STORIES = join(STORIES_DIR, 'stories260K.bin');
const bits = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));
const worst = (a: Float32Array[], b: Float32Array[]) => Math.max(...a.map((x, i) => maxAbsDiff(x, b[i])));

describe('SFT adapter export -> import', () => {
  it.skipIf(!existsSync(STORIES))('stories260K LoRA: exported adapter reads back bit-exactly and gives identical log-probs (f32 and NF4 base)', async () => {
    const rt = await nodeRuntime();
    const m = await loadModelFiles(await openNodeModelSource(STORIES));
    const store = new Map<string, string>();
    useTestTuningStore(mapTuningStore(store));
    const { hiddenSize: C, intermediateSize: I } = m.config;
    for (const fmt of ['f32', 'nf4'] as const) {
      for (const bucket of ['prefill', 'large'] as const) {
        setTuning(rt.report, tuningFamily(rt, fmt, bucket, C, 2 * I, true), 'rb16');
        setTuning(rt.report, tuningFamily(rt, fmt, bucket, C, 2 * I, false), 'rb8');
      }
    }
    const text = ['Lily saw a big red ball in the park.', 'Tom wanted to fly his blue kite with his dad.', 'The cat sat on the warm mat and fell asleep.'];
    const data = readSftJsonl(text.map((t) => JSON.stringify({ text: t })).join('\n'), 'stories.jsonl', { tokenizer: m.tokenizer, maxLength: 64 });
    const probe = [m.tokenizer.encode('Once upon a time, a little dog ran to the park.'), ...data.examples.map((e) => e.ids)];
    const reader = { read: (n: string) => m.weights.read(n), has: (n: string) => m.weights.tensors.has(n) };
    for (const quant of ['none', 'nf4'] as const) {
      const model = await GpuModel.load(rt, m.config, reader, { quant, quantEmbeddings: false, tune: false });
      const config = resolveSftConfig({ mode: 'lora', rank: 4, alpha: 8, lr: 1e-2, batchSize: 3, steps: 3, schedule: 'constant', seed: 2 }, { examples: data.examples.length, cfg: m.config });
      const run = await SftRun.create(rt, model, { config, data, baseModelName: 'stories260K', tokenizer: m.tokenizer });
      const losses = (await run.run()).map((x) => x.loss!.toFixed(3));
      const own = await run.trainer.logprobs(probe);
      const off = await run.trainer.logprobs(probe, false); // the base model (reference policy)
      const trained = await run.trainer.exportLora();
      const { folder, files } = await run.exportFiles();
      await run.dispose();
      model.dispose();
      expect(folder).toBe('adapter');
      expect([...files.keys()]).toEqual([ADAPTER_CONFIG, ADAPTER_WEIGHTS]);
      const src = new MemorySource(files);
      expect(await readJson(src, ADAPTER_CONFIG)).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8, base_model_name_or_path: 'stories260K' });

      const imported = await readPeftAdapter(src, m.config);
      expect(imported.config).toEqual(trained.config);
      for (const [k, p] of trained.pairs) {
        expect(bits(imported.pairs.get(k)!.A)).toEqual(bits(p.A));
        expect(bits(imported.pairs.get(k)!.B)).toEqual(bits(p.B));
      }
      const maxB = Math.max(...[...trained.pairs.values()].map((p) => Math.max(...p.B.map(Math.abs))));
      expect(maxB).toBeGreaterThan(1e-3); // trained: B moved away from 0

      // a fresh model with the imported adapter attached at load
      const withAdapter = await GpuModel.load(rt, m.config, reader, { quant, quantEmbeddings: false, lora: imported, tune: false });
      const viaModel = await withAdapter.logprobs(probe);
      withAdapter.dispose();
      // a new run starting from the imported adapter (continue training)
      const base = await GpuModel.load(rt, m.config, reader, { quant, quantEmbeddings: false, tune: false });
      const cont = await SftRun.create(rt, base, { config: { ...config, steps: 4 }, data, baseModelName: 'stories260K', adapter: imported });
      const viaTrainer = await cont.trainer.logprobs(probe);
      const next = await cont.trainStep();
      await cont.dispose();
      base.dispose();

      const d1 = worst(own.logprobs, viaModel.logprobs), d2 = worst(own.logprobs, viaTrainer.logprobs);
      const base0 = worst(own.logprobs, off.logprobs);
      console.log(`${quant}: losses ${losses.join(' ')}; exported ${[...files.values()].map((b) => b.length).join(' + ')} B; ` +
        `log-probs of ${probe.length} sequences, trainer vs imported GpuModel maxdiff=${d1}, vs imported trainer maxdiff=${d2} (base model differs by ${base0.toFixed(3)}); ` +
        `continued: step ${next.step} loss ${next.loss!.toFixed(3)}`);
      expect(d1).toBe(0);
      expect(d2).toBe(0);
      expect(base0).toBeGreaterThan(1e-2);
      expect(next.step).toBe(1);
      expect(Number.isFinite(next.loss)).toBe(true);
    }
    // 30 s alone on a 2-core SwiftShader machine (mostly building the rb16 pipelines); a loaded
    // machine running two test files at once took over 60 s.
  }, 180_000);
});
