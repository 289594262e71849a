// The shown run's status line and its buttons: Pause / Resume / Stop / Checkpoint now (each sent to
// the engine worker between steps; a pause holds after the current step), the last checkpoint, and
// the run's error with what to do (and Restart engine when the worker or its device is gone).
// Exercised by tests/e2e/studio-run.spec.ts and studio-run-failure.spec.ts.
import { useStudio } from '../../store/store';
import { failureText, isLive, type RunView } from '../../store/run-view';
import { EngineRestart } from './EngineRestart';

function phaseText(v: RunView): string {
  switch (v.phase) {
    case 'starting': return 'Starting (first step being prepared)';
    case 'running': return 'Running';
    case 'paused': return v.holding ? 'Paused' : 'Pausing after the current step';
    case 'stopping': return 'Stopping after the current step (a checkpoint is written)';
    case 'finished': return `Finished${v.exportPath ? `: ${v.exportPath}/ written in the run folder` : ''}`;
    case 'failed': return 'Failed';
    case 'cancelled': return 'Stopped';
  }
}

export function RunControls({ run }: { run: RunView }) {
  const command = useStudio((s) => s.runCommand);
  const error = useStudio((s) => s.runCommandError);
  const live = isLive(run.phase);
  const paused = run.phase === 'paused';
  return (
    <div className="card run-controls">
      <h2>Run {run.runId}</h2>
      <p data-testid="run-status" role="status" className={`run-phase phase-${run.phase}`}>{phaseText(run)}</p>
      <div className="button-row">
        {paused
          ? <button type="button" data-testid="run-resume" onClick={() => void command('resume')}>Resume</button>
          : <button type="button" data-testid="run-pause" disabled={!live || run.phase === 'stopping'} onClick={() => void command('pause')}>Pause</button>}
        <button type="button" data-testid="run-stop" disabled={!live || run.phase === 'stopping'} onClick={() => void command('stop')}>Stop</button>
        <button type="button" data-testid="run-checkpoint" disabled={!live} onClick={() => void command('checkpoint')}>Checkpoint now</button>
      </div>
      <dl className="run-facts">
        <dt>Trainer</dt><dd>{run.trainer ?? '…'}</dd>
        <dt>Last checkpoint</dt><dd data-testid="run-checkpoint-path">{run.lastCheckpoint ?? 'none yet'}</dd>
        <dt>Run folder</dt><dd>OPFS runs/{run.runId}/ (the CLI's layout)</dd>
      </dl>
      {error && <p className="error" role="alert" data-testid="run-command-error">{error}</p>}
      {run.error && <p className="error" role="alert" data-testid="run-error">{failureText(run)}</p>}
      <EngineRestart />
    </div>
  );
}
