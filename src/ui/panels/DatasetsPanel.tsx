// Datasets panel: drop a JSONL file, choose one from disk, or pick a shipped one; every line is
// validated in a worker with the CLI's loader (errors by line and field), the schema detected,
// the first lines previewed with their tokens under the selected model and the config (a task as a
// run's first input, tool list included; an SFT line with the SFT loader's mask and length checks),
// and a seeded train/eval split set. Tested by tests/e2e/studio-datasets.spec.ts and tests/e2e/studio-drop-flow.spec.ts.
import { useEffect, useId, useState, type DragEvent } from 'react';
import { useStudio } from '../../store/store';
import { SHIPPED_DATASETS } from '../../data/shipped';
import { formatBytes } from '../../gpu/errors';
import { shippedUrl } from '../datasets/shipped-urls';
import { ProblemList } from '../datasets/ProblemList';
import { TaskPreviewCard } from '../datasets/TaskPreviewCard';
import { PreviewToolsLine, SftCheckCard, TokenLegend } from '../datasets/PreviewTokenInfo';

const SCHEMA_LABEL: Record<string, string> = {
  math: 'task file: math (GSM8K-style word problems)',
  code_exec: 'task file: code_exec (MBPP-style problems with asserts)',
  search_qa: 'task file: search_qa (questions with gold answers)',
  agent: 'task file: agent (calculator and lookup tasks for the python and search tools)',
  sft: 'SFT chat (messages / text / ids per line)',
  unknown: 'not recognised',
};

