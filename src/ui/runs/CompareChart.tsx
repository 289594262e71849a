// The Runs panel's compare chart: one metric (picked from the names the selected runs logged)
// over steps, one line per selected run, from their metrics.jsonl (recharts). Rendered by
// src/ui/panels/RunsPanel.tsx; exercised by tests/e2e/studio-runs.spec.ts (two curves).
import { useId, useMemo } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { METRIC } from '../../metrics/names';
import { useStudio } from '../../store/store';

const COLORS = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#9a6700', '#bf3989', '#57606a'];

export function CompareChart() {
  const ids = useStudio((s) => s.compareIds);
  const rows = useStudio((s) => s.compareRows);
  const metric = useStudio((s) => s.compareMetric);
  const setMetric = useStudio((s) => s.setCompareMetric);
  const selectId = useId();

  const names = useMemo(() => {
    const all = new Set<string>();
    for (const id of ids) for (const r of rows[id] ?? []) for (const k of Object.keys(r)) if (k !== 'step') all.add(k);
    return [...all].sort();
  }, [ids, rows]);
  const shown = names.includes(metric) ? metric : names.includes('reward') ? 'reward' : names[0] ?? metric;
  const data = useMemo(() => {
    const byStep = new Map<number, Record<string, number>>();
    for (const id of ids) {
      for (const r of rows[id] ?? []) {
        const v = r[shown];
        if (typeof v !== 'number') continue;
        const point = byStep.get(r.step) ?? { step: r.step };
        point[id] = v;
        byStep.set(r.step, point);
      }
    }
    return [...byStep.values()].sort((a, b) => a.step - b.step);
  }, [ids, rows, shown]);

  if (!ids.length) return <p className="small">Tick Compare on two or more runs to overlay one of their metrics.</p>;
  const about = (METRIC as Record<string, { description: string } | undefined>)[shown]?.description;
  return (
    <div data-testid="compare-chart" data-lines={ids.filter((id) => data.some((p) => id in p)).length} data-metric={shown}>
      <div className="inline-form">
        <label htmlFor={selectId}>Metric</label>
        <select id={selectId} value={shown} onChange={(e) => setMetric(e.target.value)} data-testid="compare-metric">
          {names.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </div>
      {about && <p className="small">{about}</p>}
      <div className="chart-box" role="img" aria-label={`${shown} over steps for ${ids.join(', ')}`}>
        <ResponsiveContainer width="100%" height={280}>
          <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            <CartesianGrid stroke="#eaeef2" />
            <XAxis dataKey="step" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} />
            <YAxis width={70} tickFormatter={(v: number) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(1) : String(+v.toFixed(4)))} />
            <Tooltip />
            <Legend />
            {ids.map((id, i) => <Line key={id} dataKey={id} name={id} stroke={COLORS[i % COLORS.length]} dot={false} isAnimationActive={false} connectNulls />)}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}
