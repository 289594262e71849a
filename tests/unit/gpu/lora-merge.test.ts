// LoraMerge (shaders/lora_merge.wgsl) against its CPU twin mergeLoraPair, per segment of a fused
// q|k|v group; a Linear running the merged weight (useMergedWeight) against the separate LoRA
// path at decode and prefill row counts, with SwiGLU, and what it must not change: LoRA off runs
// W, a caller asking for X A^T (training's forward) still gets it. Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { LoraMerge } from '../../../src/gpu/kernels/lora-merge';
import { Linear, linearVariants, type LinearSpec } from '../../../src/gpu/kernels/linear';
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import { mergeLoraPair } from '../../../src/export/merge';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

/** W + scale B A per segment (rows [start, end) with A rows s R .. s R + R - 1), from the CPU twin. */
function reference(W: Float32Array, A: Float32Array, B: Float32Array, NW: number, K: number, R: number, starts: number[], scale: number): Float32Array {
  const out = new Float32Array(NW * K);
  const bounds = [0, ...starts, NW];
  for (let s = 0; s + 1 < bounds.length; s++) {
    const [r0, r1] = [bounds[s], bounds[s + 1]];
    const m = mergeLoraPair({ shape: [r1 - r0, K], data: W.slice(r0 * K, r1 * K) }, A.slice(s * R * K, (s + 1) * R * K), B.slice(r0 * R, r1 * R), R, scale);
    out.set(m.data, r0 * K);
  }
  return out;
}

describe('LoraMerge', () => {
  it('folds each segment\'s B A into its rows of a fused q|k|v weight, follows a changed adapter, refuses K not a multiple of 4', async () => {
    const rt = await nodeRuntime();
    const NW = 44, K = 32, R = 4, starts = [24, 34], scale = 1.75;
    const W = randomArray(NW * K, 1), A = randomArray(3 * R * K, 2), B = randomArray(NW * R, 3);
    const [w, a, b] = [W, A, B].map((x, i) => rt.upload(x, `merge ${i}`));
    const out = rt.storage(NW * K * 4, 'merged');
    const merge = await LoraMerge.create(rt);
    const lora = { A: a, B: b, R, scale, segmentStarts: starts };
    merge.run(w, lora, NW, K, out);
    const d = maxAbsDiff(await rt.readF32(out, NW * K), reference(W, A, B, NW, K, R, starts, scale));
    // A new adapter (the optimizer's update) merges into the same buffer.
    const B2 = randomArray(NW * R, 4);
    rt.write(b, B2);
    merge.run(w, lora, NW, K, out);
    const d2 = maxAbsDiff(await rt.readF32(out, NW * K), reference(W, A, B2, NW, K, R, starts, scale));
    console.log(`lora_merge q|k|v NW=${NW} K=${K} R=${R}: maxdiff=${d.toExponential(2)}, after B changed maxdiff=${d2.toExponential(2)}`);
    expect(d).toBeLessThan(1e-5);
    expect(d2).toBeLessThan(1e-5);
    expect(() => merge.run(w, lora, NW, K + 4, out)).toThrow(ShapeError);
    expect(() => merge.run(w, lora, NW, K - 2, out)).toThrow(/a multiple of 4/);
    rt.release(w, a, b, out);
  });
});

