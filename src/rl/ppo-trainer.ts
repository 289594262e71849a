// One PPO step: B*G episodes with the adapter on -> one pass with the value head for the old
// values (and old log-probs when mu > 1 or the sampler was truncated) -> per-turn rewards and
// GAE per trained token (ppo-targets.ts) -> mu x (micro-batches: the GPU clipped policy loss with
// per-row advantages and the clipped value loss (shaders/value_loss.wgsl) into the value head and
// the shared trunk, all GPU-resident; one AdamW update of the adapter and the head), the loss sums
// and grad norms read back once per step. Run by src/run/rl-run.ts (trainer: ppo); tested by
// tests/unit/rl/ppo-step.test.ts (GPU vs CPU references) and ppo-run.test.ts (2 steps, resume).
import { computeAdvantages, rewardMetrics } from './advantages';
import { grpoMetrics, zeroSums, type GrpoSums } from '../reference/grpo_loss';
import type { Task } from '../data/schemas';
import { ValueHead } from '../gpu/kernels/value-head';
import { GRPO_METRICS_BYTES } from '../gpu/kernels/grpo';
import { VALUE_METRICS_BYTES, ValueLoss } from '../gpu/kernels/value-loss';
import { episodeRows, GrpoStepSums } from './grpo-micro';
import { lossConfig, referenceLogprobs, type GrpoContext, type StepOutput } from './grpo-trainer';
import { ppoGpuUpstream, ValueHeadHook, ValueStepSums, type PpoRows, type ValueSums } from './ppo-micro';
import { ppoTargets } from './ppo-targets';
import { collectRollouts, partsByName, rolloutMetrics } from './rollouts';
import { gpuPhaseMetrics, stepCost, stepPhaseTimer, stepStart } from './step-phases';

const meanOver = (xs: Float32Array[], masks: Float32Array[]) => {
  let s = 0, n = 0;
  xs.forEach((x, i) => x.forEach((v, t) => { if (masks[i][t]) { s += v; n++; } }));
  return n ? s / n : 0;
};

/** 1 - Var(returns - values) / Var(returns) over the trained rows. */
function explainedVariance(values: Float32Array[], returns: Float32Array[], masks: Float32Array[]): number {
  const r: number[] = [], d: number[] = [];
  masks.forEach((m, i) => m.forEach((x, t) => { if (x) { r.push(returns[i][t]); d.push(returns[i][t] - values[i][t]); } }));
  const v = (a: number[]) => { const mu = a.reduce((s, x) => s + x, 0) / a.length; return a.reduce((s, x) => s + (x - mu) ** 2, 0) / a.length; };
  if (r.length < 2 || v(r) === 0) return 0;
  return 1 - v(d) / v(r);
}

