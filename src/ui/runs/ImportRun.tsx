// The Runs panel's import card: a run folder made by the CLI, picked as a folder, picked as a zip,
// or dropped (folder, files or zip); it is written to OPFS runs/<folder name>/ by the engine worker.
// Rendered by src/ui/panels/RunsPanel.tsx; exercised by tests/e2e/studio-runs.spec.ts.
import { useId, useState, type DragEvent } from 'react';
import { IMPORT } from '../../store/runs-slice';
import { useStudio } from '../../store/store';
import { droppedFiles } from './dropped-files';

export function ImportRun() {
  const importFiles = useStudio((s) => s.importRunFiles);
  const busy = useStudio((s) => s.runsBusy);
  const error = useStudio((s) => (s.runsErrorAt === IMPORT ? s.runsError : null));
  const [dragging, setDragging] = useState(false);
  const ids = { folder: useId(), zip: useId() };
  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    await importFiles(await droppedFiles(e.dataTransfer));
  };
  // The directory picker attribute is not in React's typings.
  const folderPicker = { webkitdirectory: '', directory: '' } as Record<string, string>;
  return (
    <div className={dragging ? 'card dropzone dragging' : 'card dropzone'} data-testid="runs-import"
      onDragOver={(e) => { e.preventDefault(); setDragging(true); }} onDragLeave={() => setDragging(false)} onDrop={(e) => void onDrop(e)}>
      <h2>Import a run folder</h2>
      <p className="small">A folder the CLI wrote (config.yaml, metrics.jsonl, checkpoints, adapter) or its zip: drop it here or pick it.
        It is kept under its folder name.</p>
      <div className="form-row">
        <label htmlFor={ids.folder}>Pick a run folder</label>
        <input id={ids.folder} type="file" {...folderPicker} multiple disabled={busy !== null} data-testid="runs-import-folder"
          onChange={(e) => { const f = [...(e.target.files ?? [])]; e.target.value = ''; if (f.length) void importFiles(f); }} />
      </div>
      <div className="form-row">
        <label htmlFor={ids.zip}>Pick a zip</label>
        <input id={ids.zip} type="file" accept=".zip,application/zip" disabled={busy !== null} data-testid="runs-import-zip"
          onChange={(e) => { const f = [...(e.target.files ?? [])]; e.target.value = ''; if (f.length) void importFiles(f); }} />
      </div>
      {busy === IMPORT && <p role="status" className="small">Importing...</p>}
      {error && <p className="error" role="alert" data-testid="runs-import-error">{error}</p>}
    </div>
  );
}
