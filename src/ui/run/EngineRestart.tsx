// "Restart engine": shown in the Run and Runs panels while the engine worker is down (it crashed or
// its GPU device was lost). The button starts a new worker and device (store engine-slice.ts);
// models load again on demand and Resume in the Runs panel continues a failed run from its
// checkpoint, no page reload. Exercised by tests/e2e/studio-run-failure.spec.ts.
import { useStudio } from '../../store/store';

export function EngineRestart() {
  const down = useStudio((s) => s.engineDown);
  const restarting = useStudio((s) => s.engineRestarting);
  const restarted = useStudio((s) => s.engineRestarted);
  const restart = useStudio((s) => s.restartEngine);
  if (!down && !restarted) return null;
  if (!down) return <p className="small" role="status" data-testid="engine-restarted">Engine restarted: a new worker and GPU device; models load again when used.</p>;
  return (
    <div className="engine-down" data-testid="engine-down">
      <p className="small">
        The engine (its worker and GPU device) is down. Restart engine starts a new one without reloading
        the page; models load again when used, and Resume in the Runs panel continues a failed run from its
        last checkpoint (Resume and Start also restart it themselves).
      </p>
      <div className="button-row">
        <button type="button" data-testid="engine-restart" disabled={restarting} onClick={() => void restart()}>
          {restarting ? 'Restarting engine...' : 'Restart engine'}
        </button>
      </div>
    </div>
  );
}
