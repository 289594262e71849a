// Store slice for the Runs panel: every run stored in the browser (OPFS runs/, listed by the
// engine worker), kept current from the worker's run events; resume of a cut-off or cancelled run
// (its model loaded once through ensureModel, then resume-run), import of a CLI run folder, export
// as a zip, delete, and the compare selection with each run's metrics.jsonl rows.
// Exercised by tests/e2e/studio-runs.spec.ts.
import type { StateCreator } from 'zustand';
import type { MetricsRow } from '../run/events';
import { TRAINING_ELSEWHERE, type StoredRun } from '../workers/engine/protocol';
import { runFolderFromFiles, zipRunFolder } from '../ui/runs/run-zip';
import { engine, onRunEvent } from './engine';
import type { Quant } from './models-slice';
import type { StudioState } from './store';

/** A run's rows for the compare chart (metrics.jsonl, complete lines only). */
export type RunRows = MetricsRow[];

export interface RunsSlice {
  storedRuns: StoredRun[];
  runsLoaded: boolean;
  /** The last action's outcome (shown by the panel's status line), or its error. */
  runsNote: string | null;
  runsError: string | null;
  /** Where the error belongs: a run's row (its id), the import card ('import'), or the panel (null). */
  runsErrorAt: string | null;
  /** The run a button is working on (resume / export / delete / import), to disable it. */
  runsBusy: string | null;
  /** Runs picked for the compare chart, and their rows once read. */
  compareIds: string[];
  compareRows: Record<string, RunRows>;
  compareMetric: string;
  /** The last run resumed here (set by onResumed; the Run panel then shows it, attachRun). */
  lastResumed: string | null;
  refreshRuns: () => Promise<void>;
  resumeStoredRun: (runId: string) => Promise<void>;
  /** Hook called after a resume starts: the lead points it at the Run panel's attachRun(runId). */
  onResumed: (runId: string) => void;
  deleteStoredRun: (runId: string) => Promise<void>;
  /** A picked folder, dropped files or a zip: imported as runs/<folder name>/. */
  importRunFiles: (files: File[]) => Promise<void>;
  /** The run folder as a zip (RUNID/...), for the panel to download; null when it failed (runsError says why). */
  exportRunZip: (runId: string) => Promise<Uint8Array | null>;
  toggleCompare: (runId: string) => Promise<void>;
  setCompareMetric: (name: string) => void;
}

/** The shipped model a config's model.path names (public/models/NAME, or NAME). */
export const modelNameOf = (path: string | null): string | null => (path ? path.replace(/\/+$/, '').split('/').pop() ?? null : null);

export function parseRows(text: string): RunRows {
  const rows: RunRows = [];
  for (const line of text.split('\n').slice(0, -1)) {
    try {
      const r = JSON.parse(line) as MetricsRow;
      if (typeof r.step === 'number') rows.push(r);
    } catch { /* a half-written last line */ }
  }
  return rows;
}

let listening = false;

/**
 * While a listed run trains in another tab (its worker holds the run's lock), the list is read
 * again this often: the row changes when that run ends, or when the worker of an engine just
 * replaced here lets its locks go (they outlive terminate() by a moment).
 */
export const ELSEWHERE_RELIST_MS = 2000;
let relist: ReturnType<typeof setTimeout> | null = null;
/** runsBusy / runsErrorAt of the import card. */
export const IMPORT = '(import)';