export function DatasetsPanel() {
  const status = useStudio((s) => s.datasetStatus);
  const report = useStudio((s) => s.datasetReport);
  const error = useStudio((s) => s.datasetError);
  const split = useStudio((s) => s.datasetSplit);
  const openDataset = useStudio((s) => s.openDataset);
  const setSplit = useStudio((s) => s.setSplit);
  const selectedModel = useStudio((s) => s.selectedModel);
  const tokens = useStudio((s) => s.datasetTokens);
  const loadTokens = useStudio((s) => s.loadDatasetTokens);
  const configText = useStudio((s) => s.configText);
  const template = useStudio((s) => (s.configCheck.ok ? s.configCheck.config.model.template : null));
  const ready = tokens?.status === 'ready' && report && tokens.fileName === report.fileName ? tokens : null;
  const [dragging, setDragging] = useState(false);
  const [shipped, setShipped] = useState('');
  const [shippedError, setShippedError] = useState<string | null>(null);
  const ids = { file: useId(), shipped: useId(), frac: useId(), seed: useId() };

  useEffect(() => {
    if (report) void loadTokens();
  }, [report, selectedModel, configText, loadTokens]);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const f = e.dataTransfer.files[0];
    if (f) void openDataset({ blob: f }, f.name);
  };
  const pickShipped = async (file: string) => {
    setShipped(file);
    setShippedError(null);
    if (!file) return;
    const url = shippedUrl(file);
    if (url) await openDataset({ url }, file);
    else setShippedError(`datasets/${file}: not part of this build; rebuild the studio (npm run build)`);
  };

  return (
    <section className="panel" data-testid="datasets-panel">
      <h1>Datasets</h1>
      <div className="cards">
        <div className={dragging ? 'card dropzone dragging' : 'card dropzone'} data-testid="dropzone"
          onDragOver={(e) => { e.preventDefault(); setDragging(true); }} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
          <h2>Your JSONL file</h2>
          <p className="small">Drop a .jsonl file here, or choose one. One JSON object per line: a task of an environment
            (math, code_exec, search_qa, agent) or an SFT chat example.</p>
          <label htmlFor={ids.file}>Choose a file</label>{' '}
          <input id={ids.file} type="file" accept=".jsonl,.json,.txt,application/jsonl" data-testid="dataset-file"
            onChange={(e) => { const f = e.target.files?.[0]; if (f) void openDataset({ blob: f }, f.name); }} />
        </div>
        <div className="card">
          <h2>Shipped datasets</h2>
          <label htmlFor={ids.shipped}>Pick one</label>{' '}
          <select id={ids.shipped} value={shipped} onChange={(e) => void pickShipped(e.target.value)} data-testid="dataset-shipped">
            <option value="">(none)</option>
            {SHIPPED_DATASETS.map((d) => (
              <option key={d.file} value={d.file}>{d.file}: {d.env}, {d.split}, {d.source}, {d.license}</option>
            ))}
          </select>
          {shippedError && <p className="error" role="alert">{shippedError}</p>}
        </div>
      </div>

      {status === 'reading' && <p role="status">Reading and validating every line...</p>}
      {error && <p className="error" role="alert" data-testid="dataset-error">{error}</p>}

      {report && status !== 'reading' && (
        <>
          <div className="cards">
            <div className="card" data-testid="dataset-summary">
              <h2>{report.fileName}</h2>
              <dl>
                <dt>Size</dt><dd>{formatBytes(report.bytes)}</dd>
                <dt>Schema</dt><dd data-testid="dataset-schema" data-schema={report.schema}>{SCHEMA_LABEL[report.schema]}</dd>
                <dt>Why</dt><dd className="small">{report.schemaReason}</dd>
                <dt>Lines</dt><dd>{report.total.toLocaleString()}</dd>
                {report.schema !== 'sft' && report.schema !== 'unknown' && <>
                  <dt>Good</dt><dd data-testid="dataset-good">{report.good.toLocaleString()}</dd>
                  <dt>Skipped</dt><dd data-testid="dataset-skipped" className={report.skipped.length ? 'error' : ''}>{report.skipped.length.toLocaleString()}</dd>
                  <dt>Warnings</dt><dd>{report.warnings.length.toLocaleString()}</dd>
                </>}
                <dt>Read in</dt><dd>{report.parseMs.toFixed(0)} ms (in a worker)</dd>
              </dl>
              {report.notes.map((n) => <p key={n} className="small note">{n}</p>)}
            </div>
            {split && report.good > 1 && (
              <div className="card" data-testid="dataset-split">
                <h2>Train / eval split</h2>
                <div className="form-row">
                  <label htmlFor={ids.frac}>Eval share: {Math.round(split.evalFraction * 100)} %</label>
                  <input id={ids.frac} type="range" min={0.05} max={0.5} step={0.05} value={split.evalFraction}
                    onChange={(e) => setSplit(Number(e.target.value), split.seed)} />
                </div>
                <div className="form-row">
                  <label htmlFor={ids.seed}>Seed</label>
                  <input id={ids.seed} type="number" min={0} value={split.seed} className="narrow"
                    onChange={(e) => setSplit(split.evalFraction, Math.max(0, Math.floor(Number(e.target.value) || 0)))} />
                </div>
                <p data-testid="dataset-split-counts">{split.train.toLocaleString()} train, {split.eval.toLocaleString()} eval tasks
                  (seeded shuffle, the same for the same seed).</p>
              </div>
            )}
          </div>

          {report.skipped.length > 0 && (
            <div className="card wide" data-testid="dataset-problems">
              <h2>Skipped lines ({report.skipped.length.toLocaleString()})</h2>
              <p className="small">Each line names the field at fault and what it must be; fix the line in the file and drop it again.</p>
              <ProblemList fileName={report.fileName} problems={report.skipped} label="Skipped lines" />
            </div>
          )}
          {report.warnings.length > 0 && (
            <details className="card wide">
              <summary>Warnings ({report.warnings.length.toLocaleString()}): fields the schema does not know (ignored)</summary>
              <ProblemList fileName={report.fileName} problems={report.warnings} label="Warnings" />
            </details>
          )}
          {report.previews.length > 0 && (
            <div className="card wide" data-testid="dataset-previews">
              <h2>First {report.schema === 'sft' ? 'lines' : 'tasks'}, as the model sees them</h2>
              <p className="small">{report.schema === 'sft'
                ? <>Each line rendered with the selected model&apos;s ({selectedModel}) chat template and tokenized by the SFT loader, as trainer: sft reads it.</>
                : <>The first input a run of the Config panel&apos;s config feeds the selected model ({selectedModel}): the environment&apos;s
                  system prompt and tool list, the chat template model.template picks, up to the assistant turn the model writes.</>}</p>
              {tokens?.status === 'loading' && <p className="small" role="status">Tokenizing with {tokens.model}...</p>}
              {tokens?.status === 'error' && <p className="error" role="alert" data-testid="preview-tokens-error">{tokens.model}: {tokens.message}</p>}
              {ready && <>
                <TokenLegend sft={report.schema === 'sft'} />
                <PreviewToolsLine preview={ready.preview} template={template} />
                {ready.preview.notes.map((n) => <p key={n} className="small note">{n}</p>)}
              </>}
              <div className="previews">{report.previews.map((p) => (
                <TaskPreviewCard key={p.line} p={p} model={tokens?.model} tokens={ready?.preview.byLine[p.line]} />
              ))}</div>
            </div>
          )}
          {ready && <SftCheckCard state={ready.check} />}
        </>
      )}
    </section>
  );
}
