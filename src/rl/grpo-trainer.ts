// One GRPO step (the RL layer's spine): B tasks -> B*G episodes with the adapter on -> rewards ->
// advantages (group / batch / none, zero-std flags and filtering) -> old log-probs (the sampling
// ones when mu = 1, recomputed once when mu > 1 or top-k/top-p truncated the sampler) ->
// reference log-probs (reference-policy.ts) only when beta > 0 -> mu x (micro-batches accumulated with
// the GPU GRPO loss, then one optimizer update). Returns every anchors metric it can compute.
// Tested by tests/unit/rl/rl-grpo.test.ts; run by src/run/rl-run.ts and the experiment script.
import { computeAdvantages, rewardMetrics } from './advantages';
import { DEFAULT_GRPO_LOSS, grpoMetrics, zeroSums, type GrpoLossConfig, type GrpoSums } from '../reference/grpo_loss';
import type { Task } from '../data/schemas';
import { GRPO_METRICS_BYTES, type GrpoLoss } from '../gpu/kernels/grpo';
import type { Trainer } from '../train/trainer';
import type { RlConfig } from './config-validate';
import { episodeRows, grpoGpuUpstream, GrpoStepSums, rowStarts, type ResidentLogprobs, type SeqRows } from './grpo-micro';
import { gpuPhaseMetrics, stepCost, stepPhaseTimer, stepStart } from './step-phases';
import { collectRollouts, partsByName, rolloutMetrics, type RolloutContext, type ScoredRollout } from './rollouts';
import type { ReferencePolicy } from './reference-policy';

export interface GrpoContext extends RolloutContext {
  trainer: Trainer;
  loss: GrpoLoss;
  /** The KL reference (reference-policy.ts); absent: the base with the adapter off (LoRA mode only). */
  reference?: ReferencePolicy;
}

/** Reference log-probs for beta > 0; full mode without a frozen copy would compare the policy with itself. */
export async function referenceLogprobs(ctx: GrpoContext, seqs: number[][], temperature: number): Promise<Float32Array[]> {
  if (ctx.reference) return ctx.reference.logprobs(seqs, temperature);
  checkReference(ctx);
  return (await ctx.trainer.logprobs(seqs, false, temperature)).logprobs;
}

/** referenceLogprobs left on the GPU (Trainer.logprobsOnGpu's layout, `lossRows` only when given; the caller releases it). */
export async function referenceLogprobsOnGpu(ctx: GrpoContext, seqs: number[][], temperature: number, lossRows: ArrayLike<number>[] | null = null): Promise<GPUBuffer> {
  if (ctx.reference) return ctx.reference.logprobsOnGpu(seqs, temperature, lossRows);
  checkReference(ctx);
  return ctx.trainer.logprobsOnGpu(seqs, false, temperature, 'reference log-probs', lossRows);
}

function checkReference(ctx: GrpoContext): void {
  if (ctx.trainer.trainable.mode === 'full') throw new Error('grpo.beta > 0 in full mode needs a frozen reference copy of the weights (GrpoContext.reference = frozenReference(...)); openRun builds one');
}

export interface StepOutput {
  metrics: Record<string, number>;
  rollout: ScoredRollout;
  /** [B*G] advantage per episode (null for filtered-out episodes). */
  advantages: (number | null)[];
  /** An optimizer update ran. */
  updated: boolean;
  /** Why there was no update / the loss is 0, for the progress line. */
  note: string | null;
}

export function lossConfig(cfg: RlConfig): GrpoLossConfig {
  const g = cfg.grpo;
  return {
    ...DEFAULT_GRPO_LOSS,
    epsilonLow: g.epsilon_low, epsilonHigh: g.epsilon_high, beta: g.beta, klEstimator: g.kl_estimator,
    entropyCoef: g.entropy_coef, aggregation: g.loss_type,
    maxCompletionLength: g.max_completion_length || cfg.rollout.max_new_tokens * cfg.rollout.max_turns,
  };
}

