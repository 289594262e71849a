// Store slice for models: the shipped models, which one is selected (the default agent unless the
// user picks another), and the models loaded in the engine worker, keyed by source and quantization
// so a model is uploaded to the GPU once. Read by the Config, Run, Playground and Eval panels;
// exercised by tests/e2e/studio-*.spec.ts.
import type { StateCreator } from 'zustand';
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

export interface ModelsSlice {
  models: StudioModel[];
  selectedModel: string;
  /** `${name}|${quant}` -> the worker's model, once loaded. */
  loadedModels: Record<string, ModelInfo>;
  /** Load progress of the model being uploaded (null when none), and the last load error. */
  modelLoad: { name: string; done: number; total: number; stage: string } | null;
  modelError: string | null;
  selectModel: (name: string) => void;
  /** The worker's model id for `name` (default the selected one) at `quant`, loading it once. */
  ensureModel: (quant: Quant, name?: string) => Promise<ModelInfo>;
}

export const createModelsSlice: StateCreator<StudioState, [], [], ModelsSlice> = (set, get) => ({
  models: [...SHIPPED_MODELS],
  selectedModel: SHIPPED_MODELS[0].name,
  loadedModels: {},
  modelLoad: null,
  modelError: null,

  selectModel: (name) => {
    if (get().models.some((m) => m.name === name)) set({ selectedModel: name, modelError: null });
  },
  ensureModel: async (quant, name = get().selectedModel) => {
    const key = `${name}|${quant}`;
    const have = get().loadedModels[key];
    if (have) return have;
    const m = get().models.find((x) => x.name === name);
    if (!m) throw new Error(`no model named "${name}"; pick one in the Models panel`);
    set({ modelLoad: { name, done: 0, total: 1, stage: 'reading files' }, modelError: null });
    try {
      const info = await engine().loadModel({ source: m.source, quant }, (done, total, stage) => set({ modelLoad: { name, done, total, stage } }));
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
