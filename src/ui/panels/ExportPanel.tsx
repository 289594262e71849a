// Export panel: pick a run kept in the browser (OPFS runs/) that holds an adapter/ (or model/ for a
// full fine-tune) and download it as a zip: the PEFT folder exactly as the engine wrote it
// (adapter_config.json + adapter_model.safetensors, for PeftModel.from_pretrained), with the run's
// config.yaml and metrics.jsonl inside (run/) or on their own. The zip is built in the engine
// worker. Tested by tests/e2e/studio-export.spec.ts.
import { useEffect, useId, useState } from 'react';
import { useStudio } from '../../store/store';
import type { RunExport } from '../../workers/engine/run-scan';
import { saveFile } from '../export/save-file';

export function ExportPanel() {
  const runs = useStudio((s) => s.runFolders);
  const runsError = useStudio((s) => s.runFoldersError);
  const scan = useStudio((s) => s.scanRunFolders);
  const exportRun = useStudio((s) => s.exportRun);
  const exporting = useStudio((s) => s.exporting);
  const error = useStudio((s) => s.exportError);
  const [runId, setRunId] = useState('');
  const [withLogs, setWithLogs] = useState(true);
  const [last, setLast] = useState<RunExport | null>(null);
  const ids = { run: useId(), logs: useId() };
  useEffect(() => {
    void scan();
  }, [scan]);

  const ready = (runs ?? []).filter((r) => r.exported);
  const waiting = (runs ?? []).filter((r) => !r.exported);
  const run = ready.find((r) => r.runId === runId) ?? ready[0];
  const download = async (parts: RunExport['parts']) => {
    if (!run) return;
    const x = await exportRun(run.runId, parts);
    if (!x) return;
    saveFile(x.fileName, x.bytes);
    setLast({ ...x, bytes: new Uint8Array(0) });
  };

  return (
    <section className="panel" data-testid="export-panel">
      <h1>Export</h1>
      {runsError && <p className="error" role="alert">{runsError}</p>}
      {runs === null && !runsError && <p role="status">Reading the runs kept in this browser...</p>}
      {runs !== null && !ready.length && (
        <div className="card" data-testid="export-empty">
          <h2>No run to export yet</h2>
          <p>A run lands here once it has written its adapter/ (LoRA) or model/ (full fine-tune): at its end, or when it is stopped.
            {waiting.length > 0 && ` ${waiting.length} run(s) kept in this browser have not exported yet.`}</p>
          <button type="button" onClick={() => void scan()}>Look again</button>
        </div>
      )}
      {run && (
        <div className="cards">
          <div className="card">
            <h2>Run</h2>
            <div className="field">
              <label htmlFor={ids.run}>Run with an export</label>
              <select id={ids.run} value={run.runId} onChange={(e) => setRunId(e.target.value)} data-testid="export-run">
                {/* The id alone (the details are in the summary below and the option's title): long labels clipped the select. */}
                {ready.map((r) => <option key={r.runId} value={r.runId} title={`${r.trainer}, ${r.modelName || '?'}, ${r.steps} steps`}>{r.runId}</option>)}
              </select>
            </div>
            <dl data-testid="export-summary">
              <dt>Model</dt><dd>{run.modelPath || '?'}</dd>
              <dt>Trainer</dt><dd>{run.trainer}</dd>
              <dt>Steps logged</dt><dd>{run.steps}</dd>
              <dt>Export</dt><dd>{run.exported === 'adapter' ? 'adapter/ (PEFT LoRA)' : 'model/ (full Hugging Face model)'}</dd>
              {run.adapter && <><dt>LoRA</dt><dd>r={run.adapter.r}, lora_alpha={run.adapter.alpha}, {run.adapter.targets.join(' ')}</dd></>}
            </dl>
            {run.problem && <p className="error">{run.problem}</p>}
            <button type="button" onClick={() => void scan()}>Refresh the list</button>
          </div>
          <div className="card">
            <h2>Download</h2>
            <p className="small">{run.exported === 'adapter'
              ? 'A zip of the PEFT folder as the engine wrote it: unzip it and load it with PeftModel.from_pretrained(base, folder).'
              : 'A zip of the Hugging Face model folder: unzip it and load it with AutoModelForCausalLM.from_pretrained(folder).'}</p>
            <p>
              <input type="checkbox" id={ids.logs} checked={withLogs} onChange={(e) => setWithLogs(e.target.checked)} data-testid="export-with-logs" />{' '}
              <label htmlFor={ids.logs}>Include config.yaml and metrics.jsonl (in run/)</label>
            </p>
            <div className="button-row">
              <button type="button" className="primary" disabled={exporting !== null} onClick={() => void download(withLogs ? 'both' : 'weights')} data-testid="export-download">
                {exporting ? 'Zipping...' : `Download the ${run.exported === 'adapter' ? 'adapter' : 'model'}`}
              </button>
              <button type="button" disabled={exporting !== null} onClick={() => void download('logs')} data-testid="export-logs">Download config + metrics only</button>
            </div>
            {error && <p className="error" role="alert" data-testid="export-error">{error}</p>}
            {last && (
              <div aria-live="polite" data-testid="export-last">
                <p className="ok">Saved {last.fileName}:</p>
                <ul className="files">{last.entries.map((e) => <li key={e}><code>{e}</code></li>)}</ul>
              </div>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
