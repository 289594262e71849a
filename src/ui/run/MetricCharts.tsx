// Live charts of the shown run's metrics.jsonl rows (recharts): one chart per group of
// chart-groups.ts whose metrics appear, an EMA smoothing slider and a step / time axis toggle.
// Exercised by tests/e2e/studio-run.spec.ts.
import { memo, useId, useMemo, useRef, useState } from 'react';
import type { MetricsRow } from '../../run/events';
import { useStaggered, useWidth } from './stagger';
import { CHART_GROUPS, chartPoints, groupSeries, groupUnit, metricHelp, presentMetrics, type ChartGroup } from './chart-groups';
import { CHART_PX, COLORS, fmt, MetricLineChart } from './MetricLineChart';

const Chart = memo(function Chart({ group, names, rows, seconds, axis, alpha }: {
  group: ChartGroup; names: string[]; rows: readonly MetricsRow[]; seconds: readonly number[]; axis: 'step' | 'time'; alpha: number;
}) {
  const points = useMemo(() => chartPoints(rows, seconds, names, axis, alpha), [rows, seconds, names, axis, alpha]);
  const shown = useStaggered(points, null);
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const data = shown ?? [];
  const last = data[data.length - 1];
  return (
    <figure className="chart card" data-testid={`chart-${group.id}`} data-points={data.length}>
      <figcaption>
        <strong>{group.title}</strong> <span className="small">({groupUnit(names)})</span>
      </figcaption>
      <div ref={box} className="chart-box" role="img" aria-label={`${group.title}: ${names.map((n) => `${n} ${last ? fmt(last[n]) : 'none'}`).join(', ')} at ${axis === 'step' ? 'step' : 'second'} ${last?.x ?? 0}`}>
        {shown === null || width === 0 ? <div style={{ height: CHART_PX }} /> : (
          <MetricLineChart data={data} names={names} axis={axis} width={width} fraction={groupUnit(names) === 'fraction'} />
        )}
      </div>
      <ul className="chart-legend" aria-label={`${group.title} series`}>
        {names.map((n, i) => <li key={n}><span className="swatch" style={{ background: COLORS[i % COLORS.length] }} aria-hidden="true" />{n}</li>)}
      </ul>
      <details className="small"><summary>What these are</summary><ul>{names.map((n) => <li key={n}><code>{n}</code>: {metricHelp(n)}</li>)}</ul></details>
    </figure>
  );
});

export function MetricCharts({ rows, seconds }: { rows: readonly MetricsRow[]; seconds: readonly number[] }) {
  const [alpha, setAlpha] = useState(0);
  const [axis, setAxis] = useState<'step' | 'time'>('step');
  const smoothId = useId();
  const present = useMemo(() => presentMetrics(rows), [rows]);
  const namesKey = [...present].sort().join('|');
  // eslint-disable-next-line react-hooks/exhaustive-deps -- recomputed only when the set of names changes
  const groups = useMemo(() => CHART_GROUPS.map((g) => ({ g, names: groupSeries(g, present) })).filter((x) => x.names.length), [namesKey]);
  return (
    <section className="run-charts" aria-labelledby="run-charts-title">
      <div className="chart-controls">
        <h2 id="run-charts-title">Metrics</h2>
        <label htmlFor={smoothId}>Smoothing (EMA)</label>
        <input id={smoothId} type="range" min={0} max={0.95} step={0.05} value={alpha} data-testid="chart-smoothing"
          onChange={(e) => setAlpha(Number(e.target.value))} aria-valuetext={alpha === 0 ? 'off' : alpha.toFixed(2)} />
        <output htmlFor={smoothId}>{alpha === 0 ? 'off' : alpha.toFixed(2)}</output>
        <fieldset className="axis-toggle">
          <legend>x axis</legend>
          <label><input type="radio" name="run-axis" checked={axis === 'step'} onChange={() => setAxis('step')} data-testid="axis-step" /> step</label>
          <label><input type="radio" name="run-axis" checked={axis === 'time'} onChange={() => setAxis('time')} data-testid="axis-time" /> time</label>
        </fieldset>
      </div>
      {groups.length === 0
        ? <p className="small" data-testid="charts-empty">Charts appear after the first step's metrics row.</p>
        : <div className="chart-grid">{groups.map(({ g, names }) => <Chart key={g.id} group={g} names={names} rows={rows} seconds={seconds} axis={axis} alpha={alpha} />)}</div>}
    </section>
  );
}
