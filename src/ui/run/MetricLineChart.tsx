// The recharts line chart of one metric group of the Run panel: step or seconds on x, one coloured
// line per metric name, a fraction axis from 0. Shared by MetricCharts.tsx and ChartWarmup.tsx
// (which mounts it off screen ahead of the first run, so the first real mount runs warm code).
// Exercised by tests/e2e/studio-run.spec.ts and studio-first-run.spec.ts.
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartPoint } from './chart-groups';

export const CHART_PX = 180;
/** Fractions start at 0; an all-zero series gets 0..1 rather than recharts' 0..4. */
const FRACTION_DOMAIN: [number, (max: number) => number] = [0, (max) => (max > 0 ? max : 1)];
export const COLORS = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#bc4c00', '#1b7c83', '#a40e26', '#57606a'];

export const fmt = (v: unknown): string => (typeof v === 'number' ? (Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.01) ? v.toExponential(2) : v.toFixed(3)) : String(v));

export function MetricLineChart({ data, names, axis, width, fraction }: {
  data: ChartPoint[]; names: readonly string[]; axis: 'step' | 'time'; width: number; fraction: boolean;
}) {
  return (
    <LineChart width={width} height={CHART_PX} data={data} margin={{ top: 4, right: 12, bottom: 10, left: 0 }}>
      <CartesianGrid stroke="#eaeef2" />
      <XAxis dataKey="x" type="number" domain={['dataMin', 'dataMax']} allowDecimals={axis === 'time'} tick={{ fontSize: 11 }}
        label={{ value: axis === 'step' ? 'step' : 'seconds', position: 'insideBottomRight', offset: -2, fontSize: 11 }} />
      <YAxis width={56} tick={{ fontSize: 11 }} tickFormatter={fmt} domain={fraction ? FRACTION_DOMAIN : ['auto', 'auto']} />
      <Tooltip formatter={(v) => fmt(v)} labelFormatter={(x) => `${axis === 'step' ? 'step' : 's'} ${String(x)}`} />
      {names.map((n, i) => (
        <Line key={n} dataKey={n} name={n} stroke={COLORS[i % COLORS.length]} dot={data.length < 3} isAnimationActive={false} connectNulls />
      ))}
    </LineChart>
  );
}
