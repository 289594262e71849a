// Store slice for the Run panel: Start from the Config panel (load the model, pick the data, start
// the run in the engine worker, show the Run panel), the runs watched on this page (status, metric
// rows, the last rollouts, warnings; events batched so a burst of rollouts is one update), the run
// shown, its commands (pause / resume / stop / checkpoint now) and token text for the rollout
// detail. attachRun lets the Runs panel hand over a resumed run. Exercised by tests/e2e/studio-run.spec.ts.
import type { StateCreator } from 'zustand';
import type { RunEvent } from '../run/events';
import type { DatasetSource } from '../workers/engine/protocol';
import { fetchShipped } from '../ui/datasets/shipped-urls';
import { engine, onRunEvent } from './engine';
import { applyRunEvents, applyStatus, newRunView, type RunView } from './run-view';
import { dataForConfig, modelForConfig } from './run-start';
import type { StudioState } from './store';

export type RunCommandKind = 'pause' | 'resume' | 'stop' | 'checkpoint';

export interface RunSlice {
  runs: Record<string, RunView>;
  shownRun: string | null;
  /** What Start is doing (shown beside it), null when idle. */
  runStarting: 'model' | 'data' | 'run' | null;
  /** Why the last Start failed and what to do (shown beside Start). */
  runStartError: string | null;
  /** The last command's error (shown beside the run's buttons). */
  runCommandError: string | null;
  /** Token text per model and token-id sequence key (see tokenKey), for the rollout detail. */
  tokenText: Record<string, string[] | { error: string }>;
  startRun: () => Promise<void>;
  attachRun: (runId: string, modelId?: string) => Promise<void>;
  runCommand: (kind: RunCommandKind) => Promise<void>;
  loadTokenText: (modelId: string, tokens: number[]) => Promise<void>;
}

/** The tokenText key of a sequence under a model. */
export const tokenKey = (modelId: string, tokens: readonly number[]): string => `${modelId}|${tokens.length}|${tokens.join(',')}`;

/** Events wait this long so a step's burst (metrics, rollouts, progress) reaches React as one update. */
const FLUSH_MS = 120;

export const createRunSlice: StateCreator<StudioState, [], [], RunSlice> = (set, get) => {
  let listening = false;
  let queue: { runId: string; event: RunEvent }[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;

  const flush = () => {
    timer = null;
    const batch = queue;
    queue = [];
    const byRun = new Map<string, RunEvent[]>();
    for (const q of batch) byRun.set(q.runId, [...(byRun.get(q.runId) ?? []), q.event]);
    const now = Date.now(), runs = { ...get().runs };
    for (const [runId, events] of byRun) runs[runId] = applyRunEvents(runs[runId] ?? newRunView(runId, null, now), events, now);
    set({ runs });
    for (const runId of byRun.keys()) if (runs[runId].phase === 'paused' && !runs[runId].holding) watchHold(runId);
  };

  /** A pause takes effect after the current step: ask the worker until the loop holds. */
  const holdTimers = new Set<string>();
  const watchHold = (runId: string) => {
    if (holdTimers.has(runId)) return;
    holdTimers.add(runId);
    const tick = async () => {
      const v = get().runs[runId];
      if (!v || v.phase !== 'paused' || v.holding) return holdTimers.delete(runId);
      try {
        const status = await engine().state(runId);
        set({ runs: { ...get().runs, [runId]: applyStatus(get().runs[runId], status) } });
      } catch {
        return holdTimers.delete(runId);
      }
      setTimeout(() => void tick(), 1000);
    };
    setTimeout(() => void tick(), 300);
  };

  /** Receive every run's events from here on (before any start, so none is missed). */
  const listen = () => {
    if (listening) return;
    listening = true;
    onRunEvent((runId, event) => {
      queue.push({ runId, event });
      timer ??= setTimeout(flush, FLUSH_MS);
    });
  };

  const datasetOf = async (): Promise<DatasetSource | undefined> => {
    const s = get(), check = s.configCheck;
    if (!check.ok) return undefined;
    const opened = s.datasetSource;
    const choice = dataForConfig(check.config, opened?.fileName ?? null);
    if ('error' in choice) throw new Error(choice.error);
    if (choice.kind === 'none') return undefined;
    if (choice.kind === 'shipped') return { text: await (await fetchShipped(choice.file)).text(), name: `datasets/${choice.file}` };
    const src = opened!.source;
    const text = 'blob' in src ? await src.blob.text() : await (await fetch(src.url)).text();
    return { text, name: opened!.fileName };
  };

  return {
    runs: {},
    shownRun: null,
    runStarting: null,
    runStartError: null,
    runCommandError: null,
    tokenText: {},

    startRun: async () => {
      const s = get(), check = s.configCheck;
      if (!check.ok || s.runStarting) return;
      const cfg = check.config, yaml = s.configText;
      const model = modelForConfig(cfg, s.models, s.selectedModel);
      if ('error' in model) return set({ runStartError: model.error });
      set({ runStartError: null, runStarting: 'model' });
      let stage = 'restarting the engine';
      try {
        listen();
        await get().ensureEngine();
        stage = 'loading the model';
        const info = await get().ensureModel(cfg.model.quant, model.name, cfg.model.quant_embeddings);
        stage = 'reading the data';
        set({ runStarting: 'data' });
        const dataset = await datasetOf();
        stage = 'starting the run';
        set({ runStarting: 'run' });
        const { runId } = await engine().startRun({ modelId: info.modelId, configYaml: yaml, ...(dataset ? { dataset } : {}) });
        set({ runStarting: null });
        await get().attachRun(runId, info.modelId);
        get().setPanel('run');
      } catch (e) {
        set({ runStarting: null, runStartError: `Start failed while ${stage}: ${(e as Error).message}` });
      }
    },

    attachRun: async (runId, modelId) => {
      listen();
      const have = get().runs[runId] ?? newRunView(runId, modelId ?? null, Date.now());
      set({ runs: { ...get().runs, [runId]: modelId ? { ...have, modelId } : have }, shownRun: runId, runCommandError: null });
      try {
        const status = await engine().state(runId);
        set({ runs: { ...get().runs, [runId]: applyStatus(get().runs[runId], status) } });
      } catch (e) {
        set({ runCommandError: `run ${runId}: ${(e as Error).message}` });
      }
    },

    runCommand: async (kind) => {
      const runId = get().shownRun;
      if (!runId) return;
      set({ runCommandError: null });
      try {
        const c = engine();
        const status = await (kind === 'pause' ? c.pause(runId) : kind === 'resume' ? c.resume(runId) : kind === 'stop' ? c.stop(runId) : c.checkpointNow(runId));
        set({ runs: { ...get().runs, [runId]: applyStatus(get().runs[runId], status) } });
        if (status.phase === 'paused' && !status.holding) watchHold(runId);
      } catch (e) {
        set({ runCommandError: `${kind === 'checkpoint' ? 'Checkpoint now' : kind} failed: ${(e as Error).message}` });
      }
    },

    loadTokenText: async (modelId, tokens) => {
      const key = tokenKey(modelId, tokens);
      if (get().tokenText[key]) return;
      try {
        const pieces = await engine().decodeTokens(modelId, tokens);
        set({ tokenText: { ...get().tokenText, [key]: pieces } });
      } catch (e) {
        set({ tokenText: { ...get().tokenText, [key]: { error: (e as Error).message } } });
      }
    },
  };
};
