// The plan card's measured step time: a "Measure step time" button (the model is loaded only on this
// click), the piece being timed while the worker measures, then "≈ N s per step" with its parts and the lengths timed (typical or the upper bound), or
// the error naming its cause. Shown only for the config text and model it was measured for.
// Tested by tests/e2e/studio-config-plan.spec.ts.
import { useStudio } from '../../store/store';
import type { StepTime } from '../../workers/engine/step-time';

const secs = (ms: number): string => (ms >= 10_000 ? (ms / 1000).toFixed(0) : (ms / 1000).toFixed(1));

/** "decode X ms/token x up to M tokens, train Y ms, ..." */
function summary(r: StepTime): string {
  return r.parts.map((p) => (p.name === 'decode' && r.decodeMsPerToken !== null
    ? `decode ${r.decodeMsPerToken.toFixed(1)} ms/token x up to ${Math.round(p.ms / r.decodeMsPerToken)} tokens`
    : `${p.name} ${p.ms.toFixed(0)} ms`)).join(', ');
}

export function StepTimeSection({ model }: { model: string }) {
  const st = useStudio((s) => s.stepTime);
  const configText = useStudio((s) => s.configText);
  const measure = useStudio((s) => s.measureStepTime);
  const current = st.status !== 'idle' && st.key.configText === configText && st.key.model === model ? st : null;
  const busy = current?.status === 'measuring';
  return (
    <div data-testid="step-time">
      <h3 style={{ marginTop: 12 }}>Time per step</h3>
      <button type="button" onClick={() => void measure()} disabled={busy} data-testid="step-time-button">
        {busy ? 'Measuring...' : 'Measure step time'}
      </button>
      {!current && <p className="small">Loads {model} and times one step of this config on this device (a few seconds to minutes).</p>}
      {current?.status === 'measuring' && <p className="small" role="status">Measuring on {model}: {current.stage}...</p>}
      {current?.status === 'error' && <p className="error" data-testid="step-time-error">Measuring the step failed: {current.message}</p>}
      {current?.status === 'ready' && (
        <>
          <p data-testid="step-time-total">
            <strong>≈ {secs(current.result.totalMs)} s per step</strong> (measured on this device: {summary(current.result)}).
          </p>
          <p className="small" data-testid="step-time-lengths">Timed {current.result.lengths}.</p>
          <p className="small">
            Not included: {current.result.excludes}. {current.result.upTo ? `An upper bound: every episode is timed ${current.result.lengths.startsWith('at ') ? 'sampling its most tokens (max_new_tokens x max_turns)' : 'at its longest (rollout.max_tokens, max_new_tokens x max_turns sampled)'}; shorter episodes take less. ` : ''}
            Shape: {current.result.shape}.
          </p>
          <details>
            <summary>Parts ({current.result.parts.length})</summary>
            <table className="kv" data-testid="step-time-parts"><thead><tr><th>part</th><th>ms</th><th>what was timed</th></tr></thead><tbody>
              {current.result.parts.map((p) => <tr key={p.name}><td>{p.name}</td><td>{p.ms.toFixed(0)}</td><td>{p.what} ({p.repeats} timed)</td></tr>)}
            </tbody></table>
          </details>
        </>
      )}
    </div>
  );
}
