// Store slice for the Eval panel: which split (or a dropped task file), how many tasks and samples,
// the adapter compared with the base (runs with adapter/ from the playground slice's list), the
// engine worker's progress and the report; an adapter's report is saved as its run's eval.json
// and listed again from OPFS after a reload. Exercised by tests/e2e/studio-eval.spec.ts.
import type { StateCreator } from 'zustand';
import type { EvalReport } from '../rl/eval-run';
import { engine } from './engine';
import type { StudioState } from './store';

export interface EvalSlice {
  evalSplit: 'eval' | 'train';
  evalTasks: number;
  evalSamples: number;
  evalAdapter: string;
  /** A dropped task file scored instead of the config's split. */
  evalFile: { name: string; text: string } | null;
  evalProgress: { done: number; total: number; stage: string } | null;
  evalReport: (EvalReport & { savedTo: string | null }) | null;
  evalError: string | null;
  setEval: (patch: Partial<Pick<EvalSlice, 'evalSplit' | 'evalTasks' | 'evalSamples' | 'evalAdapter' | 'evalFile'>>) => void;
  runEvaluation: () => Promise<void>;
}

export const createEvalSlice: StateCreator<StudioState, [], [], EvalSlice> = (set, get) => ({
  evalSplit: 'eval',
  evalTasks: 8,
  evalSamples: 1,
  evalAdapter: '',
  evalFile: null,
  evalProgress: null,
  evalReport: null,
  evalError: null,

  setEval: (patch) => set({ ...patch, evalError: null }),
  runEvaluation: async () => {
    const check = get().configCheck;
    if (!check.ok) {
      set({ evalError: `The Config panel's config does not validate (${check.problem.message}); fix it there: its environment grades the tasks.` });
      return;
    }
    const s = get();
    set({ evalProgress: { done: 0, total: 1, stage: 'loading the model' }, evalError: null, evalReport: null });
    try {
      const { modelId } = await get().ensureModel(check.config.model.quant, undefined, check.config.model.quant_embeddings);
      const report = await engine().evaluate({
        modelId, configYaml: s.configText, split: s.evalSplit, tasks: s.evalTasks, samples: s.evalSamples,
        ...(s.evalFile ? { dataset: s.evalFile } : {}), ...(s.evalAdapter ? { adapter: s.evalAdapter } : {}),
      }, (done, total, stage) => set({ evalProgress: { done, total, stage } }));
      set({ evalReport: report, evalProgress: null });
      if (report.savedTo) await get().refreshAdapterRuns();
    } catch (e) {
      set({ evalError: (e as Error).message, evalProgress: null });
    }
  },
});
