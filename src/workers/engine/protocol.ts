// The engine worker's protocol (src/workers/engine/engine.worker.ts <-> client.ts): one discriminated
// union of requests `{kind, id, ...}`, each answered by exactly one `result` or `error` with the
// same id; run events and load progress are their own kinds (no id of a request they answer);
// file bytes are transferred, not copied. Exercised by tests/e2e/run-worker.spec.ts.
import type { ChatMessage } from '../../agents/chat-template';
import type { ChatSettings } from '../../rl/chat-agent';
import type { EvalReport } from '../../rl/eval-run';
import type { RunCommand, RunEvent } from '../../run/events';
import type { TypicalLengths } from '../../run/typical-lengths';
import type { ModelReport } from './inspect';
import type { RunPlan } from './plan';
import type { DatasetTokenPreview, PreviewData } from './preview-tokens';
import type { RunExport, RunSummary } from './run-scan';
import type { StepTime } from './step-time';

/**
 * Where the model comes from: a URL folder served with the app (/models/stories260K), dropped files
 * (`paths` when the File names lack their folder, e.g. a dropped directory), or a folder the studio
 * keeps in the browser's Origin Private File System (`opfs: "models/NAME"`, src/workers/engine/user-models.ts).
 */
export type ModelSource = { url: string } | { files: File[]; paths?: string[] } | { opfs: string };

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

/** One tool call of a chat turn as the page shows it: the call's JSON and the response the model read. */
export interface ChatToolResult {
  name: string;
  args: Record<string, unknown> | null;
  ok: boolean;
  error?: string;
  text: string;
  latencyMs: number;
}

/** A chat reply as it streams: each assistant turn's text, then the results of its tool calls. */
export type ChatEvent =
  | { type: 'turn-start' }
  | { type: 'text'; text: string }
  | { type: 'turn-end' }
  | { type: 'tools'; results: ChatToolResult[] };

export type EngineRequest =
  | { kind: 'load-model'; id: number; source: ModelSource; quant: 'none' | 'nf4'; quantEmbeddings?: boolean; tune?: boolean }
  | { kind: 'start-run'; id: number; modelId: string; configYaml: string; dataset?: DatasetSource; runId?: string }
  | { kind: 'command'; id: number; runId: string; command: RunCommand }
  | { kind: 'run-state'; id: number; runId: string }
  | { kind: 'list-run'; id: number; runId: string }
  | { kind: 'read-run-file'; id: number; runId: string; path: string }
  | { kind: 'inspect-model'; id: number; source: ModelSource }
  | { kind: 'import-model'; id: number; name: string; files: File[]; paths: string[] }
  | { kind: 'list-models'; id: number }
  | { kind: 'remove-model'; id: number; name: string }
  | { kind: 'scan-runs'; id: number }
  | { kind: 'export-run'; id: number; runId: string; parts: RunExport['parts'] }
  | { kind: 'list-runs'; id: number }
  /** Continues a stored run from its newest checkpoint (as the CLI's --resume); its data: `dataset`, else the one it started with. */
  | { kind: 'resume-run'; id: number; runId: string; modelId: string; dataset?: DatasetSource }
  /** Writes a run folder's files (paths relative to it; bytes transferred) as runs/runId/. */
  | { kind: 'import-run'; id: number; runId: string; files: { path: string; bytes: Uint8Array }[] }
  | { kind: 'delete-run'; id: number; runId: string }
  /** One reply of the config's agent (its env's tools, run in the worker) to `messages` (no system
   * message: the env's is put first); `adapter` = a run id whose adapter/ folder is in OPFS. */
  | { kind: 'chat'; id: number; modelId: string; configYaml: string; messages: ChatMessage[]; settings: ChatSettings; adapter?: string }
  /** The config's held-out split (or `dataset`), first `tasks` tasks (0 = all), `samples` per task, scored for
   * the base and, when given, the adapter of run `adapter` (then saved as its eval.json); progress as `progress`. */
  | { kind: 'evaluate'; id: number; modelId: string; configYaml: string; split: 'eval' | 'train'; tasks: number; samples: number; dataset?: DatasetSource; adapter?: string }
  /** The text of each token under a loaded model's tokenizer (src/workers/engine/decode.ts). */
  | { kind: 'decode-tokens'; id: number; modelId: string; tokens: number[] }
  /** Per-token log-probs of `text` as `cli logprobs` gives them (score.ts); `adapter` = a run id whose adapter/ is in OPFS. */
  | { kind: 'score-text'; id: number; modelId: string; text: string; adapter?: string }
  /** The GPU memory plan of a run of `configYaml` on the model at `source`, against this worker's device limits (plan.ts). */
  | { kind: 'plan-run'; id: number; source: ModelSource; configYaml: string }
  /** A dataset's first lines as the model at `source` reads them under `configYaml` (null: it does not validate): task
   * lines as a run's first input (tools listed), SFT lines with the SFT loader's mask and length checks (no weights; preview-tokens.ts). */
  | { kind: 'preview-tokens'; id: number; source: ModelSource; configYaml: string | null; data: PreviewData }
  /** One training step of `configYaml` timed on loaded model `modelId` at `lengths` (else the upper bound; step-time.ts); progress as `progress`. */
  | { kind: 'time-step'; id: number; modelId: string; configYaml: string; lengths?: TypicalLengths | null };

