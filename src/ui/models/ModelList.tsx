// The Models panel's list: every shipped and user model as a radio choice (the selection is the
// store's `selectedModel`, used by the other panels), with its one-line summary; a model the engine
// cannot use is shown with its problems and cannot be selected. Exercised by tests/e2e/studio-models.spec.ts.
import { useStudio } from '../../store/store';
import { formatBytes } from '../../gpu/errors';
import { formatCount } from './format';
import { ProblemsList } from './ProblemsList';

export function ModelList() {
  const models = useStudio((s) => s.models);
  const checks = useStudio((s) => s.modelChecks);
  const selected = useStudio((s) => s.selectedModel);
  const select = useStudio((s) => s.selectModel);

  return (
    <fieldset className="card model-list" data-testid="model-list">
      <legend>Model used by the Config, Run, Playground and Eval panels</legend>
      {models.map((m) => {
        const c = checks[m.name];
        const r = c?.report;
        const unusable = !!c && (c.error !== undefined || !!r?.problems.length);
        return (
          <div key={m.name} className={m.name === selected ? 'model-row selected' : 'model-row'} data-testid={`model-row-${m.name}`}
            data-usable={c ? String(!unusable) : 'unknown'}>
            <label>
              <input type="radio" name="studio-model" value={m.name} checked={m.name === selected} disabled={unusable}
                onChange={() => select(m.name)} data-testid={`model-radio-${m.name}`} />{' '}
              <strong>{m.name}</strong> <span className={m.shipped ? 'tag off' : 'tag on'}>{m.shipped ? 'shipped' : 'yours'}</span>
            </label>
            <p className="small">{m.about}</p>
            {!c && <p className="small" role="status">Inspecting...</p>}
            {r && !unusable && r.config && (
              <p className="small">{r.hfArchitecture}, {formatCount(r.params ?? 0)} parameters, {r.config.numLayers} layers,
                {' '}{formatBytes(r.weightFileBytes ?? 0)} of weights ({r.dtypes.join(', ')})</p>
            )}
            {c?.error !== undefined && <p className="error" role="alert">{c.error}</p>}
            {r && r.problems.length > 0 && <><p className="error">Cannot be used:</p><ProblemsList problems={r.problems} /></>}
          </div>
        );
      })}
    </fieldset>
  );
}
