// Variant tuning for Linear (src/gpu/kernels/linear-tune.ts): times the candidates once per row
// bucket and shape class, remembers the winners per adapter and format, reuses a remembered
// choice without timing, keeps classes apart, and the tuned layer still matches the CPU twin.
// Uses a private tuning store (the old test wrote a forced choice into ~/.cache/rl-studio).
// Prints the choices and maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Linear, decodeCandidates, mBucket, prefillCandidates, shapeClass } from '../../../src/gpu/kernels/linear';
import { firstRows, isTuned, rememberedVariants, tuneLinear, tuningFamily } from '../../../src/gpu/kernels/linear-tune';
import { uploadNf4 } from '../../../src/gpu/kernels/nf4';
import { nf4_dequantize, nf4_pack, nf4_quantize } from '../../../src/reference/nf4';
import { LINEAR_KERNELS_FINGERPRINT } from '../../../src/gpu/kernels/linear-fingerprint';
import { getTuning, setTuning } from '../../../src/gpu/tuning';
import { mapTuningStore, useTestTuningStore } from '../helpers/tuning-store';
import { isCpuAdapter } from '../../../src/gpu/device';
import { linear_forward } from '../../../src/reference/linear';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';

describe('linear tuning', () => {
  it('buckets rows and classes shapes', async () => {
    const rt = await nodeRuntime();
    expect([1, 2, 8, 9, 255, 256, 4096].map(mBucket)).toEqual(['decode1', 'decode8', 'decode8', 'prefill', 'prefill', 'large', 'large']);
    // In and out features rounded up to powers of two, and the fused SwiGLU: the default agent's LM
    // head (1024 x 64) and gate|up (384 x 64) are classes of their own, and so are stories260K's fused
    // gate|up (344) and LM head (512).
    expect(shapeClass(64, 344, true)).toBe('k64n512s');
    expect(shapeClass(64, 512)).toBe('k64n512');
    expect(shapeClass(64, 384)).not.toBe(shapeClass(64, 1024));
    expect(shapeClass(64, 192)).toBe('k64n256');
    expect(shapeClass(896, 9728)).toBe('k1024n16384');
    // The decode candidates gain sg where the device has subgroups (a new family: sg is timed too);
    // a CPU adapter does not time the GPU designs (gemv, tiled).
    const sg = rt.hasFeature('subgroups'), cpu = isCpuAdapter(rt.report);
    expect(tuningFamily(rt, 'nf4', 'large', 4864, 896)).toBe(`linear:nf4:large:k8192n1024@rb,rb8,rb8w,rb16,${cpu ? '' : 'tiled,'}dec#${LINEAR_KERNELS_FINGERPRINT}`);
    expect(tuningFamily(rt, 'f32', 'decode1', 64, 192)).toBe(`linear:f32:decode1:k64n256@dec,rb1,${cpu ? '' : 'gemv,'}rb,rb8${sg ? ',sg' : ''}#${LINEAR_KERNELS_FINGERPRINT}`);
    // rb16 is timed at 2-8 rows only (at one row fifteen of its sixteen tile rows idle).
    expect(tuningFamily(rt, 'f32', 'decode8', 64, 192)).toBe(`linear:f32:decode8:k64n256@dec,rb1,${cpu ? '' : 'gemv,'}rb,rb8${sg ? ',sg' : ''},rb16#${LINEAR_KERNELS_FINGERPRINT}`);
  });

  // tuneFormats times a weight wider than TUNE_SLICE_ROWS (an LM head) on its first rows: the
  // choices go to the whole weight's class, not the slice's.
  it('a slice of a wide weight remembers its choices for the whole weight\'s class (f32 and NF4)', async () => {
    const rt = await nodeRuntime();
    useTestTuningStore(mapTuningStore());
    const K = 64, NW = 256, N = 64;
    const W = randomArray(NW * K, 61);
    const wb = rt.upload(W, 'W');
    const q = nf4_quantize(W);
    const wq = uploadNf4(rt, nf4_pack(q.codes), q.absmax, NW, K, 'Wq');
    for (const weight of [{ format: 'f32', W: wb }, { format: 'nf4', q: wq }] as const) {
      const f = weight.format;
      const lin = await Linear.create(rt, { label: 'tune slice', K, N, weight: firstRows(weight, N) });
      expect([isTuned(rt, f, K, NW), isTuned(rt, f, K, N)], f).toEqual([false, false]);
      const choice = await tuneLinear(rt, lin, { prefillM: 16, largeM: 256, budgetMs: 20, familyNW: NW });
      expect([isTuned(rt, f, K, NW), isTuned(rt, f, K, N)], f).toEqual([true, false]);
      expect(rememberedVariants(rt, f, K, NW), f).toEqual(choice);
      // The slice is the weight's first rows: its outputs are the whole layer's first columns.
      const X = randomArray(3 * K, 62), xb = rt.upload(X, 'X'), yb = rt.storage(3 * N * 4, 'Y');
      lin.run(xb, yb, 3);
      const eff = f === 'f32' ? W : nf4_dequantize(q.codes, q.absmax, NW * K);
      expect(maxAbsDiff(await rt.readF32(yb, 3 * N), linear_forward(X, eff.subarray(0, N * K), null, 3, K, N)), f).toBeLessThan(1e-5);
      lin.dispose();
      rt.release(xb, yb);
    }
    rt.release(wb, wq.codes, wq.absmax);
  });

  it('picks, remembers and reuses the fastest variants per bucket and shape class', async () => {
    const rt = await nodeRuntime();
    // A private store: the choices forced below must not reach the user's tuning file.
    const store = new Map<string, string>();
    useTestTuningStore(mapTuningStore(store));
    const K = 64, N = 48, M = 12;
    const W = randomArray(N * K, 51);
    const wb = rt.upload(W, 'W');
    const lin = await Linear.create(rt, { label: 'tune', K, N, weight: { format: 'f32', W: wb } });
    const choice = await tuneLinear(rt, lin, { prefillM: 16, largeM: 256, budgetMs: 20 });
    console.log(`tuned f32 ${shapeClass(K, N)} variants on ${rt.report.architecture}: ${JSON.stringify(choice)}`);
    expect(decodeCandidates(rt)).toContain(choice.decode1);
    expect(decodeCandidates(rt, 'decode8')).toContain(choice.decode8);
    expect(prefillCandidates(rt)).toContain(choice.prefill);
    expect(prefillCandidates(rt)).toContain(choice.large);
    expect(getTuning(rt.report, tuningFamily(rt, 'f32', 'decode1', K, N))).toBe(choice.decode1);
    expect(getTuning(rt.report, tuningFamily(rt, 'f32', 'decode8', K, N))).toBe(choice.decode8);
    expect(rememberedVariants(rt, 'f32', K, N)).toEqual(choice);
    expect(isTuned(rt, 'f32', K, N)).toBe(true);
    expect(isTuned(rt, 'f32', 896, 896)).toBe(false); // another class is measured on its own

    // A remembered choice is returned as is (no timing can change it), for its class only.
    setTuning(rt.report, tuningFamily(rt, 'f32', 'large', K, N), 'tiled');
    expect((await tuneLinear(rt, lin, { budgetMs: 20 })).large).toBe('tiled');
    expect(rememberedVariants(rt, 'f32', 896, 896).large).not.toBe(undefined);

    // One row and eight rows follow their own bucket's choice.
    setTuning(rt.report, tuningFamily(rt, 'f32', 'decode1', K, N), 'gemv');
    setTuning(rt.report, tuningFamily(rt, 'f32', 'decode8', K, N), 'dec');
    await tuneLinear(rt, lin, { budgetMs: 20 });
    expect([lin.variantFor(1), lin.variantFor(2), lin.variantFor(8)]).toEqual(['gemv', 'dec', 'dec']);

    for (const m of [1, 2, 3, 5, M, 300]) { // every rows-per-block count of a dec / sg winner (tuning compiled only the ones it timed)
      const X = randomArray(m * K, 52);
      const xb = rt.upload(X, 'X'), yb = rt.storage(m * N * 4, 'Y');
      lin.run(xb, yb, m);
      const d = maxAbsDiff(await rt.readF32(yb, m * N), linear_forward(X, W, null, m, K, N));
      console.log(`tuned linear (${lin.variantFor(m)}) M=${m} maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThan(1e-5);
      rt.release(xb, yb);
    }
    expect(lin.variantFor(300)).toBe('tiled');
    lin.dispose();
    rt.release(wb);
  });
});
