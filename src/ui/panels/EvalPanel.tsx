// Eval panel: score the base model and a run's adapter on the config's held-out split (or a dropped
// task file) with the CLI eval's figures (accuracy / pass@k, tool-call rate, malformed calls, per
// family), progress as it goes; an adapter's figures are saved in its run folder (eval.json) and
// listed again after a reload. Tested by tests/e2e/studio-eval.spec.ts.
import { useEffect, useId, type ChangeEvent, type FormEvent } from 'react';
import { useStudio } from '../../store/store';
import { EvalTable } from '../eval/EvalTable';

export function EvalPanel() {
  const models = useStudio((s) => s.models);
  const selected = useStudio((s) => s.selectedModel);
  const selectModel = useStudio((s) => s.selectModel);
  const runs = useStudio((s) => s.adapterRuns);
  const refresh = useStudio((s) => s.refreshAdapterRuns);
  const check = useStudio((s) => s.configCheck);
  const split = useStudio((s) => s.evalSplit);
  const tasks = useStudio((s) => s.evalTasks);
  const samples = useStudio((s) => s.evalSamples);
  const adapter = useStudio((s) => s.evalAdapter);
  const file = useStudio((s) => s.evalFile);
  const progress = useStudio((s) => s.evalProgress);
  const report = useStudio((s) => s.evalReport);
  const error = useStudio((s) => s.evalError);
  const setEval = useStudio((s) => s.setEval);
  const run = useStudio((s) => s.runEvaluation);
  const ids = { model: useId(), adapter: useId(), split: useId(), tasks: useId(), samples: useId(), file: useId() };
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!progress) void run();
  };
  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    setEval({ evalFile: f ? { name: f.name, text: await f.text() } : null });
  };
  const number = (v: string, min: number, max: number) => Math.min(max, Math.max(min, Math.round(Number(v) || min)));
  const saved = (runs ?? []).filter((r) => r.evaluation);

  return (
    <section className="panel" data-testid="eval-panel">
      <h1>Eval</h1>
      <form className="card wide" onSubmit={onSubmit}>
        <div className="play-setup">
          <div className="form-row">
            <label htmlFor={ids.model}>Model</label>
            <select id={ids.model} value={selected} onChange={(e) => selectModel(e.target.value)} data-testid="eval-model">
              {models.map((m) => <option key={m.name} value={m.name}>{m.name}</option>)}
            </select>
          </div>
          <div className="form-row span2">
            <label htmlFor={ids.adapter}>Adapter (a run kept in this browser)</label>
            <select id={ids.adapter} value={adapter} onChange={(e) => setEval({ evalAdapter: e.target.value })} data-testid="eval-adapter">
              <option value="">none: base only</option>
              {(runs ?? []).map((r) => <option key={r.runId} value={r.runId}>{r.runId}</option>)}
            </select>
          </div>
          <div className="form-row">
            <label htmlFor={ids.split}>Split</label>
            <select id={ids.split} value={split} disabled={Boolean(file)} onChange={(e) => setEval({ evalSplit: e.target.value as 'eval' | 'train' })} data-testid="eval-split">
              <option value="eval">held-out (eval)</option>
              <option value="train">train</option>
            </select>
          </div>
          <div className="form-row">
            <label htmlFor={ids.tasks}>Tasks (0 = all)</label>
            <input id={ids.tasks} className="narrow" type="number" min={0} max={100000} value={tasks}
              onChange={(e) => setEval({ evalTasks: number(e.target.value, 0, 100000) })} data-testid="eval-tasks" />
          </div>
          <div className="form-row">
            <label htmlFor={ids.samples}>Samples per task (pass@k)</label>
            <input id={ids.samples} className="narrow" type="number" min={1} max={64} value={samples}
              onChange={(e) => setEval({ evalSamples: number(e.target.value, 1, 64) })} data-testid="eval-samples" />
          </div>
          <div className="form-row">
            <label htmlFor={ids.file}>Task file instead (JSONL)</label>
            <input id={ids.file} type="file" accept=".jsonl,.json,.txt" onChange={(e) => void onFile(e)} data-testid="eval-file" />
          </div>
        </div>
        <p className="small">Environment and grading: the Config panel&apos;s config ({check.ok ? `${check.config.data.env}, eval temperature ${check.config.eval.temperature}` : 'invalid'}).
          {file ? ` Scoring ${file.name} instead of the split.` : ''} The same figures as <code>npm run cli -- eval</code>; with an adapter, the base and the adapter
          run on the same tasks and the figures are saved in the run&apos;s folder as eval.json.</p>
        <button type="submit" className="primary" disabled={Boolean(progress)} data-testid="eval-run">{progress ? 'Evaluating...' : 'Evaluate'}</button>
        {progress && (
          <p className="small" role="status" data-testid="eval-progress">
            <progress value={progress.done} max={progress.total} aria-label="Evaluation progress" /> {progress.stage}: {progress.done}/{progress.total} tasks
          </p>
        )}
        {error && <p className="error" role="alert" data-testid="eval-error">{error}</p>}
      </form>
      {report && (
        <div className="card wide" data-testid="eval-report">
          <EvalTable report={report} caption={`${report.dataset}: ${report.tasks} tasks x ${report.samples} sample(s), temperature ${report.temperature}${report.adapter ? `, adapter ${report.adapter.runId}` : ''}`} />
          {report.savedTo && <p className="small" data-testid="eval-saved">Saved to {report.savedTo}</p>}
        </div>
      )}
      <div className="card wide" data-testid="eval-saved-list">
        <h2>Saved evaluations (runs kept in this browser)</h2>
        {saved.length === 0 ? <p className="small">None yet: evaluate with an adapter to save one in its run.</p> : (
          <ul className="saved-evals">
            {saved.map((r) => {
              const e = r.evaluation!;
              const acc = (m: Record<string, number> | undefined) => (m?.['eval/accuracy'] === undefined ? '-' : `${(m['eval/accuracy'] * 100).toFixed(1)} %`);
              return (
                <li key={r.runId} data-testid="eval-saved-run">
                  <details>
                    <summary><code>{r.runId}</code>: accuracy base {acc(e.base)}, adapter {acc(e.adapter?.metrics)} on {e.tasks} tasks of {e.dataset} ({new Date(e.at).toLocaleString()})</summary>
                    <EvalTable report={e} caption={`${r.runId}: ${e.dataset}`} />
                  </details>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </section>
  );
}
