// Chunked log-probs / entropy (shaders/logprobs.wgsl through the f32 LM head) against
// matmul_forward + logprobs_forward, on Dawn: V = 1000, a V that is not a multiple of 4, more
// rows than one chunk, temperature scaling, the reduction alone on V = 151936 (Qwen), and the
// gathered last-row logits used for sampling. Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { ChunkedLogprobs, f32LmHead } from '../../../src/gpu/kernels/logprobs';
import { Matmul } from '../../../src/gpu/kernels/matmul';
import { logprobs_forward } from '../../../src/reference/logprobs';
import { matmul_forward, maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

function targetsFor(M: number, V: number, seed: number): Uint32Array {
  const r = randomArray(M, seed);
  return Uint32Array.from(r, (x) => Math.min(V - 1, Math.floor(((x + 1) / 2) * V)));
}

const cases = [
  { M: 5, C: 32, V: 1000, chunkRows: 16, temperature: 1 },
  { M: 37, C: 64, V: 1003, chunkRows: 16, temperature: 1 },
  { M: 9, C: 16, V: 77, chunkRows: 4, temperature: 0.7 },
];

describe('chunked logprobs', () => {
  // wg 4: the CPU-adapter default (one SIMD group per row); 64: the GPU default.
  for (const { M, C, V, chunkRows, temperature } of cases) for (const wg of [4, 64]) {
    it(`M=${M} C=${C} V=${V} chunkRows=${chunkRows} T=${temperature} wg=${wg}`, async () => {
      const rt = await nodeRuntime();
      // Scaled so logits span several units, as real ones do.
      const H = randomArray(M * C, M + 1).map((x) => 3 * x), W = randomArray(V * C, V + 2);
      const targets = targetsFor(M, V, 9);
      const mm = await Matmul.create(rt, { variant: 'rb' });
      const lp = await ChunkedLogprobs.create(rt, { V, C, chunkRows, wg });
      const hb = rt.upload(H, 'H'), wb = rt.upload(W, 'W'), tb = rt.upload(targets, 'targets');
      const lpb = rt.storage(M * 4, 'logp'), eb = rt.storage(M * 4, 'entropy');
      lp.run(hb, tb, M, lpb, eb, f32LmHead(mm, wb, C, V), temperature);
      const gotLp = await rt.readF32(lpb, M), gotEnt = await rt.readF32(eb, M);
      const logits = matmul_forward(H, W, M, C, V).map((x) => x / temperature);
      const ref = logprobs_forward(logits, targets, M, V);
      const dl = maxAbsDiff(gotLp, ref.logprobs), de = maxAbsDiff(gotEnt, ref.entropy);
      console.log(`logprobs M=${M} C=${C} V=${V} chunk=${chunkRows} T=${temperature} wg=${wg} maxdiff logp=${dl.toExponential(2)} entropy=${de.toExponential(2)} (scratch ${lp.scratchBytes} bytes)`);
      expect(dl).toBeLessThan(2e-4);
      expect(de).toBeLessThan(2e-4);
      // Only [chunkRows, V] logits (and [chunkRows, C] hidden rows) ever exist.
      expect(lp.scratchBytes).toBeLessThanOrEqual(Math.ceil(chunkRows * V / 4) * 16 + Math.ceil(chunkRows * C / 4) * 16);
      rt.release(hb, wb, tb, lpb, eb);
      lp.destroy();
    });
  }

  it('reduction alone on V = 151936 (Qwen vocabulary)', async () => {
    const rt = await nodeRuntime();
    const N = 2, V = 151936;
    const logits = randomArray(N * V, 4).map((x) => 8 * x);
    logits[V + 151645] = 30; // one confident row
    const targets = Uint32Array.from([12345, 151645]);
    const lp = await ChunkedLogprobs.create(rt, { V, C: 4, chunkRows: 1 });
    const lb = rt.upload(logits, 'logits'), tb = rt.upload(targets, 'targets');
    const lpb = rt.storage(N * 4, 'logp'), eb = rt.storage(N * 4, 'entropy');
    lp.reduce(lb, N, 0, tb, lpb, eb);
    const gotLp = await rt.readF32(lpb, N), gotEnt = await rt.readF32(eb, N);
    const ref = logprobs_forward(logits, targets, N, V);
    const dl = maxAbsDiff(gotLp, ref.logprobs), de = maxAbsDiff(gotEnt, ref.entropy);
    console.log(`logprobs V=${V} maxdiff logp=${dl.toExponential(2)} entropy=${de.toExponential(2)} (entropy ${Array.from(gotEnt, (e) => e.toFixed(3))})`);
    expect(dl).toBeLessThan(1e-4);
    expect(de).toBeLessThan(1e-4);
    rt.release(lb, tb, lpb, eb);
    lp.destroy();
  });

  it('gathers the logits of the last row of each sequence', async () => {
    const rt = await nodeRuntime();
    const M = 11, C = 16, V = 203, rows = [2, 10, 5];
    const H = randomArray(M * C, 21), W = randomArray(V * C, 22);
    const mm = await Matmul.create(rt, { variant: 'rb' });
    const lp = await ChunkedLogprobs.create(rt, { V, C, chunkRows: 2 });
    const hb = rt.upload(H, 'H'), wb = rt.upload(W, 'W'), ob = rt.storage(rows.length * V * 4, 'last logits');
    lp.gatherLogits(hb, rows, ob, f32LmHead(mm, wb, C, V));
    const got = await rt.readF32(ob, rows.length * V);
    const picked = new Float32Array(rows.length * C);
    rows.forEach((r, i) => picked.set(H.subarray(r * C, (r + 1) * C), i * C));
    const d = maxAbsDiff(got, matmul_forward(picked, W, rows.length, C, V));
    console.log(`gatherLogits rows ${rows} V=${V} maxdiff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-4);
    expect(() => lp.gatherLogits(hb, [M], ob, f32LmHead(mm, wb, C, V))).toThrow(ShapeError);
    expect(() => lp.reduce(ob, 4, 0, hb, hb, hb)).toThrow(/logprobs: expected logits of \[4, 203\]/);
    rt.release(hb, wb, ob);
    lp.destroy();
  });
});
