// The LM head fused with sampling (Linear.runSample: the dec, gemv and sg kernels compiled with
// SAMPLE, shaders/linear_sample.wgsl; Sampler.runFused: sample_merge.wgsl with FUSED) against its
// CPU twin (linear_forward, then sample_forward) and against the unfused GPU path (the head's same
// variant writing logits, then Sampler.run): f32 and NF4 weights; dec at one row and eleven (a block
// of 8 and a partial one), gemv at eight, sg at eleven; V = 1001 (a last group of one column),
// greedy, seeded T = 0.8, and T = 0.8 with per-row noise keys (streams and positions, bound in the
// bias slot: flags bit 5); a draw recorded in two passes (rows 0-2, then 3.. with row0 = 3, as a split decode step)
// gives the one-pass draw. sg only where the device has subgroups (Node's Dawn does). Prints maxdiffs.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Linear, SAMPLE_GROUP, samplePartialBytes, type LinearVariant, type LinearWeight } from '../../../src/gpu/kernels/linear';
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import { Sampler, samplerOutBytes, type SamplingParams } from '../../../src/gpu/kernels/sampling';
import { linear_forward } from '../../../src/reference/linear';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { rowKeyPairs, sample_forward, type RowKeys } from '../../../src/reference/sampling';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

const K = 64, V = 1001;
const cases: [string, SamplingParams][] = [
  ['greedy', { temperature: 0, topK: 0, topP: 1, seed: 0, step: 0 }],
  ['T=0.8', { temperature: 0.8, topK: 0, topP: 1, seed: 99, step: 5 }],
  ['T=0.8 keyed', { temperature: 0.8, topK: 0, topP: 1, seed: 99, step: 5 }],
];

/** Per-row keys of M rows: streams repeat (rows 0 and 2 share one), positions vary. */
function keysOf(M: number): RowKeys {
  return { streams: Array.from({ length: M }, (_, r) => (r === 2 ? 7 : 7 + 3 * r)), positions: Array.from({ length: M }, (_, r) => 40 + 5 * r) };
}

