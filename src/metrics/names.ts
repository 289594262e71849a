// The one metric vocabulary: every name a logger writes or a chart plots, with a one-line
// description and a unit. Training names follow TRL/verl logs (anchors.md section 3); ours live
// under perf/, gpu/ and eval/. Templated names (rewards/{fn}/mean, eval/pass@{k}) come from the
// helpers below. Exercised by tests/unit/metrics/metrics-names.test.ts.

/** What a metric's value counts; charts label axes with it. */
export type MetricUnit = 'reward' | 'fraction' | 'tokens' | 'nats' | 'loss' | 'count' | 's' | 'tokens/s' | 'bytes' | 'scalar';

export interface MetricSpec {
  name: string;
  description: string;
  unit: MetricUnit;
}

function m<N extends string>(name: N, unit: MetricUnit, description: string): { name: N; unit: MetricUnit; description: string } {
  return { name, unit, description };
}

/** Every fixed metric name, keyed by itself. */
export const METRIC = {
  // Rewards and groups (TRL)
  reward: m('reward', 'reward', 'Mean total reward (weighted sum of the reward functions) over the batch\'s completions.'),
  reward_std: m('reward_std', 'reward', 'Unbiased std of the total reward over the batch.'),
  frac_reward_zero_std: m('frac_reward_zero_std', 'fraction', 'Share of groups whose rewards are all equal: they give no gradient (a loss of 0 starts here).'),
  // Completions
  'completions/mean_length': m('completions/mean_length', 'tokens', 'Mean generated tokens per completion (tool output excluded).'),
  'completions/max_length': m('completions/max_length', 'tokens', 'Longest completion of the batch in generated tokens.'),
  'completions/clipped_ratio': m('completions/clipped_ratio', 'fraction', 'Share of completions cut at the max completion length (truncated, no EOS).'),
  // Objective
  loss: m('loss', 'loss', 'Total objective of the step: policy loss minus the entropy bonus.'),
  policy_loss: m('policy_loss', 'loss', 'Clipped surrogate plus beta x KL, aggregated by the configured loss mode.'),
  kl: m('kl', 'nats', 'Mean per-token KL estimate to the reference policy over trained tokens (logged when beta > 0).'),
  entropy: m('entropy', 'nats', 'Mean per-token entropy of the policy over trained tokens.'),
  'clip_ratio/low_mean': m('clip_ratio/low_mean', 'fraction', 'Share of trained tokens with ratio < 1 - epsilon_low and negative advantage (clipped from below).'),
  'clip_ratio/high_mean': m('clip_ratio/high_mean', 'fraction', 'Share of trained tokens with ratio > 1 + epsilon_high and positive advantage (clipped from above).'),
  'clip_ratio/region_mean': m('clip_ratio/region_mean', 'fraction', 'Share of trained tokens clipped on either side.'),
  // PPO (trainer: ppo): the value head and GAE
  value_loss: m('value_loss', 'loss', 'PPO: clipped value loss 0.5 max((v - R)^2, (v_clip - R)^2), token-mean over trained tokens (loss adds vf_coef x it).'),
  vf_clipfrac: m('vf_clipfrac', 'fraction', 'PPO: share of trained tokens where the clipped value term was the larger.'),
  'values/mean': m('values/mean', 'reward', 'PPO: mean value-head prediction over trained tokens at rollout time.'),
  'advantages/mean': m('advantages/mean', 'scalar', 'PPO: mean GAE advantage over trained tokens (0 when whitened).'),
  'returns/mean': m('returns/mean', 'reward', 'PPO: mean value target (GAE advantage + value) over trained tokens.'),
  explained_variance: m('explained_variance', 'fraction', 'PPO: 1 - Var(R - v) / Var(R) over trained tokens; 1 is a perfect value head.'),
  // Optimiser
  grad_norm: m('grad_norm', 'scalar', 'Global L2 norm of the trainable gradients before clipping.'),
  learning_rate: m('learning_rate', 'scalar', 'Learning rate applied at this step.'),
  // Tools and turns
  'tools/call_frequency': m('tools/call_frequency', 'count', 'Mean tool calls per completion.'),
  'tools/failure_frequency': m('tools/failure_frequency', 'fraction', 'Share of tool calls that failed (error, timeout, bad arguments).'),
  'num_turns/mean': m('num_turns/mean', 'count', 'Mean assistant turns per episode.'),
  'num_turns/max': m('num_turns/max', 'count', 'Most assistant turns in one episode of the batch.'),
  // Step
  step_time: m('step_time', 's', 'Wall time of the whole step (rollouts, scoring, updates).'),
  num_tokens: m('num_tokens', 'tokens', 'Tokens seen so far (prompts and completions), cumulative.'),
  // Ours: performance
  'perf/tokens_per_s': m('perf/tokens_per_s', 'tokens/s', 'Tokens generated per second during rollouts.'),
  'perf/train_tokens_per_s': m('perf/train_tokens_per_s', 'tokens/s', 'Token rows through forward + backward per second during updates.'),
  'perf/rollout_time': m('perf/rollout_time', 's', 'Wall time spent generating completions (tool calls included).'),
  'perf/reward_time': m('perf/reward_time', 's', 'Wall time spent scoring completions.'),
  'perf/train_time': m('perf/train_time', 's', 'Wall time of the policy updates (all mu iterations and micro-batches).'),
  'perf/tool_time': m('perf/tool_time', 's', 'Wall time spent waiting on tool calls.'),
  'perf/gpu_idle_waiting_tools_frac': m('perf/gpu_idle_waiting_tools_frac', 'fraction', 'Share of rollout time the GPU sat idle waiting for tool results.'),
  'perf/dispatches_per_step': m('perf/dispatches_per_step', 'count', 'GPU compute dispatches recorded in the step.'),
  'perf/train_shared_rows_frac': m('perf/train_shared_rows_frac', 'fraction', 'Share of the update\'s token rows run once for several episodes (a group\'s prompt, a common system prompt), not per episode.'),
  'perf/train_readbacks': m('perf/train_readbacks', 'count', 'GPU -> host round trips during the update (old / reference log-prob passes, metrics).'),
  'perf/generation_time': m('perf/generation_time', 's', 'Rollout wall time the GPU spent generating (rollout time minus the tool wait).'),
  'perf/tool_wait_time': m('perf/tool_wait_time', 's', 'Rollout wall time the GPU sat idle waiting for tool results.'),
  'perf/forward_time': m('perf/forward_time', 's', 'GPU time of the update\'s forward passes and log-probs (timestamp queries; absent without them).'),
  'perf/loss_time': m('perf/loss_time', 's', 'GPU time of the GRPO loss kernels and their input uploads (timestamp queries).'),
  'perf/backward_time': m('perf/backward_time', 's', 'GPU time of the update\'s backward passes (timestamp queries).'),
  'perf/optimizer_time': m('perf/optimizer_time', 's', 'GPU time of the optimizer updates: grad norm, clip, AdamW (timestamp queries).'),
  // Ours: GPU memory
  'gpu/bytes_in_use': m('gpu/bytes_in_use', 'bytes', 'GPU buffer bytes held by the pool at the end of the step.'),
  'gpu/peak_bytes': m('gpu/peak_bytes', 'bytes', 'Highest GPU buffer bytes held since the start.'),
  // Ours: evaluation
  'eval/accuracy': m('eval/accuracy', 'fraction', 'Share of held-out prompts answered correctly (greedy).'),
  'eval/reward': m('eval/reward', 'reward', 'Mean total reward on held-out prompts.'),
  'eval/malformed_call_rate': m('eval/malformed_call_rate', 'fraction', 'Share of held-out episodes with at least one unreadable <tool_call> block.'),
} as const;

