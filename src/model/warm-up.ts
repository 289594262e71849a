// Builds the pipelines a generation runs before a server's first request needs them: kernels'
// pipelines are built at their first dispatch (src/gpu/pipelines.ts), which on SwiftShader costs
// up to ~1.5 s each and, in Node, stalls the event loop while it builds. `serve` runs this before
// it listens, so its first answers are as quick as the later ones. Greedy generations of two
// tokens from a short prompt at 1, 2 and 4 rows and at the largest batch: the prefill row buckets
// (15 tokens: 30 rows hold both whole and partial 16-row tiles, so rb16 builds both its pipelines),
// the decode pipelines of every rows-per-block count (1, 2, 4, 8: concurrent requests decode
// together, so any count up to the batch occurs), attention, sampling (fused into the LM head
// where it runs dec). Other sampling options (top-k / top-p) still build their few pipelines on
// first use.
// Tested by tests/unit/model/warm-up.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from './gpu/model';
import { generate } from './generate';

export interface WarmUp {
  /** Pipelines built. */
  built: number;
  ms: number;
}

export async function warmUp(rt: GpuRuntime, model: GpuModel, maxBatch: number, promptTokens = 15): Promise<WarmUp> {
  const c0 = rt.pipelines.compiled, t0 = performance.now();
  const len = Math.max(1, Math.min(promptTokens, model.cfg.maxPositions - 2));
  const prompt = Array.from({ length: len }, (_, i) => i % model.cfg.vocabSize);
  for (const rows of new Set([1, 2, 4, maxBatch].filter((r) => r <= Math.max(1, maxBatch)))) {
    await generate(rt, model, null, Array.from({ length: rows }, () => prompt), { maxNewTokens: 2, temperature: 0 });
  }
  return { built: rt.pipelines.compiled - c0, ms: performance.now() - t0 };
}
