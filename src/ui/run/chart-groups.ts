// Which charts the Run panel draws: groups of metric names from the CLI's vocabulary
// (src/metrics/names.ts), each shown only when one of its metrics appears in the run's rows;
// per-reward-function means join the reward chart. Plus EMA smoothing and the chart points.
// Pure; exercised by tests/unit/metrics/chart-groups.test.ts and tests/e2e/studio-run.spec.ts.
import { describeMetric, type FixedMetricName } from '../../metrics/names';
import type { MetricsRow } from '../../run/events';

export interface ChartGroup {
  id: string;
  title: string;
  /** Fixed names drawn in this chart, in legend order. */
  metrics: FixedMetricName[];
  /** Also draws every rewards/{fn}/mean of the run. */
  rewardFns?: boolean;
}

export const CHART_GROUPS: readonly ChartGroup[] = [
  { id: 'reward', title: 'Reward', metrics: ['reward', 'reward_std'], rewardFns: true },
  { id: 'kl', title: 'KL to the reference', metrics: ['kl'] },
  { id: 'entropy', title: 'Entropy', metrics: ['entropy'] },
  { id: 'loss', title: 'Loss', metrics: ['loss', 'policy_loss', 'value_loss'] },
  { id: 'clip', title: 'Clip ratios', metrics: ['clip_ratio/low_mean', 'clip_ratio/high_mean', 'clip_ratio/region_mean'] },
  { id: 'grad', title: 'Grad norm', metrics: ['grad_norm'] },
  { id: 'lr', title: 'Learning rate', metrics: ['learning_rate'] },
  { id: 'length', title: 'Completion length', metrics: ['completions/mean_length', 'completions/max_length'] },
  { id: 'tools', title: 'Tool calls and failures', metrics: ['tools/call_frequency', 'tools/failure_frequency'] },
  { id: 'zero-std', title: 'Groups with no reward variance', metrics: ['frac_reward_zero_std', 'completions/clipped_ratio'] },
  { id: 'speed', title: 'Tokens per second', metrics: ['perf/tokens_per_s', 'perf/train_tokens_per_s'] },
  { id: 'gpu-idle', title: 'GPU idle waiting for tools', metrics: ['perf/gpu_idle_waiting_tools_frac'] },
];

/** Every metric name present (finite at least once) in the rows. */
export function presentMetrics(rows: readonly MetricsRow[]): Set<string> {
  const out = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) if (k !== 'step' && Number.isFinite(r[k])) out.add(k);
  return out;
}

/** The names a group draws for this run (empty: the chart is not shown). */
export function groupSeries(g: ChartGroup, present: Set<string>): string[] {
  const names: string[] = g.metrics.filter((m) => present.has(m));
  if (g.rewardFns) for (const n of [...present].sort()) if (/^rewards\/[^/]+\/mean$/.test(n)) names.push(n);
  return names;
}

/** Exponential moving average (weight `alpha` on the past, 0 = raw), bias-corrected like TensorBoard; NaN skipped. */
export function ema(values: readonly number[], alpha: number): number[] {
  if (alpha <= 0) return [...values];
  const out: number[] = [];
  let acc = 0, weight = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) {
      out.push(NaN);
      continue;
    }
    acc = alpha * acc + (1 - alpha) * v;
    weight = alpha * weight + (1 - alpha);
    out.push(acc / weight);
  }
  return out;
}

export type ChartPoint = { x: number } & Record<string, number | null>;

/** The points of a chart: x is the step or the seconds since start, one smoothed column per name. */
export function chartPoints(rows: readonly MetricsRow[], seconds: readonly number[], names: readonly string[], axis: 'step' | 'time', alpha: number): ChartPoint[] {
  const cols = names.map((n) => ema(rows.map((r) => (typeof r[n] === 'number' ? r[n] : NaN)), alpha));
  return rows.map((r, i) => {
    const p: ChartPoint = { x: axis === 'step' ? r.step : Math.round(seconds[i] * 10) / 10 };
    names.forEach((n, j) => {
      p[n] = Number.isFinite(cols[j][i]) ? cols[j][i] : null;
    });
    return p;
  });
}

/** The unit a chart's y axis shows (its first metric's). */
export function groupUnit(names: readonly string[]): string {
  return names.length ? (describeMetric(names[0])?.unit ?? '') : '';
}

/** Tooltip line for a metric name. */
export const metricHelp = (name: string): string => describeMetric(name)?.description ?? name;

