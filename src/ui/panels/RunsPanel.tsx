// Runs panel: every run stored in this browser (survives reloads) with its state, steps, trainer
// and model; Resume for a cut-off, cancelled or failed run (its progress shows in the table; after a
// lost GPU device or a crashed engine worker, Restart engine or Resume itself starts a new one);
// compare several runs on one metric; import a CLI run folder (folder, files or zip) and export
// one as a zip. State in src/store/runs-slice.ts. Tested by tests/e2e/studio-runs.spec.ts.
import { useEffect } from 'react';
import { useStudio } from '../../store/store';
import { CompareChart } from '../runs/CompareChart';
import { ImportRun } from '../runs/ImportRun';
import { RunsTable } from '../runs/RunsTable';
import { EngineRestart } from '../run/EngineRestart';

export function RunsPanel() {
  const runs = useStudio((s) => s.storedRuns);
  const loaded = useStudio((s) => s.runsLoaded);
  const note = useStudio((s) => s.runsNote);
  const error = useStudio((s) => (s.runsErrorAt === null ? s.runsError : null));
  const refresh = useStudio((s) => s.refreshRuns);
  const modelLoad = useStudio((s) => s.modelLoad);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  return (
    <section className="panel" data-testid="runs-panel">
      <h1>Runs</h1>
      <div className="inline-form">
        <button type="button" onClick={() => void refresh()}>Refresh</button>
        <span role="status" className="small" data-testid="runs-status">
          {modelLoad ? `Loading ${modelLoad.name}: ${modelLoad.stage} (${modelLoad.done}/${modelLoad.total})` : note ?? (loaded ? `${runs.length} run(s) stored` : 'Reading the stored runs...')}
        </span>
      </div>
      {error && <p className="error" role="alert" data-testid="runs-error">{error}</p>}
      <EngineRestart />
      <div className="card wide">
        {loaded && !runs.length ? <p>No run is stored in this browser yet: start one in the Run panel, or import a folder the CLI wrote.</p> : <RunsTable runs={runs} />}
      </div>
      <div className="card wide">
        <h2>Compare</h2>
        <CompareChart />
      </div>
      <div className="cards">
        <ImportRun />
      </div>
    </section>
  );
}
