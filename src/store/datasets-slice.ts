// Store slice for the Datasets panel: the dataset being inspected (its validation report from
// the dataset worker), the shipped datasets to pick from, the train/eval split settings, and the
// previewed lines' tokens under the selected model and the config (engine worker, tokenizer only):
// task lines as a run's first input, SFT lines with the SFT loader's mask and length checks.
// Exercised by tests/e2e/studio-datasets.spec.ts and tests/e2e/studio-drop-flow.spec.ts.
import type { StateCreator } from 'zustand';
import { splitByGroup } from '../data/sampling';
import type { DatasetReport } from '../ui/datasets/analyse';
import type { DatasetReply, DatasetRequest, DatasetSource } from '../ui/datasets/protocol';
import { ENV_NAMES, type EnvName, type Task } from '../data/schemas';
import type { DatasetTokenPreview, PreviewData, SftCheck } from '../workers/engine/preview-tokens';
import { engine } from './engine';
import type { StudioState } from './store';

export interface DatasetSplit {
  evalFraction: number;
  seed: number;
  train: number;
  eval: number;
}

/** The previewed lines' tokens under one model and config text (null: it does not validate), or why they could not be made. */
export type DatasetTokens = { model: string; fileName: string; config: string | null } & ({ status: 'loading' } | { status: 'ready'; preview: DatasetTokenPreview; check: SftCheckState } | { status: 'error'; message: string });

/** An SFT file's whole-file check, run after its first lines are shown (the loader reads every line: seconds for thousands). */
export type SftCheckState = null | { status: 'checking' } | { status: 'ready'; check: SftCheck } | { status: 'error'; message: string };

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
  /** Tokenizes the previewed lines with the selected model as a run of the config would (once per file, model and config). */
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
    const s = get(), report = s.datasetReport, opened = s.datasetSource, model = s.models.find((m) => m.name === s.selectedModel);
    if (!report || !opened || !model || !report.previews.length || opened.fileName !== report.fileName) return;
    const isTasks = (ENV_NAMES as readonly string[]).includes(report.schema);
    if (!isTasks && report.schema !== 'sft') return;
    const config = s.configCheck.ok ? s.configText : null;
    const have = s.datasetTokens;
    if (have && have.model === model.name && have.fileName === report.fileName && have.config === config && have.status !== 'error') return;
    const key = { model: model.name, fileName: report.fileName, config };
    set({ datasetTokens: { ...key, status: 'loading' } });
    // A newer file, model or config supersedes this answer.
    const current = () => { const t = get().datasetTokens; return t?.model === key.model && t.config === key.config && get().datasetReport === report; };
    const setCheck = (check: SftCheckState) => {
      const t = get().datasetTokens;
      if (current() && t?.status === 'ready') set({ datasetTokens: { ...t, check } });
    };
    try {
      const request = (data: PreviewData) => engine().previewTokens({ source: model.source, configYaml: config, data });
      if (isTasks) {
        const tasks = report.previews.map((p) => ({ line: p.line, task: p.fields as unknown as Task }));
        const preview = await request({ kind: 'tasks', schema: report.schema as EnvName, fileName: report.fileName, tasks });
        if (current()) set({ datasetTokens: { ...key, status: 'ready', preview, check: null } });
        return;
      }
      // The first lines alone first (shown at once), then every line through the SFT loader.
      const text = await sourceText(opened.source), lines = report.previews.map((p) => p.line);
      const head = text.split('\n').slice(0, Math.max(...lines)).join('\n');
      const preview = await request({ kind: 'sft', fileName: report.fileName, text: head, lines });
      if (!current()) return;
      set({ datasetTokens: { ...key, status: 'ready', preview, check: { status: 'checking' } } });
      try {
        const whole = await request({ kind: 'sft', fileName: report.fileName, text, lines: [] });
        if (whole.sft) setCheck({ status: 'ready', check: whole.sft });
      } catch (e) {
        setCheck({ status: 'error', message: (e as Error).message });
      }
    } catch (e) {
      if (current()) set({ datasetTokens: { ...key, status: 'error', message: (e as Error).message } });
    }
  },
});

/** The text of the open file (the SFT preview runs the SFT loader over all of it). */
async function sourceText(source: DatasetSource): Promise<string> {
  return 'blob' in source ? source.blob.text() : (await fetch(source.url)).text();
}
