// The Models panel's "Add a model" card: drop a Hugging Face folder (or its files) or choose a
// folder (showDirectoryPicker when the browser has it, else <input webkitdirectory>), name it, and
// the engine worker inspects it and keeps it in OPFS; a folder the engine cannot use is not stored
// and its problems are listed by file. Exercised by tests/e2e/studio-models.spec.ts.
import { useId, useState, type DragEvent } from 'react';
import { formatBytes } from '../../gpu/errors';
import { useStudio } from '../../store/store';
import { fromDirectoryHandle, fromDrop, fromFileList, type PickedFolder } from './folder-files';
import { ProblemsList } from './ProblemsList';
import { askPersistent, useStorage } from './storage';

type PickerWindow = Window & { showDirectoryPicker?: (o?: { mode?: 'read' }) => Promise<FileSystemDirectoryHandle> };

const NAME_OK = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function AddModelCard() {
  const status = useStudio((s) => s.modelImport);
  const addModel = useStudio((s) => s.addModel);
  const [name, setName] = useState('');
  const [dragging, setDragging] = useState(false);
  const [pickError, setPickError] = useState<string | null>(null);
  const ids = { name: useId(), dir: useId(), help: useId() };
  const [storage, refreshStorage] = useStorage();
  const picker = (window as PickerWindow).showDirectoryPicker;
  const busy = status.status === 'busy';

  const add = async (p: PickedFolder) => {
    setPickError(null);
    if (!p.files.length) return setPickError('the folder is empty; pick the folder that holds config.json, model.safetensors and tokenizer.json');
    const n = name.trim() || (p.folder ?? '').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
    if (!NAME_OK.test(n)) return setPickError(`model name "${n}": type a name first (letters, digits, ".", "_" or "-", up to 64)`);
    const bytes = p.files.reduce((a, f) => a + f.size, 0);
    if (storage && storage.quota && bytes > storage.quota - storage.usage) {
      return setPickError(`${n} needs ${formatBytes(bytes)} but this browser lets the studio store ${formatBytes(storage.quota - storage.usage)} more; free disk space or remove a model, then add it again`);
    }
    setName(n);
    await addModel(n, p.files, p.paths);
    if (useStudio.getState().modelImport.status === 'added') {
      setName(''); // the next folder gets its own name
      await askPersistent().catch(() => false);
    }
    refreshStorage();
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void fromDrop(e.dataTransfer).then(add, (err: Error) => setPickError(`reading the dropped folder failed: ${err.message}`));
  };
  const choose = async () => {
    try {
      await add(await fromDirectoryHandle(await picker!.call(window, { mode: 'read' })));
    } catch (err) {
      if ((err as DOMException).name !== 'AbortError') setPickError(`reading the folder failed: ${(err as Error).message}`);
    }
  };

  return (
    <div className={dragging ? 'card dropzone dragging' : 'card dropzone'} data-testid="model-dropzone"
      onDragOver={(e) => { e.preventDefault(); setDragging(true); }} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
      <h2>Add a model</h2>
      <p className="small" id={ids.help}>Drop a Hugging Face model folder (or its files) here, or choose the folder: config.json,
        model.safetensors (or shards with their index) and tokenizer.json. Llama and Qwen2 decoders. It is checked, then kept
        in this browser so it is listed again after a reload.</p>
      <div className="field">
        <label htmlFor={ids.name}>Name (default: the folder's)</label>
        <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} aria-describedby={ids.help}
          placeholder="my-model" data-testid="model-name" disabled={busy} />
      </div>
      {picker ? (
        <button type="button" onClick={() => void choose()} disabled={busy} data-testid="model-pick">Choose a folder...</button>
      ) : (
        <>
          <label htmlFor={ids.dir}>Choose a folder</label>{' '}
          <input id={ids.dir} type="file" data-testid="model-folder" disabled={busy}
            ref={(el) => { if (el) el.setAttribute('webkitdirectory', ''); }}
            onChange={(e) => { if (e.target.files?.length) void add(fromFileList(e.target.files)); e.target.value = ''; }} />
        </>
      )}
      {storage && (
        <p className="small" data-testid="model-storage">Browser storage: {formatBytes(storage.usage)} used of {formatBytes(storage.quota)} allowed
          {storage.persisted ? ' (persistent: kept under disk pressure).' : ' (the browser may evict it under disk pressure until it grants persistent storage).'}</p>
      )}
      <div aria-live="polite" data-testid="model-add-status">
        {status.status === 'busy' && (
          <p role="status">{status.name}: {status.stage}{status.total > 0 && <>{' '}<progress max={status.total} value={status.done} aria-label={`Storing ${status.name}`} /> {formatBytes(status.done)} of {formatBytes(status.total)}</>}</p>
        )}
        {status.status === 'added' && <p className="ok">{status.name} added to the list; select it to use it.</p>}
        {pickError && <p className="error" role="alert">{pickError}</p>}
        {status.status === 'failed' && <p className="error" role="alert">{status.message}</p>}
        {status.status === 'rejected' && (
          <div className="error-box" data-testid="model-rejected">
            <p className="error">{status.name} cannot be used, so it was not stored:</p>
            <ProblemsList problems={status.report.problems} />
            <p className="small">Fix the folder and drop it again.</p>
          </div>
        )}
      </div>
    </div>
  );
}
