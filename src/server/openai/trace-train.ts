// Training from captured traces, with the RL core's pieces: GRPO (advantages within each task
// group, PPO clip against the sampling log-probs stored in the traces, GPU GRPO loss, micro-
// batches accumulated, one optimizer update per step; `steps` updates reuse the same episodes as
// num_iterations does) or reward-weighted fine-tuning (tokens weighted by reward / best reward).
// Used by `npm run cli -- train-traces`; tested by tests/unit/server/serve-train-traces.test.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { GrpoLoss } from '../../gpu/kernels/grpo';
import { addSums, grpoMetrics, zeroSums, type GrpoLossConfig, type GrpoSums } from '../../reference/grpo_loss';
import { episodeRows, grpoGpuDlogp } from '../../rl/grpo-micro';
import { episodeWeights } from '../../rl/rw-trainer';
import type { ReferencePolicy } from '../../rl/reference-policy';
import type { Trainer } from '../../train/trainer';
import { groupAdvantages, type TraceEpisode } from './trace-episodes';

export type TraceTrainerKind = 'grpo' | 'reward_weighted';

export interface TraceTrainOptions {
  trainer: TraceTrainerKind;
  /** Optimizer updates over the episodes. */
  steps: number;
  microBatch: number;
  loss: GrpoLossConfig;
  /** GRPO: divide by the group std (false: Dr. GRPO). */
  scaleRewards: boolean;
  /** reward_weighted: episodes below this reward count 0. */
  threshold: number;
  /**
   * The KL reference when loss.beta > 0 (rl/policy-setup.ts referenceFor): the bare base for a
   * fresh adapter, a frozen copy of the starting adapter when one is continued.
   */
  reference?: ReferencePolicy;
}

/** The one sampling temperature of the episodes (greedy calls report log-probs at T = 1). */
function temperatureOf(episodes: TraceEpisode[]): number {
  const ts = [...new Set(episodes.map((e) => (e.temperature > 0 ? e.temperature : 1)))];
  if (ts.length > 1) throw new Error(`the traces were sampled at temperatures ${ts.join(', ')}; train on calls of one temperature (their stored log-probs are log softmax(logits / T))`);
  return ts[0] ?? 1;
}

export async function trainOnTraces(rt: GpuRuntime, trainer: Trainer, loss: GrpoLoss, episodes: TraceEpisode[], o: TraceTrainOptions,
  log: (line: string) => void): Promise<Record<string, number>[]> {
  if (!episodes.length) throw new Error('no rewarded episodes in the traces: post rewards to /v1/rollouts/{id}/reward before training');
  const rewards = episodes.map((e) => e.reward);
  const meanReward = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const history: Record<string, number>[] = [];
  if (o.trainer === 'reward_weighted') {
    const w = episodeWeights(rewards, 'reward_weighted', o.threshold);
    const examples = episodes.map((e, i) => ({ ids: e.tokens, mask: Float32Array.from(e.mask.slice(1), (m) => m * w[i]) })).filter((x) => x.mask.some((m) => m > 0));
    if (!examples.length) throw new Error(`no episode has a reward >= ${o.threshold} (best ${Math.max(...rewards)}); nothing to imitate`);
    for (let s = 1; s <= o.steps; s++) {
      const st = await trainer.sftStep(examples, o.microBatch);
      history.push({ step: s, reward: meanReward, loss: st.loss, grad_norm: st.gradNorm, learning_rate: st.lr, num_tokens: st.nTokens });
      log(`step ${s}/${o.steps} reward-weighted loss ${st.loss.toFixed(4)} grad ${st.gradNorm.toFixed(3)} lr ${st.lr.toExponential(1)} (${examples.length} episodes)`);
    }
    return history;
  }
  const T = temperatureOf(episodes);
  const { advantages, fracZeroStd } = groupAdvantages(episodes, o.scaleRewards);
  const kept = episodes.map((_, i) => i).filter((i) => Math.abs(advantages[i]) > 1e-12 || o.loss.beta > 0);
  if (!kept.length) {
    throw new Error(`every task group has equal rewards (frac_reward_zero_std=${fracZeroStd.toFixed(2)}), so every advantage is 0: send several rollouts per task id (x-task-id) with different rewards`);
  }
  const seqs = kept.map((i) => episodes[i].tokens);
  const rows = kept.map((i) => episodeRows(episodes[i].mask, episodes[i].logprobs, advantages[i]));
  if (o.loss.beta > 0) {
    if (!o.reference) throw new Error('trainOnTraces: beta > 0 needs the KL reference policy (referenceFor)');
    (await o.reference.logprobs(seqs, T)).forEach((lp, s) => { rows[s].ref = lp; });
  }
  const norm = { tokens: rows.reduce((a, r) => a + r.mask.reduce((x, m) => x + m, 0), 0), sequences: rows.length };
  for (let s = 1; s <= o.steps; s++) {
    let sums: GrpoSums = zeroSums();
    for (let i = 0; i < rows.length; i += o.microBatch) {
      const dlogp = grpoGpuDlogp(rt, loss, rows.slice(i, i + o.microBatch), o.loss, norm, (x) => { sums = addSums(sums, x); });
      await trainer.accumulate({ seqs: seqs.slice(i, i + o.microBatch), dlogp, temperature: T, lossRows: rows.slice(i, i + o.microBatch).map((r) => r.mask) });
    }
    const u = await trainer.optimizer.update();
    const m: Record<string, number> = { step: s, reward: meanReward, frac_reward_zero_std: fracZeroStd, ...grpoMetrics(sums, { beta: o.loss.beta, hasEntropy: true }), grad_norm: u.gradNorm, learning_rate: u.lr, num_tokens: norm.tokens };
    history.push(m);
    log(`step ${s}/${o.steps} grpo loss ${(m.loss ?? 0).toFixed(4)} grad ${u.gradNorm.toFixed(3)} lr ${u.lr.toExponential(1)} (${kept.length} of ${episodes.length} episodes carry an advantage)`);
  }
  return history;
}
