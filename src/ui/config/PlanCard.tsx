// The Config panel's memory plan card: the run's GPU bytes by category (planTraining via the worker's
// `plan-run`), the total, and whether its largest buffer fits this device's buffer limits, for the
// model Start would load, and (StepTimeSection) a measured time per step. Recomputed by ConfigPanel (debounced). Tested by tests/e2e/studio-config-plan.spec.ts.
import { formatBytes } from '../../gpu/errors';
import { useStudio } from '../../store/store';
import { StepTimeSection } from './StepTimeSection';

const mib = (n: number): string => `${(n / 2 ** 20).toFixed(2)} MiB`;

export function PlanCard() {
  const p = useStudio((s) => s.runPlan);
  return (
    <div className="card" data-testid="config-plan" aria-live="polite">
      <h2>Memory plan</h2>
      {p.status === 'idle' && <p className="small">Shown when the config is valid.</p>}
      {p.status === 'computing' && <p className="small">Planning the run on {p.model}...</p>}
      {p.status === 'error' && <p className="error" data-testid="plan-error">{p.model ? `${p.model}: ` : ''}{p.message}</p>}
      {p.status === 'ready' && (
        <>
          <p className={p.plan.problem ? 'error' : 'ok'} data-testid="plan-verdict">
            {p.plan.problem ? `${p.model}: ${p.plan.problem}` : `Fits: ${mib(p.plan.plan.total)} on the GPU for ${p.model}; largest buffer ${mib(p.plan.plan.largestBuffer.bytes)} of ${mib(Math.min(p.plan.limits.maxBufferSize, p.plan.limits.maxStorageBufferBindingSize))} allowed.`}
          </p>
          <p className="small">{p.plan.shape}. Peak of the engine's buffer pool, computed without loading weights; WebGPU reports no total memory budget, only per-buffer limits (maxBufferSize {mib(p.plan.limits.maxBufferSize)}, maxStorageBufferBindingSize {mib(p.plan.limits.maxStorageBufferBindingSize)}).</p>
          <p>Total (pool peak): <strong data-testid="plan-total">{mib(p.plan.plan.total)}</strong>, of which weights {mib(p.plan.plan.weightsBytes)}.</p>
          <details>
            <summary>Bytes by category ({p.plan.plan.rows.length})</summary>
          <table className="kv" data-testid="plan-rows"><thead><tr><th>category</th><th>bytes</th></tr></thead><tbody>
            {p.plan.plan.rows.map((r) => <tr key={r.name}><td title={r.note}>{r.name}</td><td className="nowrap">{formatBytes(r.bytes)}</td></tr>)}
          </tbody></table>
          </details>
          {!p.plan.problem && <StepTimeSection model={p.model} />}
        </>
      )}
    </div>
  );
}
