// Store slice for the Config panel's measured step time: on the user's click, loads the model Start
// would load (ensureModel, same quant and name) and asks the engine worker (`time-step`) to time one
// step of the current config, at typical lengths when known (the newest stored RL run of the same
// model: its logged episodes; else the Datasets preview's prompt lengths of the config's env), else at
// the upper bound. The answer is kept with the config text and model it was measured for,
// so the card shows it only while both are unchanged. Exercised by tests/e2e/studio-config-plan.spec.ts.
import type { StateCreator } from 'zustand';
import type { RlConfig } from '../rl/config-validate';
import { METRICS_FILE, ROLLOUTS_FILE } from '../run/layout';
import { lengthsFromPreview, lengthsFromRun, type TypicalLengths } from '../run/typical-lengths';
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
      if (mine === generation) set({ stepTime: { status: 'measuring', key, stage: 'reading typical lengths' } });
      const lengths = await typicalLengths(get, cfg, chosen.name);
      const result = await engine().timeStep({ modelId, configYaml: s.configText, lengths }, (_done, _total, stage) => {
        if (mine === generation) set({ stepTime: { status: 'measuring', key, stage } });
      });
      if (mine === generation) set({ stepTime: { status: 'ready', key, result } });
    } catch (e) {
      fail((e as Error).message);
    }
  },
});

const baseName = (p: string): string => p.replace(/\/+$/, '').split('/').pop() ?? p;

/** Typical lengths for `cfg` on model `name`: the newest stored RL run of that model, else the Datasets preview; null: the upper bound. */
async function typicalLengths(get: () => StudioState, cfg: RlConfig, name: string): Promise<TypicalLengths | null> {
  if (cfg.trainer === 'sft') return null;
  const s = get(), t = s.datasetTokens;
  const preview = t?.status === 'ready' && t.model === name && t.preview.tools !== null && s.datasetReport?.schema === cfg.data.env
    ? lengthsFromPreview(t.fileName, Object.values(t.preview.byLine).map((l) => l.ids.length)) : null;
  if (!get().runsLoaded) await get().refreshRuns();
  const run = get().storedRuns.find((r) => r.model !== null && (r.model === cfg.model.path || baseName(r.model) === name) && r.trainer !== null && r.trainer !== 'sft' && r.steps > 0);
  if (run) {
    const text = async (file: string) => {
      const b = await engine().readRunFile(run.runId, file).catch(() => null);
      return b ? new TextDecoder().decode(b) : null;
    };
    const got = lengthsFromRun(run.runId, await text(ROLLOUTS_FILE), await text(METRICS_FILE), preview);
    if (got) return got;
  }
  return preview;
}
