// The message protocol between the sandbox pool and one Python worker (browser Web Worker or
// a Node sandbox process): one discriminated union each way. Every request {kind, id} gets exactly
// one `result` or `error`; streamed output, per-check results and test plans are their own kinds.
import type { PyValue } from './py-value';

/**
 * A memory image of Pyodide just after it loaded, before any code of ours or a user's ran (made by
 * a `snapshot` request, restored by `init`): its bytes, or the name of a file in the worker's own
 * folder holding them (the Node process port moves the bytes through files, not its IPC channel).
 */
export type SnapshotData = { bytes: Uint8Array } | { file: string };

/** Pool -> worker. */
export type SandboxRequest =
  | {
      kind: 'init';
      id: number;
      /** URL (browser) or directory (Node) holding pyodide.mjs, the wasm and the stdlib. */
      indexURL: string;
      /** Int32 SharedArrayBuffer the pool writes 2 into to interrupt Python; absent without isolation. */
      interrupt?: SharedArrayBuffer;
      maxMemoryBytes: number;
      maxRecursionLimit: number;
      /** Start from this image instead of loading Pyodide from scratch (Pyodide's load in about a third of the time). */
      snapshot?: SnapshotData;
    }
  /** Load Pyodide, reply with its memory image, and serve nothing else: the pool then ends this worker. */
  | { kind: 'snapshot'; id: number; indexURL: string; maxMemoryBytes: number }
  | { kind: 'run'; id: number; code: string; stdin?: string; episode?: string; maxOutputBytes: number }
  /** Dataset code only (no solution): split each assert into what to evaluate and the expected value. */
  | { kind: 'plan'; id: number; tests: string[]; maxOutputBytes: number }
  /** The solution, then each check in its namespace; expected values are never sent. */
  | { kind: 'tests'; id: number; code: string; setup?: string; checks: Check[]; maxOutputBytes: number }
  | { kind: 'endEpisode'; id: number; episode: string };

/** What the solution's worker runs per test: an expression whose value the pool compares, or a whole assert. */
export type Check = { kind: 'value'; expr: string } | { kind: 'assert'; test: string };

/** How a test is graded, decided without the solution: compare `probe`'s value with `expected`, or run it whole. */
export type TestPlan = { kind: 'compare'; probe: string; expected: PyValue } | { kind: 'assert'; test: string };

export type CheckResult = { kind: 'passed' } | { kind: 'value'; value: PyValue } | { kind: 'failed'; error: string };

/** What a run reports back; output itself arrives as `output` messages before it. */
export interface RunOutcome {
  errorType: string | null;
  errorMessage: string | null;
  /** Output went past maxOutputBytes and was cut. */
  truncated: boolean;
  /** The interpreter is unusable (fatal error, JS stack overflow): replace the worker. */
  fatal: boolean;
  /** What the job changed outside its namespace (stdlib, files, hooks, the JS bridge): the result stands, the worker is replaced. */
  recycle?: string[];
}

export interface InitInfo {
  pyodideVersion: string;
  pythonVersion: string;
  startMs: number;
  heapBytes: number;
  interruptible: boolean;
  /** Started from a snapshot (SnapshotData) rather than by loading Pyodide from scratch. */
  fromSnapshot: boolean;
}

/** Worker -> pool. */
export type SandboxReply =
  | { kind: 'result'; id: number; for: 'init'; info: InitInfo }
  | { kind: 'result'; id: number; for: 'run'; outcome: RunOutcome }
  | { kind: 'result'; id: number; for: 'endEpisode' }
  | { kind: 'snapshot'; id: number; data: SnapshotData }
  | { kind: 'error'; id: number; message: string }
  /** A chunk of output; `cut` when the worker reached maxOutputBytes with it. */
  | { kind: 'output'; id: number; stream: 'stdout' | 'stderr'; text: string; cut?: boolean }
  | { kind: 'solution'; id: number; ok: boolean }
  | { kind: 'check'; id: number; index: number; result: CheckResult }
  | { kind: 'plan'; id: number; plans: TestPlan[] }
  /** The worker found itself broken before running the job (output wiring): replace it, requeue the job. */
  | { kind: 'poisoned'; id: number; reason: string };

/** Anything that carries the protocol: a Web Worker or a worker_threads Worker, wrapped. */
export interface SandboxPort {
  /** The worker shares memory with the pool (SharedArrayBuffer interrupts); false for OS processes. */
  readonly sharesMemory: boolean;
  post(msg: SandboxRequest): void;
  /** Called for every reply; `onExit` when the worker dies or fails to load. */
  listen(onReply: (msg: SandboxReply) => void, onExit: (reason: string) => void): void;
  terminate(): void;
}

export type SandboxPortFactory = () => SandboxPort;
