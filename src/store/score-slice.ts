// Store slice for the Playground's "Score text" box: the per-token log-probs of a fixed text under
// the base model and, when one is picked, the Playground's adapter, computed by the engine worker
// exactly as `npm run cli -- logprobs` (src/workers/engine/score.ts). Exercised by
// tests/e2e/studio-first-run.spec.ts (compared with the CLI's figures).
import type { StateCreator } from 'zustand';
import { engine } from './engine';
import type { StudioState } from './store';

/** One policy's scores: its token ids, their text and log p(token t+1 | tokens <= t). */
export interface ScoreColumn {
  /** null = base; else the adapter's run id. */
  adapter: string | null;
  ids: number[];
  pieces: string[];
  logprobs: number[];
  error: string | null;
}

export interface ScoreSlice {
  scoreColumns: ScoreColumn[];
  scoring: boolean;
  scoreError: string | null;
  /** Scores `text` under the base and (when picked) the Playground's adapter, one after the other. */
  scoreText: (text: string) => Promise<void>;
}

export const createScoreSlice: StateCreator<StudioState, [], [], ScoreSlice> = (set, get) => ({
  scoreColumns: [],
  scoring: false,
  scoreError: null,

  scoreText: async (text) => {
    const check = get().configCheck;
    if (!check.ok) {
      set({ scoreError: `The Config panel's config does not validate (${check.problem.message}); fix it there: its model.quant says how the model is loaded.` });
      return;
    }
    set({ scoring: true, scoreError: null, scoreColumns: [] });
    try {
      const { modelId } = await get().ensureModel(check.config.model.quant, undefined, check.config.model.quant_embeddings);
      const columns: ScoreColumn[] = [];
      for (const adapter of [null, ...(get().playAdapter ? [get().playAdapter] : [])]) {
        try {
          const r = await engine().scoreText({ modelId, text, ...(adapter ? { adapter } : {}) });
          columns.push({ adapter, ...r, error: null });
        } catch (e) {
          columns.push({ adapter, ids: [], pieces: [], logprobs: [], error: (e as Error).message });
        }
        set({ scoreColumns: [...columns] });
      }
    } catch (e) {
      set({ scoreError: `Loading ${get().selectedModel} failed: ${(e as Error).message}` });
    } finally {
      set({ scoring: false });
    }
  },
});