describe('LM head fused with sampling', () => {
  for (const fmt of ['f32', 'nf4'] as const) {
    it(`${fmt} weights: the twin's tokens and log-probs, and the unfused path's tokens, for dec, gemv and sg`, async () => {
      const rt = await nodeRuntime();
      const W = randomArray(V * K, 71).map((x) => 3 * x);
      const wb = rt.upload(W, 'W');
      let weight: LinearWeight = { format: 'f32', W: wb };
      let eff: Float32Array = W;
      if (fmt === 'nf4') {
        weight = { format: 'nf4', q: (await (await Nf4Quantizer.create(rt)).quantize(wb, V, K, 'W')).weight };
        eff = nf4_roundtrip(W);
      }
      const head = await Linear.create(rt, { label: 'lm_head', K, N: V, weight });
      const rowsOf: [LinearVariant, number[]][] = [['dec', [1, 11]], ['gemv', [8]], ...(rt.hasFeature('subgroups') ? [['sg', [11]] as [LinearVariant, number[]]] : [])];
      const sampler = await Sampler.create(rt, { V });
      for (const [variant, rows] of rowsOf) {
        await head.prepare(variant);
        const group = SAMPLE_GROUP[variant]!;
        for (const M of rows) {
          const X = randomArray(M * K, 72 + M);
          const xb = rt.upload(X, 'X');
          const rowBytes = samplePartialBytes(1, V, group);
          const part = rt.storage(M * rowBytes, 'partials'), logits = rt.storage(M * V * 4, 'logits');
          const out = rt.storage(samplerOutBytes(M), 'fused out'), out2 = rt.storage(samplerOutBytes(M), 'unfused out');
          const keyed = keysOf(M), kb = rt.upload(rowKeyPairs(keyed, M), 'keys');
          for (const [name, plain] of cases) {
            const k = name.endsWith('keyed') ? kb : null, params = k ? { ...plain, keys: keyed } : plain;
            expect(sampler.fuses(params)).toBe(true);
            expect(head.runSample(xb, part, M, sampler.epilogue(params, k), variant)).toBe(group);
            sampler.runFused(part, M, out, params, group, k);
            const got = await sampler.read(out, M);
            head.run(xb, logits, M, { variant });
            sampler.run(logits, M, out2, params, k);
            const unfused = await sampler.read(out2, M);
            const ref = sample_forward(linear_forward(X, eff, null, M, K, V), M, V, params);
            const dRef = maxAbsDiff(got.logprobs, ref.logprobs), dGpu = maxAbsDiff(got.logprobs, unfused.logprobs);
            console.log(`fused ${fmt} ${variant} M=${M} ${name}: ids ${Array.from(got.ids).slice(0, 6).join(',')}...; log-prob maxdiff vs twin ${dRef.toExponential(2)}, vs unfused ${dGpu.toExponential(2)}`);
            expect(Array.from(got.ids)).toEqual(Array.from(ref.ids));
            expect(Array.from(got.ids)).toEqual(Array.from(unfused.ids));
            expect(dRef).toBeLessThan(1e-4);
            expect(dGpu).toBeLessThan(1e-5);

            // The same draw in two passes: rows 0-2, then the rest written past them with row0 = 3.
            if (M > 3) {
              const split = rt.storage(M * rowBytes, 'partials (two passes)');
              const x0 = rt.upload(X.subarray(0, 3 * K), 'X rows 0-2'), x1 = rt.upload(X.subarray(3 * K), 'X rows 3..');
              const tmp = rt.storage((M - 3) * rowBytes, 'partials rows 3..');
              head.runSample(x0, split, 3, sampler.epilogue(params, k), variant);
              head.runSample(x1, tmp, M - 3, { ...sampler.epilogue(params, k), row0: 3 }, variant);
              rt.copy(tmp, 0, split, 3 * rowBytes, (M - 3) * rowBytes);
              sampler.runFused(split, M, out, params, group, k);
              const two = await sampler.read(out, M);
              expect(Array.from(two.ids)).toEqual(Array.from(got.ids));
              expect(maxAbsDiff(two.logprobs, got.logprobs)).toBeLessThan(1e-6);
              rt.release(split, x0, x1, tmp);
            }
          }
          rt.release(xb, part, logits, out, out2, kb);
        }
      }

      // Refused: a draw with top-k (no fused form), partials too small, a layer with a bias, a variant
      // without a fused form, gemv past 8 rows.
      const xb = rt.upload(randomArray(9 * K, 1), 'X'), part = rt.storage(samplePartialBytes(9, V), 'partials'), out = rt.storage(samplerOutBytes(1), 'out');
      expect(() => sampler.runFused(part, 1, out, { ...cases[1][1], topK: 20 })).toThrow(ShapeError);
      const small = rt.storage(samplePartialBytes(1, V), 'partials of one row');
      expect(() => head.runSample(xb, small, 2, sampler.epilogue(cases[0][1]), 'sg')).toThrow(rt.hasFeature('subgroups') ? /partials of \[2, 251\] vec4/ : /not prepared/);
      expect(() => head.runSample(xb, part, 1, sampler.epilogue(cases[0][1]), 'rb8')).toThrow(/the rb8 variant does not fuse sampling \(only dec, gemv, sg do\)/);
      expect(() => head.runSample(xb, part, 9, sampler.epilogue(cases[0][1]), 'gemv')).toThrow(/M <= 8 for the gemv variant/);
      // Keys: their buffer is needed, and holds a pair for every row of the draw.
      expect(() => sampler.epilogue({ ...cases[1][1], keys: keysOf(2) })).toThrow(/carry per-row keys; pass their buffer/);
      const kb = rt.upload(rowKeyPairs(keysOf(2), 2), 'keys of two rows');
      expect(() => head.runSample(xb, part, 3, sampler.epilogue({ ...cases[1][1], keys: keysOf(3) }, kb), 'dec')).toThrow(/keys of \[2 \* 3\] f32/);
      rt.release(kb);
      const bias = rt.upload(new Float32Array(V), 'bias');
      const biased = await Linear.create(rt, { label: 'biased', K, N: V, weight, bias });
      expect(() => biased.runSample(xb, part, 1, sampler.epilogue(cases[0][1]), 'dec')).toThrow(/only a plain layer/);
      biased.dispose();
      head.dispose();
      sampler.destroy();
      rt.release(xb, part, small, out, bias, ...(weight.format === 'f32' ? [wb] : [wb, weight.q.codes, weight.q.absmax]));
    });
  }
});
