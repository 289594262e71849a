// Store slice for the run folders kept in OPFS runs/ (scanned by the engine worker) and their
// export: a zip of the PEFT adapter (or full model) and / or the run's config.yaml + metrics.jsonl.
// Read by the Export panel and the Models panel (adapters per model); exercised by
// tests/e2e/studio-export.spec.ts and studio-models.spec.ts.
import type { StateCreator } from 'zustand';
import type { RunExport, RunSummary } from '../workers/engine/run-scan';
import { engine } from './engine';
import type { StudioState } from './store';

export interface ExportSlice {
  /** Every run folder in OPFS (null until scanned). */
  runFolders: RunSummary[] | null;
  runFoldersError: string | null;
  /** The run being zipped, and the last export error. */
  exporting: string | null;
  exportError: string | null;
  scanRunFolders: () => Promise<void>;
  /** The zip's bytes and file name (the panel saves it), or null when it failed (exportError says why). */
  exportRun: (runId: string, parts: RunExport['parts']) => Promise<RunExport | null>;
}

export const createExportSlice: StateCreator<StudioState, [], [], ExportSlice> = (set) => ({
  runFolders: null,
  runFoldersError: null,
  exporting: null,
  exportError: null,

  scanRunFolders: async () => {
    try {
      set({ runFolders: await engine().scanRuns(), runFoldersError: null });
    } catch (e) {
      set({ runFoldersError: `reading the runs kept in this browser failed: ${(e as Error).message}` });
    }
  },
  exportRun: async (runId, parts) => {
    set({ exporting: runId, exportError: null });
    try {
      return await engine().exportRun(runId, parts);
    } catch (e) {
      set({ exportError: `run ${runId}: ${(e as Error).message}` });
      return null;
    } finally {
      set({ exporting: null });
    }
  },
});
