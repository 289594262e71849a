// The CPU reference of GRPO (src/rl: advantages, grpo_loss, kl) against the PyTorch goldens of
// scripts/make_rl_goldens.py: advantages per scaling, loss / dlogp / dentropy / metrics for every
// aggregation x KL estimator x entropy coefficient, mu = 1, and TRL-style gradient accumulation.
// Prints maxdiff per figure.
import { describe, expect, it } from 'vitest';
import { computeAdvantages, type AdvantageScaling } from '../../../src/rl/advantages';
import {
  addSums, batchNormaliser, grpo_loss, grpoMetrics, maskTruncated, resolveGrpoLoss, zeroSums, type GrpoTokens,
} from '../../../src/reference/grpo_loss';
import { KL_ESTIMATORS, kl_grad, kl_value } from '../../../src/reference/kl';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { caseConfig, flat, loadRlGoldens, offsetsOf, relDiff } from '../helpers/grpo-fixture';

const g = loadRlGoldens();
const b = g.batch;
const offsets = offsetsOf(b.logp);
const mask = maskTruncated(flat(b.mask), offsets, b.truncated);
const adv = computeAdvantages(b.rewards, { groupSize: g.config.group_size, scaling: 'group' });

function tokens(oldIsLogp: boolean): GrpoTokens {
  return {
    logp: flat(b.logp), oldLogp: oldIsLogp ? undefined : flat(b.old_logp), refLogp: flat(b.ref_logp),
    entropy: flat(b.entropy), mask, offsets, advantages: adv.advantages,
  };
}

