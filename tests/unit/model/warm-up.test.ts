// warmUp (run by `serve` before it listens): after it, a request-sized generation at any row count
// up to the full batch (1, 2, 3, 6, 8) builds no pipeline; without it, the first generation builds them.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GpuRuntime } from '../../../src/gpu/runtime';
import { getNodeGpu } from '../../../src/gpu/node-gpu';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { loadModelFiles } from '../../../src/model/io/loader';
import { GpuModel } from '../../../src/model/gpu/model';
import { generate } from '../../../src/model/generate';
import { warmUp } from '../../../src/model/warm-up';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const MODEL = join(STORIES_DIR, 'stories260K.bin');

describe('warmUp', () => {
  it.skipIf(!existsSync(MODEL))('builds the pipelines of a generation at every row count up to the largest batch, so the first requests build none', async () => {
    const { gpu } = await getNodeGpu();
    const loaded = await loadModelFiles(await openNodeModelSource(MODEL));
    const reader = { read: (n: string) => loaded.weights.read(n), has: (n: string) => loaded.weights.tensors.has(n) };
    // A runtime of its own: no other test's pipelines are built in it.
    const rt = await GpuRuntime.create(gpu);
    try {
      const model = await GpuModel.load(rt, loaded.config, reader, { quant: 'none', quantEmbeddings: false, tune: false });
      expect(rt.pipelines.compiled).toBe(0); // loading builds none
      const w = await warmUp(rt, model, 8);
      console.log(`warm-up: ${w.built} pipelines in ${(w.ms / 1000).toFixed(1)} s`);
      expect(w.built).toBeGreaterThan(10);
      expect(w.built).toBe(rt.pipelines.compiled);
      const prompt = loaded.tokenizer.encode('Once upon a time there was a little dog');
      for (const rows of [1, 8, 6, 2, 3]) { // 6 rows decode in the 8-row pipelines, 3 in the 4-row ones
        const before = rt.pipelines.compiled;
        const g = await generate(rt, model, loaded.tokenizer, Array.from({ length: rows }, () => prompt), { maxNewTokens: 6, temperature: 0.8, seed: rows });
        expect(g).toHaveLength(rows);
        expect(rt.pipelines.compiled, `${rows} rows`).toBe(before);
      }
      model.dispose();
    } finally {
      rt.destroy();
    }
  }, 120_000);
});
