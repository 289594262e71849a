// Public types of the Python sandbox (code_exec): run options and results, per-assert test
// results, and the pool's typed config (defaults, one doc line per field, validation in one place).
// Used by pool.ts, the workers and the python tool; tested by tests/unit/tools/tools-python*.test.ts.

/** Options of one run. */
export interface RunOptions {
  /** Wall-clock budget in ms; the run is interrupted, then its worker killed, when it is spent. */
  timeoutMs?: number;
  /** Cap on stdout + stderr bytes; the run stops with OutputLimitExceeded past it. */
  maxOutputBytes?: number;
  /** Text that `input()` / `sys.stdin` read; EOF after it. */
  stdin?: string;
  /** Episode whose persistent namespace the run uses; omitted = a fresh namespace. */
  episode?: string;
  /** Cancels the run (queued: dropped; running: interrupted like a timeout). */
  signal?: AbortSignal;
}

/** Error types the sandbox itself reports (besides Python's own exception names). */
export type SandboxErrorType =
  | 'Timeout' // the run used up timeoutMs
  | 'OutputLimitExceeded' // stdout + stderr passed maxOutputBytes
  | 'SandboxCrash' // the interpreter died (e.g. JS stack overflow); the worker was replaced
  | 'SandboxUnavailable' // no worker could start
  | 'Aborted'; // the caller's AbortSignal fired

export interface RunResult {
  stdout: string;
  stderr: string;
  /** Python exception class name (e.g. ZeroDivisionError) or a SandboxErrorType; null on success. */
  errorType: string | null;
  errorMessage: string | null;
  durationMs: number;
  /** Output was cut at maxOutputBytes. */
  truncated: boolean;
  timedOut: boolean;
  /** The episode's namespace was lost since its previous run (its worker was replaced). */
  namespaceLost?: boolean;
  /** What the run changed outside its namespace (stdlib modules, files, hooks, the JS bridge); its worker was replaced. */
  changedOutside?: string[];
}

/** One assert of a code-task test (MBPP shape). */
export interface AssertResult {
  test: string;
  passed: boolean;
  /** "ExceptionType: message" for a failure (AssertionError for a false assert). */
  error?: string;
}

export interface TestsResult {
  /** The candidate solution ran without raising (asserts only run when it did). */
  solutionOk: boolean;
  run: RunResult;
  asserts: AssertResult[];
  passed: number;
  total: number;
}

export interface PoolConfig {
  /** Number of warm workers (each one Pyodide interpreter). */
  workers: number;
  /** Default wall-clock budget of a run, ms. */
  timeoutMs: number;
  /** Default cap on stdout + stderr bytes of a run. */
  maxOutputBytes: number;
  /** Cap on one interpreter's wasm heap; allocations past it raise MemoryError. */
  maxMemoryBytes: number;
  /** Highest recursion limit Python code may set (deeper overflows the JS stack and kills the interpreter). */
  maxRecursionLimit: number;
  /** After an interrupt, how long to wait for Python to stop before terminating the worker, ms. */
  interruptGraceMs: number;
  /** Budget for loading Pyodide in a new worker, ms (a CSP without 'wasm-unsafe-eval' hangs it; a loaded
   *  2-core machine has taken over a minute, so the default allows three). */
  startTimeoutMs: number;
  /** A worker is replaced after this many jobs even when no change was detected (a floor under the checks). */
  recycleAfterRuns: number;
  /** Start workers from a memory image of Pyodide just loaded (made once by a worker that runs
   *  nothing else; snapshot-store.ts) instead of loading Pyodide in each: the load in a third of the time.
   *  true: the first worker waits for the image to be made when none is kept or stored; 'lazy': workers
   *  start from a kept or stored image when there is one and load Pyodide otherwise, and the image is
   *  made in the background once a worker has to be replaced (the browser's default); false: never. */
  snapshot: boolean | 'lazy';
}

export const defaultPoolConfig: PoolConfig = {
  workers: 2,
  timeoutMs: 10_000,
  maxOutputBytes: 64 * 1024,
  maxMemoryBytes: 512 * 1024 * 1024,
  maxRecursionLimit: 3000,
  interruptGraceMs: 1000,
  startTimeoutMs: 180_000,
  recycleAfterRuns: 500,
  snapshot: true,
};

export function resolvePoolConfig(partial: Partial<PoolConfig> = {}): PoolConfig {
  const c: PoolConfig = { ...defaultPoolConfig, ...stripUndefined(partial) };
  const positiveInt = (key: Exclude<keyof PoolConfig, 'snapshot'>, min: number, max: number) => {
    const v = c[key];
    if (!Number.isInteger(v) || v < min || v > max) {
      throw new Error(`python pool: ${key} must be an integer in [${min}, ${max}], got ${v}`);
    }
  };
  positiveInt('workers', 1, 64);
  positiveInt('timeoutMs', 1, 3_600_000);
  positiveInt('maxOutputBytes', 1, 64 * 1024 * 1024);
  positiveInt('maxMemoryBytes', 64 * 1024 * 1024, 4 * 1024 * 1024 * 1024);
  positiveInt('maxRecursionLimit', 100, 100_000);
  positiveInt('interruptGraceMs', 0, 60_000);
  positiveInt('startTimeoutMs', 1000, 600_000);
  positiveInt('recycleAfterRuns', 1, 1_000_000);
  if (typeof c.snapshot !== 'boolean' && c.snapshot !== 'lazy') throw new Error(`python pool: snapshot must be true, false or "lazy", got ${String(c.snapshot)}`);
  return c;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
