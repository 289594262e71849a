// Warms recharts up off screen while the page is idle, so a run's first chart mount is not a long
// main-thread task: cold, the first chart took 260 ms (V8 compiling and optimising recharts' code
// on first use) where a warm one takes 30-50 ms. Each stage mounts a little more of the chart
// (container, line, axes, grid, tooltip, then the Run panel's whole chart eight times), one stage
// per idle callback, so no stage is long either. Inert and hidden. Checked by
// tests/e2e/studio-first-run.spec.ts (no long task from Start to the first chart points).
import { startTransition, useEffect, useState } from 'react';
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartPoint } from './chart-groups';
import { CHART_PX, MetricLineChart } from './MetricLineChart';
import './run.css';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];
const DATA: ChartPoint[] = [1, 2, 3].map((x) => ({ x, ...Object.fromEntries(NAMES.map((n, i) => [n, x === 2 && i === 1 ? null : (x * (i + 1)) % 5 / 4])) }));
/** Partial charts (0-5), then the whole chart as the Run panel draws it with 1 to 6 lines (6 and up). */
const STAGES = 14;
const WIDTH = 320;

function Stage({ stage }: { stage: number }) {
  if (stage >= 6) {
    return <MetricLineChart data={stage % 2 ? DATA : DATA.slice(0, 2)} names={NAMES.slice(0, 1 + (stage % NAMES.length))} axis="step" width={WIDTH} fraction={stage === 7} />;
  }
  return (
    <LineChart width={WIDTH} height={CHART_PX} data={DATA}>
      {stage >= 1 && <Line dataKey="a" isAnimationActive={false} />}
      {stage >= 2 && <XAxis dataKey="x" type="number" />}
      {stage >= 3 && <YAxis width={56} />}
      {stage >= 4 && <CartesianGrid />}
      {stage >= 5 && <Tooltip />}
    </LineChart>
  );
}

type IdleApi = { requestIdleCallback?: (f: () => void, o?: { timeout: number }) => number; cancelIdleCallback?: (h: number) => void };

/** Calls `f` when the page is idle (or soon, where requestIdleCallback is missing); returns a cancel. */
function whenIdle(f: () => void): () => void {
  const w = window as IdleApi;
  if (w.requestIdleCallback && w.cancelIdleCallback) {
    const h = w.requestIdleCallback(f, { timeout: 3000 });
    return () => w.cancelIdleCallback!(h);
  }
  const h = setTimeout(f, 100);
  return () => clearTimeout(h);
}

export function ChartWarmup() {
  const [stage, setStage] = useState(-1);
  useEffect(() => {
    if (stage >= STAGES) return;
    return whenIdle(() => startTransition(() => setStage((s) => s + 1)));
  }, [stage]);
  if (stage < 0 || stage >= STAGES) return null;
  return (
    <div className="chart-warmup" aria-hidden="true" inert data-testid="chart-warmup">
      <Stage key={stage} stage={stage} />
    </div>
  );
}
