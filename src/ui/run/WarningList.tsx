// The shown run's warnings in step order: things that do not stop the run but explain a curve,
// e.g. a step with no update because every group had zero reward variance. Exercised by
// tests/e2e/studio-run.spec.ts.
import type { RunView } from '../../store/run-view';

export function WarningList({ run }: { run: RunView }) {
  return (
    <div className="card run-warnings">
      <h2>Warnings ({run.warnings.length})</h2>
      {run.warnings.length === 0
        ? <p className="small">None so far. A step that updates nothing says why here.</p>
        : (
          // Scrolls when long: focusable so the keyboard can scroll it (axe scrollable-region-focusable).
          <ul className="warning-list" data-testid="run-warnings" tabIndex={0} aria-label={`Warnings of run ${run.runId}`}>
            {run.warnings.map((w, i) => <li key={i}><strong>step {w.step}</strong>: {w.message}</li>)}
          </ul>
        )}
    </div>
  );
}