describe('grpo reference vs PyTorch goldens', () => {
  it('mask_truncated_completions zeroes the truncated completion', () => {
    const d = maxAbsDiff(mask, flat(b.loss_mask));
    console.log(`loss mask maxdiff=${d}; trained tokens ${batchNormaliser(mask, offsets).tokens}`);
    expect(d).toBe(0);
  });

  for (const scaling of ['group', 'batch', 'none'] as AdvantageScaling[]) {
    it(`advantages, scaling ${scaling}`, () => {
      const want = g.advantages[scaling];
      const r = computeAdvantages(b.rewards, { groupSize: g.config.group_size, scaling });
      const d = maxAbsDiff(r.advantages, want.advantages);
      const ds = maxAbsDiff(r.groupStd, want.group_std);
      console.log(`advantages ${scaling}: maxdiff=${d.toExponential(2)} group std maxdiff=${ds.toExponential(2)} frac_reward_zero_std=${r.fracRewardZeroStd}`);
      expect(d).toBeLessThan(1e-12);
      expect(ds).toBeLessThan(1e-12);
      expect(Array.from(r.zeroStd)).toEqual(want.zero_std);
      expect(r.fracRewardZeroStd).toBe(want.frac_reward_zero_std);
      const filtered = computeAdvantages(b.rewards, { groupSize: g.config.group_size, scaling, filterZeroStd: true });
      expect(filtered.kept).toEqual(want.kept_when_filtered);
      expect(r.kept).toEqual(b.rewards.map((_, i) => i));
    });
  }

  for (const c of g.cases) {
    const name = `${c.aggregation} kl=${c.kl ?? 'off'} entropy_coef=${c.entropy_coef}${c.old_is_logp ? ' mu=1 (old = logp)' : ''}`;
    it(name, () => {
      const cfg = caseConfig(g, c);
      const r = grpo_loss(tokens(c.old_is_logp), cfg);
      const dl = relDiff(r.dlogp, flat(c.dlogp));
      const de = maxAbsDiff(r.dentropy, flat(c.dentropy));
      const dLoss = Math.abs(r.loss - c.loss);
      let dm = 0;
      for (const [k, v] of Object.entries(c.metrics)) dm = Math.max(dm, Math.abs((r.metrics[k] ?? NaN) - v));
      console.log(`${name}: loss ${r.loss.toFixed(6)} diff=${dLoss.toExponential(2)} dlogp rel maxdiff=${dl.toExponential(2)} dentropy maxdiff=${de.toExponential(2)} metrics maxdiff=${dm.toExponential(2)}`);
      expect(dLoss).toBeLessThan(1e-12);
      expect(dl).toBeLessThan(1e-12);
      expect(de).toBeLessThan(1e-15);
      expect(dm).toBeLessThan(1e-12);
      expect(Object.keys(r.metrics).sort()).toEqual(Object.keys(c.metrics).sort());
    });
  }

  for (const c of g.micro) {
    it(`micro-batches ${JSON.stringify(c.micro_batches)} with the whole batch's normaliser: ${c.aggregation}`, () => {
      const cfg = caseConfig(g, c);
      const full = tokens(false);
      const cut = (a: number[][], r0: number, r1: number) => flat(a).slice(r0, r1);
      const norm = batchNormaliser(mask, offsets);
      let sums = zeroSums();
      const dlogp: number[] = [], dent: number[] = [];
      for (const [s0, s1] of c.micro_batches) {
        const r0 = offsets[s0], r1 = offsets[s1];
        const part: GrpoTokens = {
          logp: cut(b.logp, r0, r1), oldLogp: cut(b.old_logp, r0, r1), refLogp: cut(b.ref_logp, r0, r1),
          entropy: cut(b.entropy, r0, r1), mask: mask.slice(r0, r1),
          offsets: offsets.slice(s0, s1 + 1).map((o) => o - r0), advantages: adv.advantages.slice(s0, s1),
        };
        const r = grpo_loss(part, cfg, norm);
        sums = addSums(sums, r.sums);
        dlogp.push(...r.dlogp);
        dent.push(...r.dentropy);
      }
      const dl = relDiff(dlogp, flat(c.dlogp));
      const dLoss = Math.abs(sums.loss - c.loss);
      const one = grpo_loss(full, cfg);
      const dOne = Math.abs(one.loss - sums.loss);
      const m = grpoMetrics(sums, { beta: cfg.beta, hasEntropy: true });
      console.log(`micro ${c.aggregation}: loss diff vs TRL accumulation=${dLoss.toExponential(2)}, vs one batch=${dOne.toExponential(2)}; dlogp rel maxdiff=${dl.toExponential(2)}; dentropy maxdiff=${maxAbsDiff(dent, flat(c.dentropy)).toExponential(2)}`);
      expect(dLoss).toBeLessThan(1e-12);
      expect(dOne).toBeLessThan(1e-12);
      expect(dl).toBeLessThan(1e-12);
      expect(maxAbsDiff(dent, flat(c.dentropy))).toBeLessThan(1e-15);
      expect(Math.abs(m.kl - one.metrics.kl)).toBeLessThan(1e-12);
    });
  }

  it('kl estimators: derivatives match central differences', () => {
    let worst = 0;
    for (const k of KL_ESTIMATORS) {
      for (const [lp, ref] of [[-1.2, -0.7], [-0.3, -2.1], [-2, -2.05]]) {
        const h = 1e-6;
        const fd = (kl_value(k, lp + h, ref) - kl_value(k, lp - h, ref)) / (2 * h);
        worst = Math.max(worst, Math.abs(fd - kl_grad(k, lp, ref)));
      }
      expect(kl_value(k, -0.5, -0.5)).toBe(0);
    }
    console.log(`kl_grad vs central differences maxdiff=${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-8);
    expect(kl_value('k3', -1, -0.2)).toBeGreaterThan(0); // k3 is non-negative
  });

  it('config validation says which field to fix', () => {
    expect(() => resolveGrpoLoss({ epsilonLow: 1.5 })).toThrow(/epsilonLow/);
    expect(() => resolveGrpoLoss({ maxCompletionLength: 0 })).toThrow(/maxCompletionLength/);
    const cfg = resolveGrpoLoss({ beta: 0.1 });
    const t = tokens(false);
    expect(() => grpo_loss({ ...t, refLogp: undefined }, cfg)).toThrow(/refLogp/);
    expect(() => grpo_loss({ ...t, advantages: [1] }, cfg)).toThrow(/advantages/);
    expect(() => computeAdvantages([1, 2, 3], { groupSize: 2, scaling: 'group' })).toThrow(/multiple of groupSize/);
  });
});