/** How a stored run stands: training in this worker, ended (status.json), or cut off (no end record). */
export type StoredRunState = 'live' | 'finished' | 'cancelled' | 'failed' | 'cut-off';

/** StoredRun.message of a run another tab's worker trains (it holds the run's lock). */
export const TRAINING_ELSEWHERE = 'training in another tab';

/** One run folder of OPFS runs/, summarised for the Runs panel. */
export interface StoredRun {
  runId: string;
  /** From config.yaml (null when it has none). */
  trainer: string | null;
  env: string | null;
  model: string | null;
  quant: string | null;
  /** model.quant_embeddings of the config (false when it does not parse). */
  quantEmbeddings: boolean;
  /** The last metrics.jsonl row's step. */
  steps: number;
  totalSteps: number | null;
  /** checkpoint or checkpoints/step-N, null when none. */
  lastCheckpoint: string | null;
  state: StoredRunState;
  /** Why it failed, the live phase, or a config.yaml problem. */
  message: string | null;
  endedAt: string | null;
}

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
  /** Config, tokenizer and safetensors headers read (no weights uploaded); problems say why it cannot be used. */
  'inspect-model': ModelReport;
  /** The dropped folder's report; `stored` when it was usable and is now in OPFS models/NAME/. */
  'import-model': { stored: boolean; report: ModelReport };
  /** Names of the model folders kept in OPFS models/. */
  'list-models': string[];
  'remove-model': null;
  /** Every run folder in OPFS runs/. */
  'scan-runs': RunSummary[];
  /** A zip of the run's adapter (or model) and / or its config.yaml + metrics.jsonl (bytes transferred). */
  'export-run': RunExport;
  'list-runs': StoredRun[];
  'resume-run': { runId: string };
  'import-run': StoredRun;
  'delete-run': null;
  /** The whole conversation after the reply (system first), how it ended, the tools offered. */
  chat: { messages: ChatMessage[]; finishReason: string; error: string | null; tools: string[] };
  /** The figures, and where they were saved (the adapter run's eval.json) or null. */
  evaluate: EvalReport & { savedTo: string | null };
  /** One string per token, in order. */
  'decode-tokens': string[];
  /** The token ids (with BOS when the tokenizer adds one), each token's text, and log p(ids[t+1] | ids[..t]) for t < ids.length - 1. */
  'score-text': { ids: number[]; pieces: string[]; logprobs: number[] };
  'plan-run': RunPlan;
  /** Per conversation: token ids and each token's text. */
  'preview-tokens': DatasetTokenPreview;
  'time-step': StepTime;
}

export type EngineReply =
  | { [K in EngineRequestKind]: { kind: 'result'; id: number; request: K; value: EngineResults[K] } }[EngineRequestKind]
  | { kind: 'error'; id: number; message: string }
  /** A run's event, without file bytes (paths stay). */
  | { kind: 'event'; runId: string; event: RunEvent }
  /** Model loading progress of request `id`. */
  | { kind: 'progress'; id: number; done: number; total: number; stage: string }
  /** The GPU device was lost: every run listed failed; resume from its last checkpoint. */
  | { kind: 'fatal'; message: string; runs: RunStatus[] }
  /** A streamed piece of chat request `id`'s reply. */
  | { kind: 'chat-event'; id: number; event: ChatEvent };

/** A request's fields without kind and id (what the client's callers pass). */
export type EngineCall<K extends EngineRequestKind> = Omit<Extract<EngineRequest, { kind: K }>, 'id' | 'kind'>;
