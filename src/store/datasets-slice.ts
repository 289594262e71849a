// Store slice for the Datasets panel: the dataset being inspected (its validation report from
// the dataset worker), the shipped datasets to pick from, the train/eval split settings, and the
// previewed tasks' tokens under the selected model (engine worker, tokenizer only).
// Exercised by tests/e2e/studio-datasets.spec.ts and tests/e2e/studio-drop-flow.spec.ts.
import type { StateCreator } from 'zustand';
import { splitByGroup } from '../data/sampling';
import type { DatasetReport } from '../ui/datasets/analyse';
import type { DatasetReply, DatasetRequest, DatasetSource } from '../ui/datasets/protocol';
import type { TokenPreview } from '../workers/engine/preview-tokens';
import { engine } from './engine';
import type { StudioState } from './store';

export interface DatasetSplit {
  evalFraction: number;
  seed: number;
  train: number;
  eval: number;
}

/** The previewed tasks' tokens under one model, by the line each task came from, or why they could not be made. */
export type DatasetTokens = { model: string; fileName: string } & ({ status: 'loading' } | { status: 'ready'; byLine: Record<number, TokenPreview> } | { status: 'error'; message: string });

export interface DatasetsSlice {
  datasetStatus: 'empty' | 'reading' | 'ready' | 'error';
  datasetReport: DatasetReport | null;
  datasetError: string | null;
  datasetSplit: DatasetSplit | null;
  /** Where the file open without errors came from (Start reads its text from here). */
  datasetSource: { source: DatasetSource; fileName: string } | null;
  /** Validates a dropped/chosen file (Blob) or a shipped one (its URL) in the dataset worker. */
  openDataset: (source: DatasetSource, fileName: string) => Promise<void>;
  setSplit: (evalFraction: number, seed: number) => void;
  datasetTokens: DatasetTokens | null;
  /** Tokenizes the previewed tasks' opening messages with the selected model's chat template (once per file and model). */
  loadDatasetTokens: () => Promise<void>;
}

let worker: Worker | null = null;
let nextId = 1;

function analyseInWorker(source: DatasetSource, fileName: string): Promise<DatasetReport> {
  worker ??= new Worker(new URL('../ui/datasets/dataset.worker.ts', import.meta.url), { type: 'module', name: 'dataset' });
  const w = worker;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const onMessage = (e: MessageEvent<DatasetReply>) => {
      if (e.data.id !== id) return;
      w.removeEventListener('message', onMessage);
      if (e.data.kind === 'result') resolve(e.data.report);
      else reject(new Error(e.data.message));
    };
    w.addEventListener('message', onMessage);
    w.addEventListener('error', (e) => reject(new Error(`${fileName}: the dataset worker failed (${e.message}); reload the page and try again`)), { once: true });
    const req: DatasetRequest = { kind: 'analyse', id, source, fileName };
    w.postMessage(req);
  });
}

/** Counts of a seeded split of the good task ids (each task its own group). */
export function splitCounts(ids: readonly string[], evalFraction: number, seed: number): DatasetSplit {
  if (ids.length < 2) return { evalFraction, seed, train: ids.length, eval: 0 };
  const s = splitByGroup(ids, evalFraction, seed, (id) => id);
  return { evalFraction, seed, train: s.train.length, eval: s.eval.length };
}

export const createDatasetsSlice: StateCreator<StudioState, [], [], DatasetsSlice> = (set, get) => ({
  datasetStatus: 'empty',
  datasetReport: null,
  datasetError: null,
  datasetSplit: null,
  datasetSource: null,
  datasetTokens: null,

  openDataset: async (source, fileName) => {
    set({ datasetStatus: 'reading', datasetError: null });
    try {
      const report = await analyseInWorker(source, fileName);
      const prev = get().datasetSplit;
      set({ datasetStatus: 'ready', datasetReport: report, datasetTokens: null, datasetSource: { source, fileName }, datasetSplit: splitCounts(report.taskIds, prev?.evalFraction ?? 0.1, prev?.seed ?? 0) });
    } catch (e) {
      set({ datasetStatus: 'error', datasetReport: null, datasetSource: null, datasetSplit: null, datasetError: (e as Error).message });
    }
  },

  setSplit: (evalFraction, seed) => {
    const report = get().datasetReport;
    if (report) set({ datasetSplit: splitCounts(report.taskIds, evalFraction, seed) });
  },

  loadDatasetTokens: async () => {
    const s = get(), report = s.datasetReport, model = s.models.find((m) => m.name === s.selectedModel);
    const shown = report?.previews.filter((p) => p.messages !== null) ?? [];
    if (!report || !model || !shown.length) return;
    const have = s.datasetTokens;
    if (have && have.model === model.name && have.fileName === report.fileName && have.status !== 'error') return;
    const key = { model: model.name, fileName: report.fileName };
    set({ datasetTokens: { ...key, status: 'loading' } });
    // A newer file or model supersedes this answer.
    const current = () => get().datasetTokens?.model === key.model && get().datasetReport === report;
    try {
      const tokens = await engine().previewTokens({ source: model.source, conversations: shown.map((p) => p.messages!) });
      if (current()) set({ datasetTokens: { ...key, status: 'ready', byLine: Object.fromEntries(shown.map((p, i) => [p.line, tokens[i]])) } });
    } catch (e) {
      if (current()) set({ datasetTokens: { ...key, status: 'error', message: (e as Error).message } });
    }
  },
});
