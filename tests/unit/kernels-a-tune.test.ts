// Variant tuning for Linear (src/gpu/kernels/linear-tune.ts): times the candidates once, remembers
// the winners per adapter and format, reuses a remembered choice without timing, and the tuned
// layer still matches the CPU twin. Prints the choices and maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from './gpu-helpers';
import { Linear, DECODE_CANDIDATES, PREFILL_CANDIDATES } from '../../src/gpu/kernels/linear';
import { rememberedVariants, tuneLinear } from '../../src/gpu/kernels/linear-tune';
import { getTuning, setTuning } from '../../src/gpu/tuning';
import { linear_forward } from '../../src/reference/linear';
import { maxAbsDiff } from '../../src/reference/matmul';
import { randomArray } from '../../src/gpu/selftest';

describe('linear tuning', () => {
  it('picks, remembers and reuses the fastest variants', async () => {
    const rt = await nodeRuntime();
    const K = 64, N = 48, M = 12;
    const W = randomArray(N * K, 51);
    const wb = rt.upload(W, 'W');
    const lin = await Linear.create(rt, { label: 'tune', K, N, weight: { format: 'f32', W: wb } });
    const choice = await tuneLinear(rt, lin, { prefillM: 16, budgetMs: 20 });
    console.log(`tuned f32 variants on ${rt.report.architecture}: decode=${choice.decode} prefill=${choice.prefill}`);
    expect(DECODE_CANDIDATES).toContain(choice.decode);
    expect(PREFILL_CANDIDATES).toContain(choice.prefill);
    expect(getTuning(rt.report, 'linear:f32:decode')).toBe(choice.decode);
    expect(rememberedVariants(rt, 'f32')).toEqual(choice);

    // A remembered choice is returned as is (no timing can change it).
    setTuning(rt.report, 'linear:f32:prefill', 'tiled');
    expect((await tuneLinear(rt, lin, { budgetMs: 20 })).prefill).toBe('tiled');

    const X = randomArray(M * K, 52);
    const xb = rt.upload(X, 'X'), yb = rt.storage(M * N * 4, 'Y');
    lin.run(xb, yb, M);
    const d = maxAbsDiff(await rt.readF32(yb, M * N), linear_forward(X, W, null, M, K, N));
    console.log(`tuned linear (${lin.variantFor(M)}) M=${M} maxdiff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-5);
    lin.dispose();
    rt.release(wb, xb, yb);
  });
});
