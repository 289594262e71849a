// The GPU GRPO DlogpFn (src/rl/grpo-micro.ts) against the CPU reference composition: a batch of
// sequences split into micro-batches and passes (as TrainStep calls it), each pass's dlogp /
// dentropy and metric sums vs grpo_loss over the whole batch with the same normaliser, for the
// three aggregation modes with old / ref log-probs, KL and an entropy bonus. Prints maxdiff.
// Run: npx vitest run tests/unit/rl/rl-grpo-micro.test.ts
import { beforeAll, describe, expect, it } from 'vitest';
import { GrpoLoss } from '../../../src/gpu/kernels/grpo';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { randomArray } from '../../../src/gpu/selftest';
import { addSums, batchNormaliser, grpo_loss, LOSS_AGGREGATIONS, resolveGrpoLoss, zeroSums, type GrpoSums } from '../../../src/reference/grpo_loss';
import { episodeRows, grpoGpuDlogp, type SeqRows } from '../../../src/rl/grpo-micro';
import { nodeRuntime } from '../helpers/gpu-helpers';

let rt: GpuRuntime;
let loss: GrpoLoss;
beforeAll(async () => {
  rt = await nodeRuntime();
  loss = await GrpoLoss.create(rt);
});

describe('GRPO micro-batch gradients on the GPU', () => {
  it('episodeRows shifts the token mask / log-probs to rows (row t scores token t+1)', () => {
    const r = episodeRows([0, 0, 1, 1, 0, 1], [NaN, NaN, -1, -2, NaN, -3], 0.5);
    expect(Array.from(r.mask)).toEqual([0, 1, 1, 0, 1]);
    expect(Array.from(r.old!)).toEqual([0, -1, -2, 0, -3]);
    expect(Array.from(episodeRows([0, 1, 1], null, 1, true).mask)).toEqual([0, 0]);
  });

  for (const aggregation of LOSS_AGGREGATIONS) {
    it(`matches grpo_loss over the whole batch (${aggregation}, split in micro-batches and passes)`, async () => {
      const lens = [7, 12, 5, 9, 11, 6];
      const cfg = resolveGrpoLoss({ aggregation, beta: 0.04, klEstimator: 'k3', entropyCoef: 0.01, maxCompletionLength: 16 });
      const rows: SeqRows[] = [], logp: Float32Array[] = [], ent: Float32Array[] = [];
      lens.forEach((n, s) => {
        const u = randomArray(4 * n, 100 + s);
        const lp = Float32Array.from({ length: n }, (_, t) => -0.1 - Math.abs(u[t]) * 2);
        const mask = Float32Array.from({ length: n }, (_, t) => (t < 2 || u[n + t] > 0.8 ? 0 : 1));
        rows.push({ mask, old: lp.map((v, t) => v + 0.3 * u[2 * n + t]), ref: lp.map((v, t) => v - 0.2 * u[3 * n + t]), advantage: (s % 3) - 1 + 0.25 * s });
        logp.push(lp);
        ent.push(Float32Array.from({ length: n }, (_, t) => 1 + Math.abs(u[t])));
      });
      const offsets = [0];
      lens.forEach((n, s) => offsets.push(offsets[s] + n));
      const cat = (xs: ArrayLike<number>[]) => xs.flatMap((x) => Array.from(x));
      const mask = cat(rows.map((r) => r.mask));
      const norm = batchNormaliser(mask, offsets);
      const cpu = grpo_loss({ logp: cat(logp), oldLogp: cat(rows.map((r) => r.old!)), refLogp: cat(rows.map((r) => r.ref!)), entropy: cat(ent), mask, offsets, advantages: rows.map((r) => r.advantage) }, cfg, norm);
      // Micro-batches of 4 and 2 sequences; the first split in two passes as TrainStep does past maxRows.
      let sums: GrpoSums = zeroSums();
      const gotD: number[] = [], gotE: number[] = [];
      const onSums = (s: GrpoSums) => { sums = addSums(sums, s); };
      const fnA = grpoGpuDlogp(rt, loss, rows.slice(0, 4), cfg, norm, onSums);
      for (const [a, b] of [[0, 3], [3, 4]]) {
        const d = await fnA(logp.slice(a, b), ent.slice(a, b), a);
        d.dlogp.forEach((x) => gotD.push(...x));
        d.dentropy!.forEach((x) => gotE.push(...x));
      }
      const fnB = grpoGpuDlogp(rt, loss, rows.slice(4), cfg, norm, onSums);
      const d = await fnB(logp.slice(4), ent.slice(4), 0);
      d.dlogp.forEach((x) => gotD.push(...x));
      d.dentropy!.forEach((x) => gotE.push(...x));
      const maxdiff = (a: ArrayLike<number>, b: ArrayLike<number>) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
      const dd = maxdiff(gotD, cpu.dlogp), de = maxdiff(gotE, cpu.dentropy);
      console.log(`${aggregation}: maxdiff dlogp ${dd.toExponential(2)} dentropy ${de.toExponential(2)} loss ${sums.loss.toFixed(6)} vs ${cpu.loss.toFixed(6)} kl ${(sums.kl / sums.tokens).toFixed(6)} vs ${(cpu.sums.kl / cpu.sums.tokens).toFixed(6)}`);
      expect(gotD.length).toBe(cpu.dlogp.length);
      expect(dd).toBeLessThan(1e-6);
      expect(de).toBeLessThan(1e-7);
      expect(Math.abs(sums.loss - cpu.loss)).toBeLessThan(1e-5);
      for (const k of ['tokens', 'kl', 'entropy', 'clipLow', 'clipHigh', 'clipRegion'] as const) expect(Math.abs(sums[k] - cpu.sums[k])).toBeLessThan(1e-3 * Math.max(1, Math.abs(cpu.sums[k])));
      expect(cpu.sums.clipRegion).toBeGreaterThan(0);   // the data exercises clipping
    });
  }
});
