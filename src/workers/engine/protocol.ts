// The engine worker's protocol (src/workers/engine/engine.worker.ts <-> client.ts): one discriminated
// union of requests `{kind, id, ...}`, each answered by exactly one `result` or `error` with the
// same id; run events and load progress are their own kinds (no id of a request they answer);
// file bytes are transferred, not copied. Exercised by tests/e2e/run-worker.spec.ts.
import type { RunCommand, RunEvent } from '../../run/events';

/** Where the model comes from: a URL folder served with the app (/models/stories260K) or dropped files. */
export type ModelSource = { url: string } | { files: File[] };

/** The run's task data: a task file's text, or the name of a shipped file under /datasets/; none for the story env. */
export type DatasetSource = { text: string; name: string } | { shipped: string };

export type RunPhase = 'starting' | 'running' | 'paused' | 'stopping' | 'finished' | 'failed' | 'cancelled';

export interface RunStatus {
  runId: string;
  /** Requested state; `holding` says whether the loop is actually held between steps (paused). */
  phase: RunPhase;
  holding: boolean;
  step: number;
  total: number;
  lastCheckpoint: string | null;
  error: string | null;
}

export interface ModelInfo {
  modelId: string;
  architecture: string;
  numLayers: number;
  hiddenSize: number;
  vocabSize: number;
  weightBytes: number;
}

export type EngineRequest =
  | { kind: 'load-model'; id: number; source: ModelSource; quant: 'none' | 'nf4'; quantEmbeddings?: boolean; tune?: boolean }
  | { kind: 'start-run'; id: number; modelId: string; configYaml: string; dataset?: DatasetSource; runId?: string }
  | { kind: 'command'; id: number; runId: string; command: RunCommand }
  | { kind: 'run-state'; id: number; runId: string }
  | { kind: 'list-run'; id: number; runId: string }
  | { kind: 'read-run-file'; id: number; runId: string; path: string }
  /** The text of each token under a loaded model's tokenizer (src/workers/engine/decode.ts). */
  | { kind: 'decode-tokens'; id: number; modelId: string; tokens: number[] };

export type EngineRequestKind = EngineRequest['kind'];

/** What each request's `result` holds. */
export interface EngineResults {
  'load-model': ModelInfo;
  'start-run': { runId: string };
  command: RunStatus;
  'run-state': RunStatus;
  /** Every file of the run folder (paths relative to it). */
  'list-run': string[];
  /** The file's bytes (transferred), or null when absent. */
  'read-run-file': Uint8Array | null;
  /** One string per token, in order. */
  'decode-tokens': string[];
}

export type EngineReply =
  | { [K in EngineRequestKind]: { kind: 'result'; id: number; request: K; value: EngineResults[K] } }[EngineRequestKind]
  | { kind: 'error'; id: number; message: string }
  /** A run's event, without file bytes (paths stay). */
  | { kind: 'event'; runId: string; event: RunEvent }
  /** Model loading progress of request `id`. */
  | { kind: 'progress'; id: number; done: number; total: number; stage: string }
  /** The GPU device was lost: every run listed failed; resume from its last checkpoint. */
  | { kind: 'fatal'; message: string; runs: RunStatus[] };

/** A request's fields without kind and id (what the client's callers pass). */
export type EngineCall<K extends EngineRequestKind> = Omit<Extract<EngineRequest, { kind: K }>, 'id' | 'kind'>;
