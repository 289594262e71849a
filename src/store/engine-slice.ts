// Store slice for the engine's health: why the engine worker is down (it crashed or its GPU device
// was lost; null while it is fine) and Restart engine, which starts a new worker (and device),
// forgets the model ids the old one had loaded (models load again on demand) and relists the
// stored runs, so a failed run resumes from its checkpoint without a page reload.
// Shown by the Run and Runs panels; exercised by tests/e2e/studio-run-failure.spec.ts.
import type { StateCreator } from 'zustand';
import { engineDown, onEngineDown, restartEngine } from './engine';
import type { StudioState } from './store';

export interface EngineSlice {
  /** Why the engine cannot train any more (the message its runs failed with), null while it can. */
  engineDown: string | null;
  engineRestarting: boolean;
  /** Set after a restart, for the panels to say so; cleared by the next down. */
  engineRestarted: boolean;
  /** A new engine worker and GPU device; the loaded models are forgotten and load again on demand. */
  restartEngine: () => Promise<void>;
  /** Restarts the engine first when it is down (called by Start, Resume and every model load). */
  ensureEngine: () => Promise<void>;
}

export const createEngineSlice: StateCreator<StudioState, [], [], EngineSlice> = (set, get) => {
  // Model ids belong to the worker that loaded them: forget them as soon as it is down.
  onEngineDown((reason) => set({ engineDown: reason, engineRestarted: false, loadedModels: {} }));
  /** The restart under way: a second caller waits for it instead of starting another. */
  let restarting: Promise<void> | null = null;
  const restart = async () => {
    set({ engineRestarting: true });
    try {
      await restartEngine();
      // Run views keep their rows; their model ids (for decoding tokens) named the old worker's models.
      const runs = Object.fromEntries(Object.entries(get().runs).map(([id, v]) => [id, { ...v, modelId: null }]));
      set({ engineDown: null, engineRestarted: true, loadedModels: {}, tokenText: {}, runs, runsError: null, runsErrorAt: null });
    } finally {
      set({ engineRestarting: false });
    }
    await get().refreshRuns();
  };
  return {
    engineDown: null,
    engineRestarting: false,
    engineRestarted: false,

    restartEngine: () => {
      restarting ??= restart().finally(() => { restarting = null; });
      return restarting;
    },
    ensureEngine: async () => {
      if (get().engineDown !== null || engineDown() !== null) await get().restartEngine();
    },
  };
};
