// Store slice for models: the shipped models and the ones the user added (kept in OPFS models/NAME/
// by the engine worker), which one is selected (the default agent unless the user picks another),
// each model's inspection report (architecture, sizes, GPU bytes, problems), and the models loaded
// in the engine worker, keyed by source and quantization so a model is uploaded to the GPU once.
// Read by the Models, Config, Run, Playground and Eval panels; exercised by tests/e2e/studio-*.spec.ts.
import type { StateCreator } from 'zustand';
import type { ModelReport } from '../workers/engine/inspect';
import type { ModelInfo, ModelSource } from '../workers/engine/protocol';
import { engine } from './engine';
import type { StudioState } from './store';

export interface StudioModel {
  /** Shown in lists; also the `model.path` a config names (public/models/NAME for shipped ones). */
  name: string;
  source: ModelSource;
  shipped: boolean;
  /** One line on what it is. */
  about: string;
}

export const SHIPPED_MODELS: readonly StudioModel[] = [
  { name: 'agent-tiny', source: { url: '/models/agent-tiny' }, shipped: true, about: 'The default agent: 263K parameters, calls python and search (MIT).' },
  { name: 'stories260K', source: { url: '/models/stories260K' }, shipped: true, about: 'llama2.c TinyStories model: 260K parameters, writes short stories (MIT).' },
];

export type Quant = 'none' | 'nf4';

/** A model the user added: its folder in the browser's Origin Private File System. */
export const userModel = (name: string): StudioModel => ({ name, source: { opfs: `models/${name}` }, shipped: false, about: 'Added by you; kept in this browser (OPFS models/' + name + '/).' });

/** The report of a model, or why it could not be read at all. */
export type ModelCheck = { report: ModelReport; error?: undefined } | { report?: undefined; error: string };

/** Adding a folder: idle, storing, or the last attempt's outcome (a rejected folder's report names its problems). */
export type ModelImport =
  | { status: 'idle' }
  | { status: 'busy'; name: string; done: number; total: number; stage: string }
  | { status: 'added'; name: string }
  | { status: 'rejected'; name: string; report: ModelReport }
  | { status: 'failed'; message: string };

export interface ModelsSlice {
  models: StudioModel[];
  selectedModel: string;
  /** `${name}|${quant}` -> the worker's model, once loaded. */
  loadedModels: Record<string, ModelInfo>;
  /** Load progress of the model being uploaded (null when none), and the last load error. */
  modelLoad: { name: string; done: number; total: number; stage: string } | null;
  modelError: string | null;
  /** Per model name, once inspected. */
  modelChecks: Record<string, ModelCheck>;
  modelImport: ModelImport;
  selectModel: (name: string) => void;
  /** Lists the user's stored models (after a reload) and inspects every model not inspected yet. */
  refreshModels: () => Promise<void>;
  /** Inspects the dropped folder; when usable it is stored in OPFS and listed as `name`. */
  addModel: (name: string, files: File[], paths: string[]) => Promise<void>;
  /** Deletes a user model's folder from OPFS (shipped models cannot be removed). */
  removeModel: (name: string) => Promise<void>;
  /** The worker's model id for `name` (default the selected one) at `quant` (embeddings quantized too when asked), loading it once. */
  ensureModel: (quant: Quant, name?: string, quantEmbeddings?: boolean) => Promise<ModelInfo>;
}

export const createModelsSlice: StateCreator<StudioState, [], [], ModelsSlice> = (set, get) => ({
  models: [...SHIPPED_MODELS],
  selectedModel: SHIPPED_MODELS[0].name,
  loadedModels: {},
  modelLoad: null,
  modelError: null,
  modelChecks: {},
  modelImport: { status: 'idle' },

  selectModel: (name) => {
    if (get().models.some((m) => m.name === name)) set({ selectedModel: name, modelError: null });
  },
  refreshModels: async () => {
    try {
      const stored = await engine().listModels();
      const have = new Set(get().models.map((m) => m.name));
      const added = stored.filter((n) => !have.has(n)).map(userModel);
      if (added.length) set({ models: [...get().models, ...added] });
    } catch (e) {
      set({ modelImport: { status: 'failed', message: `reading the stored models failed: ${(e as Error).message}` } });
    }
    for (const m of get().models) {
      if (get().modelChecks[m.name]) continue;
      let check: ModelCheck;
      try {
        check = { report: await engine().inspectModel(m.source) };
      } catch (e) {
        check = { error: (e as Error).message };
      }
      set({ modelChecks: { ...get().modelChecks, [m.name]: check } });
    }
  },
  addModel: async (name, files, paths) => {
    if (get().models.some((m) => m.name === name)) {
      set({ modelImport: { status: 'failed', message: `a model named "${name}" is already listed; type another name, or remove that model first` } });
      return;
    }
    set({ modelImport: { status: 'busy', name, done: 0, total: 0, stage: 'checking config.json, the tokenizer and the safetensors headers' } });
    try {
      const { stored, report } = await engine().importModel({ name, files, paths }, (done, total, stage) => set({ modelImport: { status: 'busy', name, done, total, stage } }));
      if (!stored) {
        set({ modelImport: { status: 'rejected', name, report } });
        return;
      }
      set({ models: [...get().models, userModel(name)], modelChecks: { ...get().modelChecks, [name]: { report } }, modelImport: { status: 'added', name } });
    } catch (e) {
      set({ modelImport: { status: 'failed', message: (e as Error).message } });
    }
  },
  removeModel: async (name) => {
    const m = get().models.find((x) => x.name === name);
    if (!m || m.shipped) return;
    await engine().removeModel(name);
    const checks = { ...get().modelChecks };
    delete checks[name];
    const loaded = Object.fromEntries(Object.entries(get().loadedModels).filter(([k]) => !k.startsWith(`${name}|`)));
    set({
      models: get().models.filter((x) => x.name !== name), modelChecks: checks, loadedModels: loaded,
      selectedModel: get().selectedModel === name ? SHIPPED_MODELS[0].name : get().selectedModel,
    });
  },
  ensureModel: async (quant, name = get().selectedModel, quantEmbeddings = false) => {
    const key = `${name}|${quant}${quantEmbeddings ? '+embeddings' : ''}`;
    const have = get().loadedModels[key];
    if (have) return have;
    const m = get().models.find((x) => x.name === name);
    if (!m) throw new Error(`no model named "${name}"; pick one in the Models panel`);
    await get().ensureEngine();   // a worker that crashed or lost its device cannot load: start a new one
    set({ modelLoad: { name, done: 0, total: 1, stage: 'reading files' }, modelError: null });
    try {
      const info = await engine().loadModel({ source: m.source, quant, quantEmbeddings }, (done, total, stage) => set({ modelLoad: { name, done, total, stage } }));
      set({ loadedModels: { ...get().loadedModels, [key]: info } });
      return info;
    } catch (e) {
      const message = `model ${name}: ${(e as Error).message}`;
      set({ modelError: message });
      throw new Error(message);
    } finally {
      set({ modelLoad: null });
    }
  },
});
