// The LM head fused with sampling (Linear.runSample: the dec kernels compiled with SAMPLE,
// shaders/linear_sample.wgsl; Sampler.runFused: sample_merge.wgsl with FUSED) against its CPU twin
// (linear_forward, then sample_forward) and against the unfused GPU path (the head's dec variant
// writing logits, then Sampler.run): f32 and NF4 weights, one row and eleven (a block of 8 and a
// partial one), V = 1001 (a last group of one column), greedy and seeded T = 0.8. Prints maxdiffs.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Linear, samplePartialBytes, type LinearWeight } from '../../../src/gpu/kernels/linear';
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import { Sampler, samplerOutBytes, type SamplingParams } from '../../../src/gpu/kernels/sampling';
import { linear_forward } from '../../../src/reference/linear';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { sample_forward } from '../../../src/reference/sampling';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

const K = 64, V = 1001;
const cases: [string, SamplingParams][] = [
  ['greedy', { temperature: 0, topK: 0, topP: 1, seed: 0, step: 0 }],
  ['T=0.8', { temperature: 0.8, topK: 0, topP: 1, seed: 99, step: 5 }],
];

describe('LM head fused with sampling', () => {
  for (const fmt of ['f32', 'nf4'] as const) {
    it(`${fmt} weights: the twin's tokens and log-probs, and the unfused dec path's tokens`, async () => {
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
      await head.prepare('dec');
      const sampler = await Sampler.create(rt, { V });
      for (const M of [1, 11]) {
        const X = randomArray(M * K, 72 + M);
        const xb = rt.upload(X, 'X');
        const part = rt.storage(samplePartialBytes(M, V), 'partials'), logits = rt.storage(M * V * 4, 'logits');
        const out = rt.storage(samplerOutBytes(M), 'fused out'), out2 = rt.storage(samplerOutBytes(M), 'unfused out');
        for (const [name, params] of cases) {
          expect(sampler.fuses(params)).toBe(true);
          head.runSample(xb, part, M, sampler.epilogue(params));
          sampler.runFused(part, M, out, params);
          const got = await sampler.read(out, M);
          head.run(xb, logits, M, { variant: 'dec' });
          sampler.run(logits, M, out2, params);
          const unfused = await sampler.read(out2, M);
          const ref = sample_forward(linear_forward(X, eff, null, M, K, V), M, V, params);
          const dRef = maxAbsDiff(got.logprobs, ref.logprobs), dGpu = maxAbsDiff(got.logprobs, unfused.logprobs);
          console.log(`fused ${fmt} M=${M} ${name}: ids ${Array.from(got.ids).slice(0, 6).join(',')}...; log-prob maxdiff vs twin ${dRef.toExponential(2)}, vs unfused ${dGpu.toExponential(2)}`);
          expect(Array.from(got.ids)).toEqual(Array.from(ref.ids));
          expect(Array.from(got.ids)).toEqual(Array.from(unfused.ids));
          expect(dRef).toBeLessThan(1e-4);
          expect(dGpu).toBeLessThan(1e-5);
        }
        rt.release(xb, part, logits, out, out2);
      }

      // Refused: a draw with top-k (no fused form), partials too small, a layer with a bias.
      const xb = rt.upload(randomArray(2 * K, 1), 'X'), part = rt.storage(samplePartialBytes(1, V), 'partials'), out = rt.storage(samplerOutBytes(1), 'out');
      expect(() => sampler.runFused(part, 1, out, { ...cases[1][1], topK: 20 })).toThrow(ShapeError);
      expect(() => head.runSample(xb, part, 2, sampler.epilogue(cases[0][1]))).toThrow(/partials of \[2, 126\] vec4/);
      const bias = rt.upload(new Float32Array(V), 'bias');
      const biased = await Linear.create(rt, { label: 'biased', K, N: V, weight, bias });
      expect(() => biased.runSample(xb, part, 1, sampler.epilogue(cases[0][1]))).toThrow(/only a plain layer/);
      biased.dispose();
      head.dispose();
      sampler.destroy();
      rt.release(xb, part, out, bias, ...(weight.format === 'f32' ? [wb] : [wb, weight.q.codes, weight.q.absmax]));
    });
  }
});