export async function grpoStep(ctx: GrpoContext, tasks: Task[], step: number): Promise<StepOutput> {
  const { cfg, rt, trainer } = ctx;
  const g = cfg.grpo, G = cfg.rollout.group_size, temperature = cfg.rollout.temperature;
  const start = stepStart(rt, trainer.step);
  let trainReadbacks = 0;
  const rollout = await collectRollouts(ctx, tasks, step);
  const totals = rollout.rewards.map((r) => r.return);
  const adv = computeAdvantages(totals, { groupSize: G, scaling: g.scale_rewards, estimator: g.advantage, filterZeroStd: g.filter_zero_std });
  const kept = adv.kept;
  const advantages: (number | null)[] = Array.from(adv.advantages, (a, i) => (kept.includes(i) ? a : null));
  const metrics: Record<string, number> = { ...rewardMetrics(partsByName(rollout.rewards), totals, adv), ...rolloutMetrics(rollout) };

  const lcfg = lossConfig(cfg);
  const seqs = kept.map((i) => rollout.episodes[i].tokens);
  const recomputeOld = g.num_iterations > 1 || cfg.rollout.top_k > 0 || cfg.rollout.top_p < 1;
  const rows: SeqRows[] = kept.map((i) => {
    const e = rollout.episodes[i];
    return episodeRows(e.mask, recomputeOld ? null : e.logprobs, adv.advantages[i], g.mask_truncated_completions && e.truncated);
  });
  const tokens = rows.reduce((s, r) => s + r.mask.reduce((a, m) => a + m, 0), 0);
  const anySignal = kept.some((i) => Math.abs(adv.advantages[i]) > 1e-12) || lcfg.beta > 0 || lcfg.entropyCoef > 0;
  let note: string | null = null;
  if (!kept.length) note = `no update: every group had zero reward variance and filter_zero_std dropped them (frac_reward_zero_std=${adv.fracRewardZeroStd.toFixed(2)})`;
  else if (!tokens) note = 'no update: no trainable tokens (every completion masked: truncated with mask_truncated_completions, or empty)';
  else if (!anySignal) note = `loss 0, no update: every group had zero reward variance (frac_reward_zero_std=${adv.fracRewardZeroStd.toFixed(2)}), so every advantage is 0; raise group_size or temperature, or make the reward denser`;

  let trainMs = 0, trainRows = 0, updated = false;
  if (!note) {
    const t1 = performance.now(), readback0 = rt.readbackCount;
    // Old (mu > 1, truncated sampler) and reference (beta > 0) log-probs stay on the GPU: the
    // loss copies each pass's rows from them (no readback, no upload).
    // The LM head of every pass runs on the loss rows only (lossRows: the masks).
    const resident: ResidentLogprobs = { old: null, ref: null, rowStart: rowStarts(seqs), firstSeq: 0 };
    const masks = rows.map((r) => r.mask);
    const releaseResident = () => rt.release(...[resident.old, resident.ref].filter((b): b is GPUBuffer => b !== null));
    try {
      if (recomputeOld) resident.old = await trainer.logprobsOnGpu(seqs, true, temperature, 'grpo old log-probs (step)', masks);
      if (lcfg.beta > 0) resident.ref = await referenceLogprobsOnGpu(ctx, seqs, temperature, masks);
    } catch (e) {
      releaseResident();
      throw e;
    }
    const norm = { tokens, sequences: rows.length };
    // GPU-resident loss: per pass GrpoLoss writes dlogp/dentropy into the backward's buffers and
    // adds its sums into one step buffer; the sums, each update's grad norm and the phase stamps
    // come back in ONE readback after the last update.
    const mb = g.micro_batch_size, mu = g.num_iterations;
    // Marks: 4 per training pass (a pass holds >= 1 sequence), 2 per update. The old / ref
    // log-prob passes above are not stamped.
    const timer = stepPhaseTimer(rt, 4 * rows.length * mu + 2 * mu + 8);
    rt.phases = timer;
    const stepSums = new GrpoStepSums(rt);
    const norms = rt.storage(4 * mu, 'grpo step grad norms');
    let lr = 0;
    try {
      for (let it = 0; it < mu; it++) {
        for (let i = 0; i < rows.length; i += mb) {
          const mbRows = rows.slice(i, i + mb);
          await trainer.accumulate({ seqs: seqs.slice(i, i + mb), dlogp: grpoGpuUpstream(rt, ctx.loss, mbRows, lcfg, norm, stepSums, { ...resident, firstSeq: i }), temperature, lossRows: masks.slice(i, i + mb) });
          trainRows += mbRows.reduce((a, r) => a + r.mask.length, 0);
        }
        rt.phase('optimizer');
        const u = trainer.optimizer.record();
        rt.phase(null);
        rt.copy(u.gradNorm, 0, norms, 4 * it, 4);
        lr = u.lr;
      }
      const read = await rt.readParts([{ buf: stepSums.buf, bytes: GRPO_METRICS_BYTES }, { buf: norms, bytes: 4 * mu }], timer !== null);
      const sums = stepSums.parse(read.parts[0]);
      const gradNorm = new Float32Array(read.parts[1]).reduce((a, v) => a + v, 0) / mu;
      const mean = zeroSums();
      for (const k of Object.keys(sums) as (keyof GrpoSums)[]) mean[k] = sums[k] / mu;
      Object.assign(metrics, grpoMetrics(mean, { beta: lcfg.beta, hasEntropy: true }), { grad_norm: gradNorm, learning_rate: lr });
      if (read.phaseMs) Object.assign(metrics, gpuPhaseMetrics(read.phaseMs));
    } finally {
      rt.phases = null;
      stepSums.release();
      rt.release(norms);
      releaseResident();
    }
    trainMs = performance.now() - t1;
    trainReadbacks = rt.readbackCount - readback0;
    updated = true;
  } else {
    Object.assign(metrics, { loss: 0, policy_loss: 0, grad_norm: 0, learning_rate: trainer.optimizer.lr });
  }
  Object.assign(metrics, stepCost(rt, start, trainer.step, trainMs, trainRows, metrics), { 'perf/train_readbacks': trainReadbacks });
  return { metrics, rollout, advantages, updated, note };
}
