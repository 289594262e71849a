// The metric vocabulary (src/metrics/names.ts): every name of anchors.md section 3 is defined
// with a description and a unit, templated names round-trip through describeMetric, the GRPO
// and reward metrics only use vocabulary names, and summarize matches hand-computed figures.
import { describe, expect, it } from 'vitest';
import {
  METRIC, describeMetric, isMetricName, groupAccuracyName, passAtKName, rewardMeanName, rewardStdName, summarize, type MetricUnit,
} from '../../../src/metrics/names';
import { grpoMetrics, zeroSums } from '../../../src/reference/grpo_loss';
import { computeAdvantages, rewardMetrics } from '../../../src/rl/advantages';

// anchors.md section 3, verbatim (templated ones instantiated), plus num_turns/max from the brief.
const ANCHOR_NAMES = [
  'reward', 'reward_std', 'frac_reward_zero_std', 'completions/mean_length', 'completions/max_length',
  'completions/clipped_ratio', 'kl', 'entropy', 'policy_loss', 'clip_ratio/low_mean', 'clip_ratio/high_mean',
  'clip_ratio/region_mean', 'grad_norm', 'learning_rate', 'tools/call_frequency', 'tools/failure_frequency',
  'num_turns/mean', 'num_turns/max', 'step_time', 'num_tokens',
];
const UNITS: MetricUnit[] = ['reward', 'fraction', 'tokens', 'nats', 'loss', 'count', 's', 'tokens/s', 'bytes', 'scalar'];

describe('metric vocabulary', () => {
  it('defines every anchors.md name and ours under perf/, gpu/, eval/', () => {
    for (const n of ANCHOR_NAMES) expect(describeMetric(n)?.name, n).toBe(n);
    for (const n of ['perf/tokens_per_s', 'perf/rollout_time', 'perf/train_time', 'perf/gpu_idle_waiting_tools_frac', 'gpu/bytes_in_use', 'gpu/peak_bytes', 'eval/accuracy']) {
      expect(isMetricName(n), n).toBe(true);
    }
    const entries = Object.entries(METRIC);
    for (const [key, spec] of entries) {
      expect(spec.name).toBe(key);
      expect(spec.description.length).toBeGreaterThan(10);
      expect(UNITS).toContain(spec.unit);
      expect(spec.name).toMatch(/^[a-z_]+(\/[a-z_]+)?$/);
    }
    console.log(`metric vocabulary: ${entries.length} fixed names + rewards/{fn}/mean|std + eval/pass@{k}`);
    expect(isMetricName('rewards/accuracy/mean/extra')).toBe(false);
    expect(isMetricName('toString')).toBe(false);
  });

  it('templated names round-trip and reject bad segments', () => {
    expect(rewardMeanName('accuracy')).toBe('rewards/accuracy/mean');
    expect(rewardStdName('format_v2')).toBe('rewards/format_v2/std');
    expect(passAtKName(8)).toBe('eval/pass@8');
    expect(describeMetric('rewards/accuracy/mean')?.unit).toBe('reward');
    expect(describeMetric('eval/pass@8')?.unit).toBe('fraction');
    expect(groupAccuracyName('calculator')).toBe('eval/accuracy/calculator');
    expect(describeMetric('eval/accuracy/calculator')?.unit).toBe('fraction');
    expect(() => rewardMeanName('a/b')).toThrow(/reward function name/);
    expect(() => passAtKName(0)).toThrow(/positive integer/);
  });

  it('summarize: mean, unbiased std, min, max; NaN skipped', () => {
    const s = summarize([1, 2, NaN, 3, 4]);
    const d = Math.abs(s.std - Math.sqrt(5 / 3));
    console.log(`summarize [1,2,NaN,3,4]: mean ${s.mean} std ${s.std} (maxdiff vs sqrt(5/3) ${d.toExponential(2)}) min ${s.min} max ${s.max}`);
    expect(s).toMatchObject({ count: 4, mean: 2.5, min: 1, max: 4 });
    expect(d).toBeLessThan(1e-15);
    expect(summarize([7])).toEqual({ count: 1, mean: 7, std: 0, min: 7, max: 7 });
    expect(Number.isNaN(summarize([]).mean)).toBe(true);
  });

  it('GRPO and reward metrics use vocabulary names only', () => {
    const names = Object.keys(grpoMetrics(zeroSums(), { beta: 0.1, hasEntropy: true }));
    expect(names.sort()).toEqual(['clip_ratio/high_mean', 'clip_ratio/low_mean', 'clip_ratio/region_mean', 'entropy', 'kl', 'loss', 'policy_loss']);
    const total = [1, 0, 0.25, 1, 1, 1, 1, 1];
    const adv = computeAdvantages(total, { groupSize: 4, scaling: 'group' });
    const m = rewardMetrics({ correct: [1, 0, 0, 1, 1, 1, 1, 1], format: [0, 0, 0.25, 0, 0, 0, NaN, 0] }, total, adv);
    for (const n of Object.keys(m)) expect(isMetricName(n), n).toBe(true);
    expect(m.reward).toBe(6.25 / 8);
    expect(m['rewards/correct/mean']).toBe(0.75);
    expect(m['rewards/format/mean']).toBeCloseTo(0.25 / 7, 15);
    expect(m.frac_reward_zero_std).toBe(0.5);
  });
});
