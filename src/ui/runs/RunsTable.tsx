// The Runs panel's table: one row per stored run (state, trainer / env, model, steps, last
// checkpoint) with a compare checkbox and Resume (cut off, cancelled or failed runs), Export (zip)
// and Delete buttons. Live runs show their progress. Rows are virtualised (@tanstack/react-virtual)
// inside a scrolling box with a sticky header. Rendered by src/ui/panels/RunsPanel.tsx; exercised
// by tests/e2e/studio-runs.spec.ts and tests/unit/ui/runs-table.test.ts (2,000 runs, a window drawn).
import { useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { modelNameOf } from '../../store/runs-slice';
import { useStudio } from '../../store/store';
import type { StoredRun } from '../../workers/engine/protocol';

const STATE_LABEL: Record<StoredRun['state'], string> = {
  live: 'training', finished: 'finished', cancelled: 'cancelled', failed: 'failed', 'cut-off': 'cut off',
};
const STATE_HELP: Record<StoredRun['state'], string> = {
  live: 'Training in this tab now.',
  finished: 'Every step done; the adapter (or model) folder is written.',
  cancelled: 'Stopped by you; resume continues from its last checkpoint.',
  failed: 'Ended with an error; resume continues from its last checkpoint.',
  'cut-off': 'No end record: the page was reloaded or closed, or the GPU was lost, while it trained. Resume continues from its last checkpoint.',
};
const RESUMABLE: StoredRun['state'][] = ['cut-off', 'cancelled', 'failed'];
/** Estimated row height before a row is measured, and the first-paint box (no layout yet). */
const ROW_PX = 44;
const FIRST_RECT = { width: 1200, height: 560 };
const COLUMNS = 8;

function download(bytes: Uint8Array, name: string): void {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/zip' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function RunsTable({ runs }: { runs: StoredRun[] }) {
  const busy = useStudio((s) => s.runsBusy);
  const compareIds = useStudio((s) => s.compareIds);
  const resume = useStudio((s) => s.resumeStoredRun);
  const remove = useStudio((s) => s.deleteStoredRun);
  const toggle = useStudio((s) => s.toggleCompare);
  const exportZip = useStudio((s) => s.exportRunZip);
  const loading = useStudio((s) => s.modelLoad);
  const error = useStudio((s) => s.runsError);
  const errorAt = useStudio((s) => s.runsErrorAt);
  const scroller = useRef<HTMLDivElement>(null);
  // The studio does not use the React Compiler; the virtualizer re-renders this table itself.
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({
    count: runs.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 6,
    initialRect: FIRST_RECT, getItemKey: (i) => runs[i].runId,
  });
  const items = v.getVirtualItems();
  const top = items.length ? items[0].start : 0;
  const bottom = items.length ? v.getTotalSize() - items[items.length - 1].end : 0;

  return (
    <div ref={scroller} className="runs-scroll" data-testid="runs-scroll">
    <table className="runs-table" data-testid="runs-table" aria-rowcount={runs.length + 1}>
      <caption className="small">Runs kept in this browser (OPFS runs/), in the CLI&apos;s folder layout.</caption>
      <thead>
        <tr>
          <th scope="col" className="col-pick">Compare</th>
          <th scope="col">Run</th>
          <th scope="col">State</th>
          <th scope="col">Trainer</th>
          <th scope="col">Model</th>
          <th scope="col">Steps</th>
          <th scope="col">Last checkpoint</th>
          <th scope="col" className="col-actions">Actions</th>
        </tr>
      </thead>
      <tbody>
        {top > 0 && <tr aria-hidden="true" className="runs-spacer"><td colSpan={COLUMNS} style={{ height: top }} /></tr>}
        {items.map((it) => { const r = runs[it.index]; return (
          <tr key={r.runId} ref={v.measureElement} data-index={it.index} aria-rowindex={it.index + 2}
            data-testid={`run-row-${r.runId}`} data-state={r.state} data-steps={r.steps}>
            <td className="col-pick">
              <input type="checkbox" aria-label={`Compare ${r.runId}`} checked={compareIds.includes(r.runId)} onChange={() => void toggle(r.runId)} />
            </td>
            <td className="run-id">{r.runId}</td>
            <td>
              <span className={`tag state-${r.state}`} title={STATE_HELP[r.state]}>{STATE_LABEL[r.state]}</span>
              {r.state === 'failed' && r.message && <div className="small error">{r.message}</div>}
            </td>
            <td>{r.trainer ?? '-'}{r.env ? ` (${r.env})` : ''}</td>
            <td title={r.model ?? undefined}>{modelNameOf(r.model) ?? '-'}{r.quant ? `, ${r.quant}` : ''}</td>
            <td>
              {r.steps}{r.totalSteps ? ` / ${r.totalSteps}` : ''}
              {r.state === 'live' && r.totalSteps ? <progress className="run-progress" max={r.totalSteps} value={r.steps} aria-label={`${r.runId} progress`} /> : null}
            </td>
            <td className="run-id">{r.lastCheckpoint ?? 'none'}</td>
            <td className="col-actions">
              {RESUMABLE.includes(r.state) && (
                <button type="button" disabled={busy !== null} aria-label={`Resume ${r.runId}`} onClick={() => void resume(r.runId)}>
                  {busy === r.runId && loading ? 'Loading model...' : 'Resume'}
                </button>
              )}
              <button type="button" disabled={busy !== null} aria-label={`Export ${r.runId} as a zip`}
                onClick={() => void exportZip(r.runId).then((z) => { if (z) download(z, `${r.runId}.zip`); })}>Export</button>
              <button type="button" disabled={busy !== null || r.state === 'live'} aria-label={`Delete ${r.runId}`}
                onClick={() => { if (window.confirm(`Delete the run folder ${r.runId} from this browser? Export it first to keep it.`)) void remove(r.runId); }}>Delete</button>
              {errorAt === r.runId && error && <p className="error small" role="alert" data-testid="run-row-error">{error}</p>}
            </td>
          </tr>
        ); })}
        {bottom > 0 && <tr aria-hidden="true" className="runs-spacer"><td colSpan={COLUMNS} style={{ height: bottom }} /></tr>}
      </tbody>
    </table>
    </div>
  );
}