describe('Linear with a merged weight', () => {
  const cases: { name: string; N: number; K: number; starts: number[]; swiglu: boolean; bias: boolean }[] = [
    { name: 'q|k|v + bias', N: 48, K: 64, starts: [32, 40], swiglu: false, bias: true },
    { name: 'gate|up SwiGLU', N: 24, K: 32, starts: [24], swiglu: true, bias: false },
  ];
  for (const c of cases) {
    it(`${c.name}: equals the separate LoRA path at 1, 5 and 40 rows; LoRA off runs W; X A^T asked for still written`, async () => {
      const rt = await nodeRuntime();
      const NW = c.swiglu ? 2 * c.N : c.N, R = 8, S = c.starts.length + 1, scale = 2;
      const [W, A, B, bias] = [randomArray(NW * c.K, 5), randomArray(S * R * c.K, 6), randomArray(NW * R, 7), randomArray(NW, 8)].map((x, i) => rt.upload(x, `lin ${i}`));
      const spec: LinearSpec = { label: c.name, K: c.K, N: c.N, weight: { format: 'f32', W }, bias: c.bias ? bias : null, swiglu: c.swiglu, lora: { A, B, R, scale, segmentStarts: c.starts } };
      const lin = await Linear.create(rt, spec);
      const merged = rt.storage(NW * c.K * 4, 'merged');
      (await LoraMerge.create(rt)).run(W, spec.lora!, NW, c.K, merged);
      const maxM = 40;
      const X = rt.upload(randomArray(maxM * c.K, 9), 'X'), Y = rt.storage(maxM * c.N * 4, 'Y'), xa = rt.storage(maxM * S * R * 4, 'xa');
      const out = async (M: number, variant: Parameters<Linear['prepare']>[0], o: { xa?: GPUBuffer } = {}) => {
        rt.write(Y, new Float32Array(maxM * c.N).fill(NaN));
        lin.run(X, Y, M, { variant, ...o });
        return rt.readF32(Y, M * c.N);
      };
      // run() swaps only the weight buffer, the same for every variant: the CPU adapter's decode
      // and prefill ones (rb16 at 40 rows: whole and partial tiles), sg where subgroups exist.
      for (const variant of linearVariants(rt).filter((v) => ['dec', 'rb16', 'sg'].includes(v))) {
        await lin.prepare(variant);
        for (const M of [1, 5, 40]) {
          lin.useMergedWeight(null);
          const separate = await out(M, variant);
          await out(M, variant, { xa });
          const xaSeparate = await rt.readF32(xa, M * S * R);
          lin.loraEnabled = false;
          const base = await out(M, variant);
          lin.loraEnabled = true;
          lin.useMergedWeight(merged);
          const mergedOut = await out(M, variant);
          const d = maxAbsDiff(mergedOut, separate);
          console.log(`linear ${c.name} ${variant} M=${M}: merged vs separate LoRA maxdiff=${d.toExponential(2)}`);
          expect(d).toBeLessThan(1e-4);
          expect(d).toBeGreaterThan(0); // the LoRA path contributes (B is not zero)
          lin.loraEnabled = false;
          expect(await out(M, variant), `${variant} M=${M}: LoRA off with a merged weight runs W`).toEqual(base);
          lin.loraEnabled = true;
          // Training's forward asks for X A^T (its backward's dB): the merged product, X A^T written too.
          rt.write(xa, new Float32Array(maxM * S * R).fill(NaN));
          expect(await out(M, variant, { xa }), `${variant} M=${M}: X A^T asked for: the merged product`).toEqual(mergedOut);
          expect(await rt.readF32(xa, M * S * R), `${variant} M=${M}: X A^T written beside the merged product`).toEqual(xaSeparate);
        }
      }
      lin.dispose();
      rt.release(W, A, B, bias, merged, X, Y, xa);
    });
  }

  it('refuses a merged weight for an NF4 or LoRA-less layer, or one too small', async () => {
    const rt = await nodeRuntime();
    const K = 64, N = 16;
    const W = rt.upload(randomArray(N * K, 1), 'W'), A = rt.upload(randomArray(4 * K, 2), 'A'), B = rt.upload(randomArray(N * 4, 3), 'B');
    const merged = rt.storage(N * K * 4, 'merged'), small = rt.storage(16, 'small');
    const { weight: q } = await (await Nf4Quantizer.create(rt)).quantize(W, N, K, 'W');
    const lora = { A, B, R: 4, scale: 1 };
    const nf4 = await Linear.create(rt, { label: 'nf4', K, N, weight: { format: 'nf4', q }, lora });
    const plain = await Linear.create(rt, { label: 'plain', K, N, weight: { format: 'f32', W } });
    const f32 = await Linear.create(rt, { label: 'f32', K, N, weight: { format: 'f32', W }, lora });
    expect(() => nf4.useMergedWeight(merged)).toThrow(/needs an f32 weight and a LoRA/);
    expect(() => plain.useMergedWeight(merged)).toThrow(/needs an f32 weight and a LoRA/);
    expect(() => f32.useMergedWeight(small)).toThrow(ShapeError);
    for (const l of [nf4, plain, f32]) l.dispose();
    rt.release(W, A, B, merged, small, q.codes, q.absmax);
  });
});
