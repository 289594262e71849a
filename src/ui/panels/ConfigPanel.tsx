// Config panel: presets from configs/ with their reasons, a form for the common fields, the YAML
// editor validated as you type with the CLI's messages (did-you-mean), a diff against the preset,
// and Start (loads the model with its upload progress, starts the run, shows the Run panel; errors
// beside it), disabled with the reason while the config is invalid or its memory plan does not fit;
// the memory plan card (PlanCard). Tested by
// tests/e2e/studio-config.spec.ts.
import { useEffect, useId, useMemo } from 'react';
import { useStudio } from '../../store/store';
import { CONFIG_FILE } from '../../store/config-slice';
import { ConfigForm, configDiff } from '../config/ConfigForm';
import { PlanCard } from '../config/PlanCard';
import { PRESETS } from '../config/presets';
import { checkConfigText } from '../config/validate';
import { YamlEditor } from '../config/YamlEditor';
import { StartProgress } from '../run/StartProgress';

export function ConfigPanel() {
  const text = useStudio((s) => s.configText);
  const presetFile = useStudio((s) => s.configPreset);
  const check = useStudio((s) => s.configCheck);
  const lastValid = useStudio((s) => s.configLastValid);
  const starting = useStudio((s) => s.runStarting);
  const startError = useStudio((s) => s.runStartError);
  const setText = useStudio((s) => s.setConfigText);
  const loadPreset = useStudio((s) => s.loadPreset);
  const setField = useStudio((s) => s.setConfigField);
  const requestStart = useStudio((s) => s.requestStart);
  const plan = useStudio((s) => s.runPlan);
  const refreshPlan = useStudio((s) => s.refreshPlan);
  const selectedModel = useStudio((s) => s.selectedModel);
  const modelCount = useStudio((s) => s.models.length);
  const presetId = useId();
  // The memory plan follows the config and the model, 400 ms after the last change.
  useEffect(() => {
    const t = setTimeout(() => void refreshPlan(), 400);
    return () => clearTimeout(t);
  }, [text, selectedModel, modelCount, refreshPlan]);
  // A plan that does not fit, or a config the planner refuses (a sequence too long for the model), blocks Start.
  const tooBig = plan.status === 'ready' && plan.plan.problem !== null ? `${plan.model}: ${plan.plan.problem}`
    : plan.status === 'error' ? `${plan.model ? `${plan.model}: ` : ''}${plan.message}` : null;
  const preset = PRESETS.find((p) => p.file === presetFile);
  const diff = useMemo(() => {
    if (!preset || !check.ok) return null;
    const base = checkConfigText(preset.text, preset.file);
    return base.ok ? configDiff(base.config, check.config) : null;
  }, [preset, check]);

  return (
    <section className="panel" data-testid="config-panel">
      <h1>Config</h1>
      <div className="cards">
        <div className="card preset">
          <h2>Preset</h2>
          <label htmlFor={presetId}>Start from</label>{' '}
          <select id={presetId} value={presetFile} onChange={(e) => loadPreset(e.target.value)} data-testid="config-preset">
            {PRESETS.map((p) => <option key={p.file} value={p.file}>configs/{p.file}</option>)}
          </select>
          {preset && <p className="small">{preset.summary}</p>}
          {preset && preset.reasons.length > 0 && (
            <details>
              <summary>Why each field of this preset is set ({preset.reasons.length})</summary>
              <table className="kv reasons"><thead><tr><th>field</th><th>value</th><th>reason</th></tr></thead><tbody>
                {preset.reasons.map((r) => <tr key={r.path}><td>{r.path}</td><td>{r.value}</td><td>{r.reason || '(no comment)'}</td></tr>)}
              </tbody></table>
            </details>
          )}
        </div>
        <div className="card">
          <h2>Start</h2>
          <button type="button" className="primary" data-testid="config-start" disabled={!check.ok || tooBig !== null || starting !== null}
            aria-describedby="start-reason" onClick={requestStart}>Start</button>
          <p id="start-reason" className={check.ok && !tooBig ? 'small' : 'error'} data-testid="start-reason">
            {!check.ok ? `Start is disabled: ${check.problem.message}` : tooBig ? `Start is disabled: ${tooBig}` : 'Ready to start.'}
          </p>
          <StartProgress />
          {startError && <p className="error" role="alert" data-testid="start-error">{startError}</p>}
        </div>
      </div>
      <div className="config-grid">
        <ConfigForm config={lastValid} valid={check.ok} onSet={setField} />
        <div className="card">
          <h2 id="yaml-title">YAML ({CONFIG_FILE})</h2>
          <p className="small">Every field, validated as you type by the same code and messages as <code>npm run cli -- train --config</code>.</p>
          <YamlEditor text={text} file={CONFIG_FILE} label="Config YAML" onChange={setText} />
          <div aria-live="polite">
            {check.ok
              ? <p className="ok" data-testid="config-valid">Valid: {check.config.trainer} on {check.config.data.env}, {check.config.train.steps} steps.</p>
              : <p className="error" data-testid="config-problem">{check.problem.message}</p>}
          </div>
        </div>
      </div>
      <div className="cards">
        <PlanCard />
        <div className="card">
          <h2>Changes from configs/{presetFile}</h2>
          {diff === null ? <p className="small">Shown when the config is valid.</p>
            : diff.length === 0 ? <p className="small" data-testid="config-diff">None: the preset as it ships.</p>
              : (
                <table className="kv" data-testid="config-diff"><thead><tr><th>field</th><th>preset</th><th>now</th></tr></thead><tbody>
                  {diff.map((d) => <tr key={d.path}><td>{d.path}</td><td>{d.from}</td><td>{d.to}</td></tr>)}
                </tbody></table>
              )}
        </div>
      </div>
    </section>
  );
}
