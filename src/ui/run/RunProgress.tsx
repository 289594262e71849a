// The shown run's progress bar: steps done of the total, elapsed time and the ETA from the mean
// step so far (the loop's progress events). Exercised by tests/e2e/studio-run.spec.ts.
import type { RunView } from '../../store/run-view';

/** 75 s -> "1 min 15 s". */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function RunProgress({ run }: { run: RunView }) {
  const total = Math.max(1, run.total);
  return (
    <div className="card run-progress">
      <h2 id="run-progress-title">Progress</h2>
      <progress max={total} value={Math.min(run.step, total)} aria-labelledby="run-progress-title" data-testid="run-progress" />
      <p className="small" data-testid="run-progress-text">
        Step {run.step} of {run.total || '…'}
        {run.elapsedMs > 0 && `, ${duration(run.elapsedMs)} elapsed`}
        {run.etaMs !== null && run.phase === 'running' && `, about ${duration(run.etaMs)} left`}
      </p>
    </div>
  );
}
