// Run panel: the run started from the Config panel (or handed over by the Runs panel through
// attachRun): status and Pause / Resume / Stop / Checkpoint now, progress with ETA, live charts of
// the CLI's metrics, warnings, and the live rollouts with one episode's detail. Everything comes from
// the run slice (src/store/run-slice.ts). Tested by tests/e2e/studio-run.spec.ts.
import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { useStudio } from '../../store/store';
import { MetricCharts } from '../run/MetricCharts';
import { RolloutDetail } from '../run/RolloutDetail';
import { RolloutTable } from '../run/RolloutTable';
import { rolloutKey } from '../run/rollout-rows';
import { RunControls } from '../run/RunControls';
import { RunProgress } from '../run/RunProgress';
import { WarningList } from '../run/WarningList';
import '../run/run.css';

export function RunPanel() {
  // A step's update renders as a transition (in slices, yielding to input); the charts stagger theirs further.
  const run = useDeferredValue(useStudio((s) => (s.shownRun ? s.runs[s.shownRun] : undefined)));
  const setPanel = useStudio((s) => s.setPanel);
  const [open, setOpen] = useState<string | null>(null);
  const close = useCallback(() => setOpen(null), []);
  const record = useMemo(() => (open && run ? run.rollouts.find((r) => rolloutKey(r) === open) ?? null : null), [open, run]);

  if (!run) {
    return (
      <section className="panel" data-testid="run-panel">
        <h1>Run</h1>
        <div className="card">
          <p data-testid="run-none">No run on this page yet. Pick or edit a config in the Config panel and press Start; a run resumed in the Runs panel shows here too.</p>
          <button type="button" className="primary" onClick={() => setPanel('config')}>Open the Config panel</button>
        </div>
      </section>
    );
  }
  return (
    <section className="panel" data-testid="run-panel">
      <h1>Run</h1>
      <div className="cards">
        <RunControls run={run} />
        <RunProgress run={run} />
        <WarningList run={run} />
      </div>
      <MetricCharts rows={run.rows} seconds={run.rowSeconds} />
      <RolloutTable records={run.rollouts} total={run.rolloutCount} selected={open} onOpen={setOpen} />
      {record && <RolloutDetail record={record} modelId={run.modelId} onClose={close} />}
    </section>
  );
}
