// RLOO / REINFORCE++ advantages (src/rl/advantages.ts) and PPO's math (src/reference/ppo.ts:
// per-turn rewards at turn ends, GAE over trained tokens, clipped value loss; the policy loss is
// grpo_loss with per-row advantages) against the PyTorch goldens of scripts/make_ppo_goldens.py.
// Prints maxdiff per figure.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeAdvantages, type AdvantageEstimator } from '../../../src/rl/advantages';
import { grpo_loss, resolveGrpoLoss } from '../../../src/reference/grpo_loss';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { gae_forward, placeTurnRewards, value_loss_backward, value_loss_forward } from '../../../src/reference/ppo';
import { GOLDENS_DIR } from '../../fixtures/goldens';

interface PpoCase {
  gamma: number;
  lambda: number;
  advantages: number[];
  returns: number[];
  value_loss: number;
  dvalues: number[];
  vf_clipfrac: number;
  policy_loss: number;
  dlogp: number[];
}

interface PpoGoldens {
  magic: string;
  version: number;
  regenerate: string;
  config: { group_size: number; epsilon_low: number; epsilon_high: number; value_clip: number };
  rewards: number[];
  advantages: Record<Exclude<AdvantageEstimator, 'grpo'>, number[]>;
  batch: {
    mask: number[]; offsets: number[]; turn_rewards: number[][]; token_rewards: number[];
    values: number[]; old_values: number[]; logp: number[]; old_logp: number[];
  };
  cases: PpoCase[];
}

const g = JSON.parse(readFileSync(`${GOLDENS_DIR}/ppo_goldens.json`, 'utf8')) as PpoGoldens;
const b = g.batch;
const TOL = 1e-12;

describe('RLOO / REINFORCE++ / PPO references vs PyTorch goldens', () => {
  it('reads a fixture it knows', () => {
    expect([g.magic, g.version]).toEqual(['rlstudio-ppo-goldens', 1]);
  });

  it('advantages: rloo, reinforce_pp, reinforce_pp_baseline', () => {
    for (const [estimator, want] of Object.entries(g.advantages)) {
      const r = computeAdvantages(g.rewards, { groupSize: g.config.group_size, scaling: 'group', estimator: estimator as AdvantageEstimator });
      const d = maxAbsDiff(r.advantages, want);
      console.log(`advantages ${estimator}: maxdiff=${d.toExponential(2)} [${Array.from(r.advantages, (a) => a.toFixed(3)).join(', ')}]`);
      expect(d).toBeLessThan(TOL);
    }
    expect(() => computeAdvantages([1, 0], { groupSize: 1, scaling: 'group', estimator: 'rloo' })).toThrow('rloo needs groupSize >= 2');
  });

  it('places per-turn rewards on the last token of each assistant turn', () => {
    const placed = placeTurnRewards(b.mask, b.offsets, b.turn_rewards);
    const d = maxAbsDiff(placed, b.token_rewards);
    console.log(`turn-end rewards maxdiff=${d}`);
    expect(d).toBe(0);
    expect(() => placeTurnRewards(b.mask, b.offsets, [[1], [1], [1], [1]])).toThrow('sequence 1 has 2 assistant turns (runs of mask 1) but 1 turn rewards');
  });

  for (const c of g.cases) {
    it(`GAE, clipped value loss and PPO policy loss (gamma ${c.gamma}, lambda ${c.lambda})`, () => {
      const gae = gae_forward(b.token_rewards, b.values, b.mask, b.offsets, c.gamma, c.lambda);
      const dA = maxAbsDiff(gae.advantages, c.advantages), dR = maxAbsDiff(gae.returns, c.returns);
      const vl = value_loss_forward(b.values, b.old_values, gae.returns, b.mask, g.config.value_clip);
      const dv = maxAbsDiff(value_loss_backward(b.values, b.old_values, gae.returns, b.mask, g.config.value_clip), c.dvalues);
      const cfg = resolveGrpoLoss({ epsilonLow: g.config.epsilon_low, epsilonHigh: g.config.epsilon_high, aggregation: 'token-mean' });
      const pl = grpo_loss({ logp: b.logp, oldLogp: b.old_logp, mask: b.mask, offsets: b.offsets, advantages: [], rowAdvantages: gae.advantages }, cfg);
      const dl = maxAbsDiff(pl.dlogp, c.dlogp);
      console.log(`gamma ${c.gamma} lambda ${c.lambda}: GAE adv maxdiff=${dA.toExponential(2)} returns maxdiff=${dR.toExponential(2)}; ` +
        `value loss ${vl.loss.toFixed(6)} diff=${Math.abs(vl.loss - c.value_loss).toExponential(2)} clipfrac ${vl.clipFrac.toFixed(3)} dvalues maxdiff=${dv.toExponential(2)}; ` +
        `policy loss ${pl.loss.toFixed(6)} diff=${Math.abs(pl.loss - c.policy_loss).toExponential(2)} dlogp maxdiff=${dl.toExponential(2)}`);
      for (const d of [dA, dR, dv, dl, Math.abs(vl.loss - c.value_loss), Math.abs(pl.loss - c.policy_loss), Math.abs(vl.clipFrac - c.vf_clipfrac)]) expect(d).toBeLessThan(TOL);
    });
  }
});
