// Store slice for the Config panel's memory plan: asks the engine worker (`plan-run`) for the GPU
// plan of the valid config on the model Start would load (modelForConfig), keeps only the newest
// answer, and says why when there is none. Exercised by tests/e2e/studio-config-plan.spec.ts.
import type { StateCreator } from 'zustand';
import type { RunPlan } from '../workers/engine/plan';
import { engine } from './engine';
import { modelForConfig } from './run-start';
import type { StudioState } from './store';

export type PlanState =
  | { status: 'idle' }
  | { status: 'computing'; model: string }
  | { status: 'ready'; model: string; plan: RunPlan }
  | { status: 'error'; model: string | null; message: string };

export interface PlanSlice {
  runPlan: PlanState;
  /** Recomputes the plan of the current config and model (the newest request wins). */
  refreshPlan: () => Promise<void>;
}

let generation = 0;

export const createPlanSlice: StateCreator<StudioState, [], [], PlanSlice> = (set, get) => ({
  runPlan: { status: 'idle' },
  refreshPlan: async () => {
    const mine = ++generation;
    const s = get();
    if (!s.configCheck.ok) {
      set({ runPlan: { status: 'idle' } });
      return;
    }
    const chosen = modelForConfig(s.configCheck.config, s.models, s.selectedModel);
    if ('error' in chosen) {
      set({ runPlan: { status: 'error', model: null, message: chosen.error } });
      return;
    }
    const model = s.models.find((m) => m.name === chosen.name);
    if (!model) {
      set({ runPlan: { status: 'error', model: chosen.name, message: `model ${chosen.name} is not in the Models panel; pick another there` } });
      return;
    }
    set({ runPlan: { status: 'computing', model: model.name } });
    try {
      const plan = await engine().planRun({ source: model.source, configYaml: s.configText });
      if (mine === generation) set({ runPlan: { status: 'ready', model: model.name, plan } });
    } catch (e) {
      if (mine === generation) set({ runPlan: { status: 'error', model: model.name, message: (e as Error).message } });
    }
  },
});
