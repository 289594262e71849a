// Store slice for the Playground panel: the adapters kept in OPFS (runs with adapter/), the one
// picked, the decoding settings, and the last prompt's replies, base and adapter side by side,
// filled as the engine worker streams them (turn text, then each tool call with its response).
// Tools and system prompt come from the Config panel's config. Exercised by
// tests/e2e/studio-playground.spec.ts.
import type { StateCreator } from 'zustand';
import type { ChatSettings } from '../rl/chat-agent';
import { listAdapterRuns, type AdapterRun } from '../run/opfs-runs';
import type { ChatEvent, ChatToolResult } from '../workers/engine/protocol';
import { engine } from './engine';
import type { StudioState } from './store';

/** One piece of a reply: an assistant turn's text, or one tool call with the response the model read. */
export type PlayItem = { kind: 'turn'; text: string } | ({ kind: 'tool' } & ChatToolResult);

export interface PlayColumn {
  /** "base" or the adapter's run id. */
  adapter: string | null;
  items: PlayItem[];
  running: boolean;
  finishReason: string | null;
  error: string | null;
}

export interface PlaygroundSlice {
  adapterRuns: AdapterRun[] | null;
  adapterRunsError: string | null;
  /** Run id of the adapter compared with the base ('' = base only). */
  playAdapter: string;
  playSettings: ChatSettings;
  playPrompt: string | null;
  playColumns: PlayColumn[];
  playError: string | null;
  refreshAdapterRuns: () => Promise<void>;
  setPlayAdapter: (runId: string) => void;
  setPlaySetting: (key: keyof ChatSettings, value: number) => void;
  /** The prompt to the base and (when picked) the adapter, one after the other, same settings and seed. */
  sendPrompt: (prompt: string) => Promise<void>;
}

/** The CLI chat's defaults (`npm run cli -- chat`): greedy, seed 0, 128 tokens per turn, 4 turns. */
export const DEFAULT_CHAT_SETTINGS: ChatSettings = { temperature: 0, seed: 0, maxNewTokens: 128, maxTurns: 4 };

/** The column's items after one streamed event. */
function applyEvent(items: PlayItem[], e: ChatEvent): PlayItem[] {
  switch (e.type) {
    case 'turn-start': return [...items, { kind: 'turn', text: '' }];
    case 'text': {
      const last = items.at(-1);
      return last?.kind === 'turn' ? [...items.slice(0, -1), { kind: 'turn', text: last.text + e.text }] : [...items, { kind: 'turn', text: e.text }];
    }
    case 'turn-end': return items;
    case 'tools': return [...items, ...e.results.map((r) => ({ kind: 'tool' as const, ...r }))];
  }
}

export const createPlaygroundSlice: StateCreator<StudioState, [], [], PlaygroundSlice> = (set, get) => ({
  adapterRuns: null,
  adapterRunsError: null,
  playAdapter: '',
  playSettings: DEFAULT_CHAT_SETTINGS,
  playPrompt: null,
  playColumns: [],
  playError: null,

  refreshAdapterRuns: async () => {
    try {
      const runs = await listAdapterRuns();
      set({ adapterRuns: runs, adapterRunsError: null, ...(runs.some((r) => r.runId === get().playAdapter) ? {} : { playAdapter: '' }) });
    } catch (e) {
      set({ adapterRuns: [], adapterRunsError: `could not list the runs kept in this browser (OPFS): ${(e as Error).message}` });
    }
  },
  setPlayAdapter: (runId) => set({ playAdapter: runId }),
  setPlaySetting: (key, value) => set({ playSettings: { ...get().playSettings, [key]: value } }),
  sendPrompt: async (prompt) => {
    const check = get().configCheck;
    if (!check.ok) {
      set({ playError: `The Config panel's config does not validate (${check.problem.message}); fix it there: its environment gives the tools.` });
      return;
    }
    const adapters = [null, ...(get().playAdapter ? [get().playAdapter] : [])];
    const settings = get().playSettings;
    set({ playPrompt: prompt, playError: null, playColumns: adapters.map((adapter) => ({ adapter, items: [], running: true, finishReason: null, error: null })) });
    let modelId: string;
    try {
      modelId = (await get().ensureModel(check.config.model.quant, undefined, check.config.model.quant_embeddings)).modelId;
    } catch (e) {
      set({ playError: `Loading ${get().selectedModel} failed: ${(e as Error).message}`, playColumns: [] });
      return;
    }
    const update = (i: number, f: (c: PlayColumn) => Partial<PlayColumn>) =>
      set({ playColumns: get().playColumns.map((c, k) => (k === i ? { ...c, ...f(c) } : c)) });
    for (const [i, adapter] of adapters.entries()) {
      try {
        const r = await engine().chat({
          modelId, configYaml: get().configText, messages: [{ role: 'user', content: prompt }], settings, ...(adapter ? { adapter } : {}),
        }, (e) => update(i, (c) => ({ items: applyEvent(c.items, e) })));
        update(i, () => ({ running: false, finishReason: r.finishReason, error: r.error }));
      } catch (e) {
        update(i, () => ({ running: false, error: (e as Error).message }));
      }
    }
  },
});
