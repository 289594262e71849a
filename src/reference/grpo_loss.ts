// CPU reference of the GRPO objective (plain loops, float64): per-token PPO clip with decoupled
// bounds, KL to the reference (k1/k2/k3), entropy bonus, three aggregation modes expressed as
// per-token normaliser weights, and the gradients dlogp / dentropy the engine's backward takes;
// advantages per sequence (GRPO, RLOO, REINFORCE++) or per row (PPO's GAE). CPU twin of
// shaders/grpo.wgsl. Exercised by tests/unit/reference/grpo-reference.test.ts, grpo-gpu.test.ts, ppo-reference.test.ts.
import { kl_grad, kl_value, type KlEstimator } from './kl';
import { METRIC } from '../metrics/names';

/**
 * How per-token losses become one number (see docs/grpo.md):
 * `token-mean`: sum over every masked token of the batch / their count (TRL `dapo`, verl default);
 * `seq-mean-token-mean`: mean over sequences of each sequence's token mean (original GRPO);
 * `seq-mean-token-sum-norm`: sum over tokens / (sequences x maxCompletionLength) (Dr. GRPO).
 */
export type LossAggregation = 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum-norm';

export const LOSS_AGGREGATIONS: readonly LossAggregation[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'];

export interface GrpoLossConfig {
  /** Ratios below 1 - epsilonLow are clipped (PPO epsilon). */
  epsilonLow: number;
  /** Ratios above 1 + epsilonHigh are clipped (DAPO clip-higher: 0.28; TRL's default is 0.2). */
  epsilonHigh: number;
  /** KL coefficient; 0 skips the reference policy entirely (TRL default). */
  beta: number;
  /** KL estimator added to the per-token loss when beta > 0. */
  klEstimator: KlEstimator;
  /** Entropy bonus: the per-token loss subtracts entropyCoef x entropy (0 = off). */
  entropyCoef: number;
  aggregation: LossAggregation;
  /** The Dr. GRPO constant (the configured max completion length, not the batch's longest). */
  maxCompletionLength: number;
}

export const DEFAULT_GRPO_LOSS: GrpoLossConfig = {
  epsilonLow: 0.2, epsilonHigh: 0.28, beta: 0, klEstimator: 'k3', entropyCoef: 0,
  aggregation: 'token-mean', maxCompletionLength: 256,
};

/** Defaults overridden by `partial`, validated; errors say which field to fix. */
export function resolveGrpoLoss(partial: Partial<GrpoLossConfig> = {}): GrpoLossConfig {
  const c = { ...DEFAULT_GRPO_LOSS, ...partial };
  const fail = (field: string, want: string, got: unknown) => { throw new Error(`GRPO loss config: ${field} must be ${want}, got ${String(got)}`); };
  if (!(c.epsilonLow > 0 && c.epsilonLow < 1)) fail('epsilonLow', 'in (0, 1) (0.2 is usual)', c.epsilonLow);
  if (!(c.epsilonHigh > 0)) fail('epsilonHigh', '> 0 (0.2, or 0.28 for DAPO clip-higher)', c.epsilonHigh);
  if (!(c.beta >= 0)) fail('beta', '>= 0 (0 disables the KL term)', c.beta);
  if (!(c.entropyCoef >= 0)) fail('entropyCoef', '>= 0 (0 disables the entropy bonus)', c.entropyCoef);
  if (!['k1', 'k2', 'k3'].includes(c.klEstimator)) fail('klEstimator', 'one of k1, k2, k3', c.klEstimator);
  if (!LOSS_AGGREGATIONS.includes(c.aggregation)) fail('aggregation', `one of ${LOSS_AGGREGATIONS.join(', ')}`, c.aggregation);
  if (!(Number.isInteger(c.maxCompletionLength) && c.maxCompletionLength > 0)) fail('maxCompletionLength', 'a positive integer', c.maxCompletionLength);
  return c;
}

/** A batch (or micro-batch) of token rows. N rows, S sequences. */
export interface GrpoTokens {
  /** [N] log prob of each row's token under the policy being trained. */
  logp: ArrayLike<number>;
  /** [N] under the policy that sampled the rollouts; omit when mu = 1 (then old = logp, detached). */
  oldLogp?: ArrayLike<number>;
  /** [N] under the reference policy (adapter disabled); required when beta > 0. */
  refLogp?: ArrayLike<number>;
  /** [N] entropy of each row's distribution; required when entropyCoef > 0. */
  entropy?: ArrayLike<number>;
  /** [N] loss mask: 0 for prompt, tool output, padding and masked truncated completions. */
  mask: ArrayLike<number>;
  /** [S+1] sequence s owns rows offsets[s] .. offsets[s+1]-1; offsets[S] = N. */
  offsets: ArrayLike<number>;
  /** [S] advantage of each sequence (GRPO, RLOO, REINFORCE++). */
  advantages: ArrayLike<number>;
  /** [N] an advantage per row instead (PPO with GAE: src/reference/ppo.ts); `advantages` is then ignored. */
  rowAdvantages?: ArrayLike<number>;
}

/** The whole batch's counts: pass the same one with every micro-batch so gradients add up. */
export interface LossNormaliser {
  /** Sum of the loss mask over the whole batch (token-mean). */
  tokens: number;
  /** Sequences in the whole batch, fully masked ones included (seq-mean-*, as TRL). */
  sequences: number;
}

export function batchNormaliser(mask: ArrayLike<number>, offsets: ArrayLike<number>): LossNormaliser {
  let tokens = 0;
  for (let n = 0; n < mask.length; n++) tokens += mask[n];
  return { tokens, sequences: offsets.length - 1 };
}

/** A copy of mask [N] with the rows of truncated sequences zeroed (TRL mask_truncated_completions). */
export function maskTruncated(mask: ArrayLike<number>, offsets: ArrayLike<number>, truncated: ArrayLike<boolean>): Float32Array {
  const out = Float32Array.from(mask);
  for (let s = 0; s + 1 < offsets.length; s++) if (truncated[s]) out.fill(0, offsets[s], offsets[s + 1]);
  return out;
}

/**
 * Per-token normaliser weights w [N]: loss = sum_n w[n] tokenLoss[n] in every mode, so one GPU
 * kernel serves all modes. w = mask / tokens | mask / (sequences x max(1, sequence's mask sum)) |
 * mask / (sequences x maxCompletionLength).
 */
export function tokenWeights(mask: ArrayLike<number>, offsets: ArrayLike<number>, cfg: GrpoLossConfig, norm: LossNormaliser): Float64Array {
  const w = new Float64Array(mask.length);
  if (cfg.aggregation === 'token-mean' && !(norm.tokens > 0)) {
    // TRL clamps the count at 1: an all-masked batch has zero loss and zero gradient.
    return w;
  }
  for (let s = 0; s + 1 < offsets.length; s++) {
    const a = offsets[s], b = offsets[s + 1];
    let D: number;
    if (cfg.aggregation === 'token-mean') D = norm.tokens;
    else if (cfg.aggregation === 'seq-mean-token-sum-norm') D = norm.sequences * cfg.maxCompletionLength;
    else {
      let len = 0;
      for (let n = a; n < b; n++) len += mask[n];
      D = norm.sequences * Math.max(1, len);
    }
    for (let n = a; n < b; n++) w[n] = mask[n] / D;
  }
  return w;
}

/** [N] each row's advantage, from the per-sequence advantages. */
export function tokenAdvantages(offsets: ArrayLike<number>, advantages: ArrayLike<number>): Float64Array {
  const out = new Float64Array(offsets[offsets.length - 1]);
  for (let s = 0; s + 1 < offsets.length; s++) out.fill(advantages[s], offsets[s], offsets[s + 1]);
  return out;
}

/**
 * Sums that add over micro-batches; the GPU reduction kernel writes the same eight numbers in
 * this order. loss and policyLoss are already normalised (weighted sums); the others are sums
 * over masked tokens (x mask) to divide by `tokens`.
 */
export interface GrpoSums {
  loss: number;
  /** The loss without the entropy bonus (TRL's policy_loss: clipped surrogate + beta KL). */
  policyLoss: number;
  tokens: number;
  kl: number;
  entropy: number;
  clipLow: number;
  clipHigh: number;
  clipRegion: number;
}

export const GRPO_SUM_FIELDS = ['loss', 'policyLoss', 'tokens', 'kl', 'entropy', 'clipLow', 'clipHigh', 'clipRegion'] as const;

export function zeroSums(): GrpoSums {
  return { loss: 0, policyLoss: 0, tokens: 0, kl: 0, entropy: 0, clipLow: 0, clipHigh: 0, clipRegion: 0 };
}

export function addSums(a: GrpoSums, b: GrpoSums): GrpoSums {
  const out = zeroSums();
  for (const k of GRPO_SUM_FIELDS) out[k] = a[k] + b[k];
  return out;
}

/** The logged metrics (names from src/metrics/names.ts); kl only when beta > 0, entropy when measured. */
export function grpoMetrics(sums: GrpoSums, opts: { beta: number; hasEntropy: boolean }): Record<string, number> {
  const n = Math.max(1, sums.tokens);
  const m: Record<string, number> = {
    [METRIC.loss.name]: sums.loss,
    [METRIC.policy_loss.name]: sums.policyLoss,
    [METRIC['clip_ratio/low_mean'].name]: sums.clipLow / n,
    [METRIC['clip_ratio/high_mean'].name]: sums.clipHigh / n,
    [METRIC['clip_ratio/region_mean'].name]: sums.clipRegion / n,
  };
  if (opts.beta > 0) m[METRIC.kl.name] = sums.kl / n;
  if (opts.hasEntropy) m[METRIC.entropy.name] = sums.entropy / n;
  return m;
}

export interface GrpoLossResult {
  /** This (micro-)batch's share of the objective. */
  loss: number;
  /** [N] d loss / d logp: the engine's upstream gradient (0 on masked rows). */
  dlogp: Float64Array;
  /** [N] d loss / d entropy = -entropyCoef w. */
  dentropy: Float64Array;
  sums: GrpoSums;
  metrics: Record<string, number>;
}

/** The GRPO loss of `tok` and its gradients. `norm` defaults to this batch's own counts. */
export function grpo_loss(tok: GrpoTokens, cfg: GrpoLossConfig, norm?: LossNormaliser): GrpoLossResult {
  const N = tok.logp.length;
  checkTokens(tok, cfg, N);
  const w = tokenWeights(tok.mask, tok.offsets, cfg, norm ?? batchNormaliser(tok.mask, tok.offsets));
  const A = tok.rowAdvantages ?? tokenAdvantages(tok.offsets, tok.advantages);
  const lo = 1 - cfg.epsilonLow, hi = 1 + cfg.epsilonHigh;
  const dlogp = new Float64Array(N), dentropy = new Float64Array(N);
  const sums = zeroSums();
  for (let n = 0; n < N; n++) {
    const m = tok.mask[n];
    if (m === 0) continue;   // padding may hold anything: never read into the result
    const lp = tok.logp[n];
    const ratio = Math.exp(lp - (tok.oldLogp ? tok.oldLogp[n] : lp));
    const clipped = Math.min(Math.max(ratio, lo), hi);
    const s1 = ratio * A[n], s2 = clipped * A[n];
    // -min(s1, s2): the gradient flows through s1 when it is the smaller (or tied: then s2 = s1).
    let tokLoss = -Math.min(s1, s2);
    let d = s1 <= s2 ? -s1 : 0;
    const low = ratio < lo && A[n] < 0 ? 1 : 0, high = ratio > hi && A[n] > 0 ? 1 : 0;
    if (cfg.beta > 0 && tok.refLogp) {
      const kl = kl_value(cfg.klEstimator, lp, tok.refLogp[n]);
      tokLoss += cfg.beta * kl;
      d += cfg.beta * kl_grad(cfg.klEstimator, lp, tok.refLogp[n]);
      sums.kl += m * kl;
    }
    const H = tok.entropy ? tok.entropy[n] : 0;
    sums.policyLoss += w[n] * tokLoss;
    sums.loss += w[n] * (tokLoss - cfg.entropyCoef * H);
    sums.tokens += m;
    sums.entropy += m * H;
    sums.clipLow += m * low;
    sums.clipHigh += m * high;
    sums.clipRegion += m * (low | high);
    dlogp[n] = w[n] * d;
    dentropy[n] = -cfg.entropyCoef * w[n];
  }
  return { loss: sums.loss, dlogp, dentropy, sums, metrics: grpoMetrics(sums, { beta: cfg.beta, hasEntropy: !!tok.entropy }) };
}

function checkTokens(tok: GrpoTokens, cfg: GrpoLossConfig, N: number): void {
  const S = tok.offsets.length - 1;
  if (S < 1 || tok.offsets[0] !== 0 || tok.offsets[S] !== N) {
    throw new Error(`grpo_loss: offsets must be [S+1] from 0 to N=${N}, got [${Array.from(tok.offsets).join(', ')}]`);
  }
  if (tok.rowAdvantages) {
    if (tok.rowAdvantages.length !== N) throw new Error(`grpo_loss: rowAdvantages has ${tok.rowAdvantages.length} rows, expected [N=${N}] like logp`);
  } else if (tok.advantages.length !== S) throw new Error(`grpo_loss: ${tok.advantages.length} advantages for ${S} sequences; expected one per sequence`);
  const rows: [string, ArrayLike<number> | undefined][] = [['mask', tok.mask], ['oldLogp', tok.oldLogp], ['refLogp', tok.refLogp], ['entropy', tok.entropy]];
  for (const [name, a] of rows) if (a && a.length !== N) throw new Error(`grpo_loss: ${name} has ${a.length} rows, expected [N=${N}] like logp`);
  if (cfg.beta > 0 && !tok.refLogp) throw new Error('grpo_loss: beta > 0 needs refLogp (the reference policy\'s log probs); set beta 0 to train without KL');
  if (cfg.entropyCoef > 0 && !tok.entropy) throw new Error('grpo_loss: entropyCoef > 0 needs the per-token entropy; set entropyCoef 0 or ask the forward for entropies');
}