export type FixedMetricName = keyof typeof METRIC;
export type RewardFnMetric = `rewards/${string}/mean` | `rewards/${string}/std`;
export type PassAtKMetric = `eval/pass@${number}`;
export type GroupAccuracyMetric = `eval/accuracy/${string}`;
/** Every name a logger may write. */
export type MetricName = FixedMetricName | RewardFnMetric | PassAtKMetric | GroupAccuracyMetric;

const FN_NAME = /^[A-Za-z0-9_.-]+$/;

function checkFn(fn: string): string {
  if (!FN_NAME.test(fn)) throw new Error(`Metric names: reward function name "${fn}" must match [A-Za-z0-9_.-]+ (it becomes a path segment)`);
  return fn;
}

/** rewards/{fn}/mean: mean of one reward function over the batch. */
export function rewardMeanName(fn: string): RewardFnMetric {
  return `rewards/${checkFn(fn)}/mean`;
}

/** rewards/{fn}/std: unbiased std of one reward function over the batch. */
export function rewardStdName(fn: string): RewardFnMetric {
  return `rewards/${checkFn(fn)}/std`;
}

/** eval/pass@{k}: share of held-out prompts with at least one correct answer among k samples. */
export function passAtKName(k: number): PassAtKMetric {
  if (!Number.isInteger(k) || k < 1) throw new Error(`Metric names: pass@k needs a positive integer k, got ${k}`);
  return `eval/pass@${k}`;
}

/** eval/accuracy/{group}: eval/accuracy over the held-out tasks of one group (e.g. a task family). */
export function groupAccuracyName(group: string): GroupAccuracyMetric {
  return `eval/accuracy/${checkFn(group)}`;
}

/** The spec of any metric name, templated ones included; undefined for a name not in the vocabulary. */
export function describeMetric(name: string): MetricSpec | undefined {
  if (Object.hasOwn(METRIC, name)) return METRIC[name as FixedMetricName];
  let g = /^rewards\/([A-Za-z0-9_.-]+)\/(mean|std)$/.exec(name);
  if (g) {
    return { name, unit: 'reward', description: g[2] === 'mean' ? `Mean of reward function ${g[1]} over the batch.` : `Unbiased std of reward function ${g[1]} over the batch.` };
  }
  g = /^eval\/pass@([1-9][0-9]*)$/.exec(name);
  if (g) return { name, unit: 'fraction', description: `Share of held-out prompts with a correct answer among ${g[1]} samples.` };
  g = /^eval\/accuracy\/([A-Za-z0-9_.-]+)$/.exec(name);
  if (g) return { name, unit: 'fraction', description: `eval/accuracy over the held-out tasks of group ${g[1]}.` };
  return undefined;
}

export function isMetricName(name: string): name is MetricName {
  return describeMetric(name) !== undefined;
}

export interface Summary {
  /** Finite values counted (NaN is skipped, as TRL's nanmean). */
  count: number;
  mean: number;
  /** Unbiased (n - 1), as torch.std; 0 for one value. */
  std: number;
  min: number;
  max: number;
}

/** mean / std / min / max of values, NaN skipped; all NaN when nothing is left. */
export function summarize(values: ArrayLike<number>): Summary {
  let count = 0, sum = 0, min = Infinity, max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isNaN(v)) continue;
    count++;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (count === 0) return { count, mean: NaN, std: NaN, min: NaN, max: NaN };
  const mean = sum / count;
  let ss = 0;
  for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i])) ss += (values[i] - mean) ** 2;
  return { count, mean, std: count > 1 ? Math.sqrt(ss / (count - 1)) : 0, min, max };
}