export const createRunsSlice: StateCreator<StudioState, [], [], RunsSlice> = (set, get) => {
  const fail = (what: string, e: unknown, at: string | null = null) => set({ runsError: `${what}: ${(e as Error).message}`, runsErrorAt: at, runsNote: null });
  /** Keeps the listed steps of live runs current, and relists when one ends. */
  const listen = () => {
    if (listening) return;
    listening = true;
    onRunEvent((runId, e) => {
      if (e.kind === 'progress') {
        set({ storedRuns: get().storedRuns.map((r) => (r.runId === runId ? { ...r, steps: e.step, totalSteps: e.total, state: 'live', message: 'running' } : r)) });
      } else if (e.kind === 'finished' || e.kind === 'failed' || e.kind === 'cancelled') {
        void get().refreshRuns();
        if (get().compareIds.includes(runId)) void readRows(runId).then((rows) => set({ compareRows: { ...get().compareRows, [runId]: rows } }));
      }
    });
  };
  const readRows = async (runId: string): Promise<RunRows> => {
    const b = await engine().readRunFile(runId, 'metrics.jsonl');
    return b ? parseRows(new TextDecoder().decode(b)) : [];
  };
  const busy = async (runId: string, what: string, f: () => Promise<void>) => {
    set({ runsBusy: runId, runsError: null, runsErrorAt: null, runsNote: null });
    try {
      await f();
    } catch (e) {
      fail(runId === IMPORT ? what : `${what} ${runId}`, e, runId);
    } finally {
      set({ runsBusy: null });
    }
  };

  return {
    storedRuns: [],
    runsLoaded: false,
    runsNote: null,
    runsError: null,
    runsErrorAt: null,
    runsBusy: null,
    compareIds: [],
    compareRows: {},
    compareMetric: 'loss',
    lastResumed: null,

    refreshRuns: async () => {
      listen();
      try {
        const runs = await engine().listRuns();
        runs.sort((a, b) => (b.endedAt ?? '').localeCompare(a.endedAt ?? '') || a.runId.localeCompare(b.runId));
        set({ storedRuns: runs, runsLoaded: true });
        if (relist !== null) clearTimeout(relist);
        relist = runs.some((r) => r.state === 'live' && r.message === TRAINING_ELSEWHERE)
          ? setTimeout(() => { relist = null; void get().refreshRuns(); }, ELSEWHERE_RELIST_MS) : null;
      } catch (e) {
        // A crashed engine worker cannot list: start a new one (which lists again) instead of failing.
        if (get().engineDown !== null && !get().engineRestarting) return get().ensureEngine();
        set({ runsLoaded: true });
        fail('listing the stored runs', e);
      }
    },
    resumeStoredRun: (runId) => busy(runId, 'resume', async () => {
      const run = get().storedRuns.find((r) => r.runId === runId);
      if (!run) throw new Error('not listed; refresh the list');
      const name = modelNameOf(run.model);
      if (!name || !get().models.some((m) => m.name === name)) {
        throw new Error(`its config.yaml names the model "${run.model ?? '(none)'}", which the studio does not have; add it in the Models panel (or resume from the CLI: train --resume)`);
      }
      await get().ensureEngine();
      const info = await get().ensureModel((run.quant === 'none' ? 'none' : 'nf4') as Quant, name, run.quantEmbeddings);
      await engine().resumeRun({ runId, modelId: info.modelId });
      set({ runsNote: `${runId}: resumed from ${run.lastCheckpoint ?? 'the start (no checkpoint yet)'} with ${name}` });
      get().onResumed(runId);
      await get().attachRun(runId, info.modelId);
      await get().refreshRuns();
    }),
    onResumed: (runId) => set({ lastResumed: runId }),
    deleteStoredRun: (runId) => busy(runId, 'delete', async () => {
      await engine().deleteRun(runId);
      const { [runId]: _gone, ...rows } = get().compareRows;
      set({ compareIds: get().compareIds.filter((x) => x !== runId), compareRows: rows, runsNote: `${runId}: deleted` });
      await get().refreshRuns();
    }),
    importRunFiles: (files) => busy(IMPORT, 'import', async () => {
      const folder = await runFolderFromFiles(files);
      // Own buffers: the worker takes them (transferred).
      const run = await engine().importRun(folder.runId, folder.files.map((f) => ({ path: f.path, bytes: f.bytes.slice() })));
      set({ runsNote: `${run.runId}: imported (${folder.files.length} files, ${run.steps} steps, ${run.trainer ?? 'no trainer'})` });
      await get().refreshRuns();
    }),
    exportRunZip: async (runId) => {
      let zip: Uint8Array | null = null;
      await busy(runId, 'export', async () => {
        const paths = await engine().listRun(runId);
        const files = [];
        // Side folders of an interrupted write are left out (recovery on resume would remove them).
        for (const path of paths.filter((p) => !/\.(tmp|old)(\/|$)/.test(p))) files.push({ path, bytes: (await engine().readRunFile(runId, path)) ?? new Uint8Array() });
        zip = zipRunFolder({ runId, files });
        set({ runsNote: `${runId}: exported ${files.length} files as ${runId}.zip` });
      });
      return zip;
    },
    toggleCompare: async (runId) => {
      const ids = get().compareIds;
      if (ids.includes(runId)) {
        set({ compareIds: ids.filter((x) => x !== runId) });
        return;
      }
      set({ compareIds: [...ids, runId] });
      try {
        const rows = await readRows(runId);
        set({ compareRows: { ...get().compareRows, [runId]: rows } });
      } catch (e) {
        fail(`reading ${runId}/metrics.jsonl`, e, runId);
      }
    },
    setCompareMetric: (name) => set({ compareMetric: name }),
  };
};