export async function ppoStep(ctx: GrpoContext, tasks: Task[], step: number): Promise<StepOutput> {
  const { cfg, rt, trainer } = ctx;
  const g = cfg.grpo, p = cfg.ppo, temperature = cfg.rollout.temperature;
  const head = trainer.valueHead;
  if (!head) throw new Error('ppoStep: the trainer has no value head; build it with TrainerConfig.valueHeadSeed (rlTrainerConfigOf does for trainer: ppo)');
  const kernel = await ValueHead.create(rt, head.C);
  const valueKernel = await ValueLoss.create(rt);
  const start = stepStart(rt, trainer.step);
  const rollout = await collectRollouts(ctx, tasks, step);
  const totals = rollout.rewards.map((r) => r.return);
  // Reward metrics as GRPO logs them (group statistics); the advantages PPO uses are per token.
  const groupStats = computeAdvantages(totals, { groupSize: cfg.rollout.group_size, scaling: 'group', estimator: 'grpo', filterZeroStd: false });
  const metrics: Record<string, number> = { ...rewardMetrics(partsByName(rollout.rewards), totals, groupStats), ...rolloutMetrics(rollout) };

  const lcfg = lossConfig(cfg);
  const eps = rollout.episodes;
  const seqs = eps.map((e) => e.tokens);
  const recomputeOld = g.num_iterations > 1 || cfg.rollout.top_k > 0 || cfg.rollout.top_p < 1;
  const base = eps.map((e) => episodeRows(e.mask, recomputeOld ? null : e.logprobs, 0, g.mask_truncated_completions && e.truncated));
  const masks = base.map((r) => r.mask);
  const tokens = masks.reduce((s, m) => s + m.reduce((a, x) => a + x, 0), 0);
  const t1 = performance.now();
  let trainMs = 0, trainRows = 0, trainReadbacks = 0, updated = false, note: string | null = null;
  // rollouts.jsonl keeps one advantage per episode: the mean over its trained rows (PPO's are per token).
  const advantages: (number | null)[] = eps.map(() => null);
  if (!tokens) {
    note = 'no update: no trainable tokens (every completion masked: truncated with mask_truncated_completions, or empty)';
    Object.assign(metrics, { loss: 0, policy_loss: 0, value_loss: 0, grad_norm: 0, learning_rate: trainer.optimizer.lr });
  } else {
    // The rollout pass: old values (and old log-probs) under the policy that sampled.
    const probe = new ValueHeadHook(rt, kernel, head);
    let oldValues: Float32Array[];
    try {
      const old = await trainer.accumulate({ seqs, dlogp: null, temperature, hidden: probe, lossRows: masks });
      if (recomputeOld) old.logprobs.forEach((lp, s) => { base[s].old = lp.map((v, t) => (masks[s][t] ? v : 0)); });
      oldValues = seqs.map((_, s) => probe.values.get(s)!.map((v, t) => (masks[s][t] ? v : 0)));
    } finally {
      probe.dispose();
    }
    const tg = ppoTargets(masks, oldValues, rollout.rewards, { gamma: p.gamma, lambda: p.lambda, whiten: p.whiten_advantages });
    tg.advantages.forEach((a, s) => { advantages[s] = meanOver([a], [masks[s]]); });
    const rows: PpoRows[] = base.map((r, s) => ({ ...r, rowAdvantages: tg.advantages[s], returns: tg.returns[s], oldValues: oldValues[s] }));
    if (lcfg.beta > 0) (await referenceLogprobs(ctx, seqs, temperature)).forEach((lp, s) => { rows[s].ref = lp; });
    const norm = { tokens, sequences: rows.length };
    const mb = g.micro_batch_size, mu = g.num_iterations;
    const readback0 = rt.readbackCount;
    // GPU-resident losses: per pass the policy and value kernels write dlogp / dentropy / dv for the
    // backward and add their sums into step buffers; sums and grad norms come back in ONE readback.
    const stepSums = new GrpoStepSums(rt), valueSums = new ValueStepSums(rt);
    const norms = rt.storage(4 * mu, 'ppo step grad norms');
    // Marks as GRPO's: 4 per training pass, 2 per update (the rollout's value pass is not stamped).
    const timer = stepPhaseTimer(rt, 4 * rows.length * mu + 2 * mu + 8);
    rt.phases = timer;
    let sums: GrpoSums, vs: ValueSums, gradNorm: number, lr = 0;
    try {
      for (let it = 0; it < mu; it++) {
        for (let i = 0; i < rows.length; i += mb) {
          const mbRows = rows.slice(i, i + mb);
          const hook = new ValueHeadHook(rt, kernel, head, false);
          try {
            const dlogp = ppoGpuUpstream(rt, ctx.loss, valueKernel, hook, mbRows, lcfg, norm, { vfCoef: p.vf_coef, clip: p.cliprange_value }, stepSums, valueSums);
            await trainer.accumulate({ seqs: seqs.slice(i, i + mb), dlogp, temperature, hidden: hook, lossRows: masks.slice(i, i + mb) });
          } finally {
            hook.dispose();
          }
          trainRows += mbRows.reduce((a, r) => a + r.mask.length, 0);
        }
        rt.phase('optimizer');
        const u = trainer.optimizer.record();
        rt.phase(null);
        rt.copy(u.gradNorm, 0, norms, 4 * it, 4);
        lr = u.lr;
      }
      const read = await rt.readParts([{ buf: stepSums.buf, bytes: GRPO_METRICS_BYTES }, { buf: valueSums.buf, bytes: VALUE_METRICS_BYTES }, { buf: norms, bytes: 4 * mu }], timer !== null);
      if (read.phaseMs) Object.assign(metrics, gpuPhaseMetrics(read.phaseMs));
      sums = stepSums.parse(read.parts[0]);
      vs = valueSums.parse(read.parts[1]);
      gradNorm = new Float32Array(read.parts[2]).reduce((a, v) => a + v, 0) / mu;
    } finally {
      rt.phases = null;
      stepSums.release();
      valueSums.release();
      rt.release(norms);
    }
    trainReadbacks = rt.readbackCount - readback0;
    const mean = zeroSums();
    for (const k of Object.keys(sums) as (keyof GrpoSums)[]) mean[k] = sums[k] / mu;
    const valueLoss = vs.loss / g.num_iterations;
    Object.assign(metrics, grpoMetrics(mean, { beta: lcfg.beta, hasEntropy: true }), {
      policy_loss: mean.policyLoss, value_loss: valueLoss, loss: mean.loss + p.vf_coef * valueLoss,
      vf_clipfrac: vs.rows ? vs.clipped / vs.rows : 0,
      'values/mean': meanOver(oldValues, masks), 'advantages/mean': meanOver(tg.advantages, masks), 'returns/mean': meanOver(tg.returns, masks),
      explained_variance: explainedVariance(oldValues, tg.returns, masks),
      grad_norm: gradNorm, learning_rate: lr,
    });
    trainMs = performance.now() - t1;
    updated = true;
  }
  Object.assign(metrics, stepCost(rt, start, trainer.step, trainMs, trainRows, metrics), { 'perf/train_readbacks': trainReadbacks });
  return { metrics, rollout, advantages, updated, note };
}
