// The page's side of the engine worker: typed calls (loadModel, startRun, pause / resume / stop /
// checkpointNow, state, listRun, readRunFile, chat, evaluate; inspectModel, importModel, listModels,
// removeModel, scanRuns, exportRun for the Models and Export panels; listRuns, resumeRun, importRun,
// deleteRun for stored runs), each a promise of the matching result; run events to listeners, a
// chat's streamed pieces to its caller. When the worker dies or the GPU device is lost, pending
// calls reject, every live run is reported failed with its last checkpoint named and onDown
// listeners hear why (the studio then offers Restart engine: a new client, worker and device;
// `settled` lets the old worker finish writing its failed runs first). No React here: the
// studio's store wraps it (src/store/engine.ts). Exercised by tests/e2e/run-worker.spec.ts (src/harness/run-worker.harness.ts).
import type { RunCommand, RunEvent } from '../../run/events';
import type { ChatEvent, EngineCall, EngineReply, EngineRequest, EngineRequestKind, EngineResults, RunStatus, StoredRun } from './protocol';

export type RunListener = (runId: string, e: RunEvent) => void;

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  onProgress?: (done: number, total: number, stage: string) => void;
  onChat?: (e: ChatEvent) => void;
}

export class EngineClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<RunListener>();
  /** The last checkpoint and whether each run is still live, from its events. */
  private readonly runs = new Map<string, { lastCheckpoint: string | null; live: boolean }>();
  /** Why the worker is gone (every later call rejects with it), null while it lives. */
  private dead: string | null = null;
  /** Why the engine cannot train any more (its worker died or its GPU device was lost), null while it can. */
  private downReason: string | null = null;
  private readonly downListeners = new Set<(reason: string) => void>();
  /** Runs failed by a device loss whose worker has not yet reported their own end (status.json written). */
  private readonly ending = new Set<string>();
  private endWaiters: (() => void)[] = [];

  constructor(private readonly worker: Worker) {
    worker.onmessage = (e: MessageEvent<EngineReply>) => this.receive(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      // An uncaught error leaves the worker's state unknown; it would keep training behind a page
      // that reported its runs failed: end it, so the checkpoint named is the last one written.
      worker.terminate();
      this.crash(`the engine worker crashed (${e.message || 'no message'}); Restart engine (Run or Runs panel) starts a new one, or reload the page`);
    };
  }

  /** A client over a new engine worker (bundled by Vite). */
  static create(): EngineClient {
    return new EngineClient(new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module', name: 'engine' }));
  }

  onEvent(l: RunListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Called once when the worker dies or its GPU device is lost (with the message the runs got). */
  onDown(l: (reason: string) => void): () => void {
    this.downListeners.add(l);
    return () => this.downListeners.delete(l);
  }

  /** Why this engine can no longer train (null while it can): start a new client then. */
  get down(): string | null {
    return this.downReason;
  }

  /**
   * Resolves once every run failed by a device loss has had its own end from the worker (its
   * run folder's status.json is then written), or after `timeoutMs`: call before terminating a
   * worker whose device was lost.
   */
  settled(timeoutMs: number): Promise<void> {
    if (!this.ending.size || this.dead) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.endWaiters.push(() => { clearTimeout(timer); resolve(); });
    });
  }

  loadModel(call: EngineCall<'load-model'>, onProgress?: Pending['onProgress']): Promise<EngineResults['load-model']> {
    return this.request('load-model', call, onProgress);
  }

  startRun(call: EngineCall<'start-run'>): Promise<EngineResults['start-run']> {
    return this.request('start-run', call);
  }

  command(runId: string, command: RunCommand): Promise<RunStatus> {
    return this.request('command', { runId, command });
  }

  pause = (runId: string) => this.command(runId, { kind: 'pause' });
  resume = (runId: string) => this.command(runId, { kind: 'resume' });
  stop = (runId: string) => this.command(runId, { kind: 'stop' });
  checkpointNow = (runId: string) => this.command(runId, { kind: 'checkpoint' });

  state(runId: string): Promise<RunStatus> {
    return this.request('run-state', { runId });
  }

  listRun(runId: string): Promise<string[]> {
    return this.request('list-run', { runId });
  }

  readRunFile(runId: string, path: string): Promise<Uint8Array | null> {
    return this.request('read-run-file', { runId, path });
  }

  inspectModel(source: EngineCall<'inspect-model'>['source']): Promise<EngineResults['inspect-model']> {
    return this.request('inspect-model', { source });
  }

  importModel(call: EngineCall<'import-model'>, onProgress?: Pending['onProgress']): Promise<EngineResults['import-model']> {
    return this.request('import-model', call, onProgress);
  }

  listModels(): Promise<string[]> {
    return this.request('list-models', {});
  }

  removeModel(name: string): Promise<null> {
    return this.request('remove-model', { name });
  }

  scanRuns(): Promise<EngineResults['scan-runs']> {
    return this.request('scan-runs', {});
  }

  exportRun(runId: string, parts: EngineCall<'export-run'>['parts']): Promise<EngineResults['export-run']> {
    return this.request('export-run', { runId, parts });
  }

  listRuns(): Promise<StoredRun[]> {
    return this.request('list-runs', {});
  }

  resumeRun(call: EngineCall<'resume-run'>): Promise<EngineResults['resume-run']> {
    return this.request('resume-run', call);
  }

  /** The files' bytes are transferred (the caller's arrays are emptied). */
  importRun(runId: string, files: { path: string; bytes: Uint8Array }[]): Promise<StoredRun> {
    return this.request('import-run', { runId, files }, undefined, [...new Set(files.map((f) => f.bytes.buffer as ArrayBuffer))]);
  }

  deleteRun(runId: string): Promise<null> {
    return this.request('delete-run', { runId });
  }

  /** One agent reply; `onEvent` gets its text and tool results as they come. */
  chat(call: EngineCall<'chat'>, onEvent: (e: ChatEvent) => void): Promise<EngineResults['chat']> {
    return this.request('chat', call, undefined, [], onEvent);
  }

  /** Scores base (and adapter) on a held-out split; `onProgress` counts tasks done over both. */
  evaluate(call: EngineCall<'evaluate'>, onProgress?: Pending['onProgress']): Promise<EngineResults['evaluate']> {
    return this.request('evaluate', call, onProgress);
  }

  decodeTokens(modelId: string, tokens: number[]): Promise<string[]> {
    return this.request('decode-tokens', { modelId, tokens });
  }

  /** The memory plan of a run before Start (no weights loaded). */
  planRun(call: EngineCall<'plan-run'>): Promise<EngineResults['plan-run']> {
    return this.request('plan-run', call);
  }

  /** The tokens of each conversation as a model folder's chat template and tokenizer make them (no weights loaded). */
  previewTokens(call: EngineCall<'preview-tokens'>): Promise<EngineResults['preview-tokens']> {
    return this.request('preview-tokens', call);
  }

  /** One training step of the config timed on a loaded model; `onProgress` names the piece being timed. */
  timeStep(call: EngineCall<'time-step'>, onProgress?: Pending['onProgress']): Promise<EngineResults['time-step']> {
    return this.request('time-step', call, onProgress);
  }

  /** Per-token log-probs of a text (as `cli logprobs`), for the base or a run's adapter. */
  scoreText(call: EngineCall<'score-text'>): Promise<EngineResults['score-text']> {
    return this.request('score-text', call);
  }

  terminate(): void {
    this.worker.terminate();
    this.crash('the engine worker was terminated');
  }

  private request<K extends EngineRequestKind>(kind: K, call: EngineCall<K>, onProgress?: Pending['onProgress'], transfer: Transferable[] = [], onChat?: Pending['onChat']): Promise<EngineResults[K]> {
    const id = this.nextId++;
    if (this.dead) return Promise.reject(new Error(this.dead));
    return new Promise<EngineResults[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress, onChat });
      const msg = { ...call, kind, id } as unknown as EngineRequest;
      this.worker.postMessage(msg, transfer);
    });
  }

  private receive(m: EngineReply): void {
    if (this.dead) return;   // a message posted before the worker was ended
    switch (m.kind) {
      case 'result':
      case 'error': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.kind === 'result') p.resolve(m.value);
        else p.reject(new Error(m.message));
        return;
      }
      case 'progress':
        this.pending.get(m.id)?.onProgress?.(m.done, m.total, m.stage);
        return;
      case 'chat-event':
        this.pending.get(m.id)?.onChat?.(m.event);
        return;
      case 'event': {
        const r = this.runs.get(m.runId) ?? { lastCheckpoint: null, live: true };
        if (m.event.kind === 'checkpoint') r.lastCheckpoint = m.event.path;
        if (m.event.kind === 'finished' || m.event.kind === 'failed' || m.event.kind === 'cancelled') {
          r.live = false;
          this.ended(m.runId);
        }
        this.runs.set(m.runId, r);
        this.emit(m.runId, m.event);
        return;
      }
      case 'fatal':
        for (const s of m.runs) {
          this.ending.add(s.runId);
          this.fail(s.runId, m.message, s.step, s.lastCheckpoint);
        }
        this.goDown(m.message);
        return;
    }
  }

  private emit(runId: string, e: RunEvent): void {
    for (const l of this.listeners) l(runId, e);
  }

  private fail(runId: string, message: string, step: number, lastCheckpoint: string | null): void {
    const r = this.runs.get(runId);
    if (r && !r.live) return;
    this.runs.set(runId, { lastCheckpoint, live: false });
    this.emit(runId, { kind: 'failed', step, message: `${message}; ${lastCheckpoint ? `the last checkpoint is ${lastCheckpoint}` : 'no checkpoint was written'}`, lastCheckpoint });
  }

  /** The worker is gone: every call rejects, every live run fails naming its last checkpoint. */
  private crash(message: string): void {
    this.dead = message;
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
    for (const [runId, r] of this.runs) if (r.live) this.fail(runId, message, -1, r.lastCheckpoint);
    this.ending.clear();
    for (const w of this.endWaiters.splice(0)) w();
    this.goDown(message);
  }

  private ended(runId: string): void {
    if (!this.ending.delete(runId) || this.ending.size) return;
    for (const w of this.endWaiters.splice(0)) w();
  }

  private goDown(reason: string): void {
    if (this.downReason !== null) return;
    this.downReason = reason;
    for (const l of this.downListeners) l(reason);
  }
}
