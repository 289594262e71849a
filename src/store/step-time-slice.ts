// Store slice for the Config panel's measured step time: on the user's click, loads the model Start
// would load (ensureModel, same quant and name) and asks the engine worker (`time-step`) to time one
// step of the current config. The answer is kept with the config text and model it was measured for,
// so the card shows it only while both are unchanged. Exercised by tests/e2e/studio-config-plan.spec.ts.
import type { StateCreator } from 'zustand';
import type { StepTime } from '../workers/engine/step-time';
import { engine } from './engine';
import { modelForConfig } from './run-start';
import type { StudioState } from './store';

/** What a measurement is for: the config text and the model name. */
export interface StepTimeKey { configText: string; model: string }

export type StepTimeState =
  | { status: 'idle' }
  | { status: 'measuring'; key: StepTimeKey; stage: string }
  | { status: 'ready'; key: StepTimeKey; result: StepTime }
  | { status: 'error'; key: StepTimeKey; message: string };

export interface StepTimeSlice {
  stepTime: StepTimeState;
  /** Times one step of the current config on its model (loads the model when needed). */
  measureStepTime: () => Promise<void>;
}

let generation = 0;

export const createStepTimeSlice: StateCreator<StudioState, [], [], StepTimeSlice> = (set, get) => ({
  stepTime: { status: 'idle' },
  measureStepTime: async () => {
    const mine = ++generation;
    const s = get();
    if (!s.configCheck.ok) return;
    const cfg = s.configCheck.config;
    const chosen = modelForConfig(cfg, s.models, s.selectedModel);
    const key: StepTimeKey = { configText: s.configText, model: 'error' in chosen ? '' : chosen.name };
    const fail = (message: string) => { if (mine === generation) set({ stepTime: { status: 'error', key, message } }); };
    if ('error' in chosen) return fail(chosen.error);
    set({ stepTime: { status: 'measuring', key, stage: 'loading the model' } });
    try {
      const { modelId } = await get().ensureModel(cfg.model.quant, chosen.name, cfg.model.quant_embeddings);
      const result = await engine().timeStep({ modelId, configYaml: s.configText }, (_done, _total, stage) => {
        if (mine === generation) set({ stepTime: { status: 'measuring', key, stage } });
      });
      if (mine === generation) set({ stepTime: { status: 'ready', key, result } });
    } catch (e) {
      fail((e as Error).message);
    }
  },
});
