// Beside Start (Config panel): what Start is doing now, with the model upload's progress bar while
// the weights go to the GPU. Reads the run and models slices; exercised by tests/e2e/studio-run.spec.ts.
import { useStudio } from '../../store/store';

const STAGE = { model: 'Loading the model', data: 'Reading the task data', run: 'Starting the run in the engine worker' } as const;

export function StartProgress() {
  const starting = useStudio((s) => s.runStarting);
  const load = useStudio((s) => s.modelLoad);
  if (!starting) return null;
  return (
    <div role="status" data-testid="start-progress" className="start-progress">
      <p className="note">{STAGE[starting]}{starting === 'model' && load ? ` ${load.name}: ${load.stage}` : ''}…</p>
      {starting === 'model' && load && (
        <progress max={Math.max(1, load.total)} value={load.done} aria-label={`Uploading ${load.name} to the GPU`} data-testid="model-progress" />
      )}
    </div>
  );
}
