// The worker side of the Python sandbox, shared by the browser Web Worker and the Node sandbox
// process (src/workers/python-*.ts): loads Pyodide once, checks its output wiring before each job,
// runs it in a clean (or the episode's) namespace, streams capped output, cancels the job's timers,
// and reports one result per request, naming anything the job changed outside its namespace.
// Exercised through the pool by tests/unit/tools/tools-python*.test.ts and tests/e2e/tools.spec.ts.
import type { PyodideInterface } from 'pyodide';
import type { PyProxy } from 'pyodide/ffi';
import type { Check, CheckResult, InitInfo, RunOutcome, SandboxReply, SandboxRequest, SnapshotData, TestPlan } from './protocol';
import type { PyValue } from './py-value';
import { PRELUDE_PY } from './prelude';
import { capWasmMemory } from './js-hygiene';
import { fnvText } from '../../util/fnv';

/**
 * Run first in a worker started from a snapshot: `random`, which Pyodide imports and seeds while it
 * loads, would otherwise repeat the snapshot's sequence in every such worker (OpenSSL's bytes are
 * fresh without help; tools-python-snapshot.test.ts checks both). str hashes keep the
 * snapshot's seed (it cannot change once strings exist), as if PYTHONHASHSEED were fixed per snapshot.
 */
const RESEED_PY = 'import random\nrandom.seed()\ndel random';

export interface LoadOptions {
  indexURL: string;
  jsglobals: object;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Pyodide's private snapshot options (pyodide.d.ts marks them @ignore): make one, or start from one. */
  _makeSnapshot?: boolean;
  _loadSnapshot?: Uint8Array;
}

export interface CoreEnv {
  post(msg: SandboxReply): void;
  loadPyodide(opts: LoadOptions): Promise<PyodideInterface>;
  /** Remove network and script-loading globals once Pyodide has loaded (defence in depth). */
  scrubGlobals(): void;
  /** The bytes of a snapshot the pool sent (a file in the Node process's own folder, or the bytes). */
  readSnapshot(data: SnapshotData): Uint8Array;
  /** How this worker hands a snapshot it made back to the pool. */
  writeSnapshot(bytes: Uint8Array): SnapshotData;
}

/** The Python functions made by PRELUDE_PY's _make_sandbox. */
interface SandboxPy {
  run(code: string, ns: PyProxy, key: string, done: () => void): PyProxy | undefined;
  check(test: string, ns: PyProxy): string | undefined;
  value(expr: string, ns: PyProxy): PyProxy;
  plan(test: string): PyProxy;
  outside_changes(): PyProxy;
  reset(): void;
  new_namespace(key: string): PyProxy;
  drop_workdir(key: string): void;
}

interface Capture {
  id: number;
  room: number;
  truncated: boolean;
  flood: boolean;
  /** The user's code has returned or raised: no more flood interrupts. */
  userDone: boolean;
}

export function createSandboxCore(env: CoreEnv): (req: SandboxRequest) => void {
  let py: PyodideInterface | undefined;
  let sb: SandboxPy | undefined;
  let interrupt: Int32Array<ArrayBufferLike> = new Int32Array(new ArrayBuffer(4));
  let stdinText: string | null = null;
  let capture: Capture | undefined;
  const episodes = new Map<string, PyProxy>();
  let chain: Promise<void> = Promise.resolve();
  /** Timers Python started through the JS globals it is given; cleared after every job. */
  const timers = new Set<ReturnType<typeof setTimeout>>();
  /** Streams seen by the wiring probe (set while probing). */
  let probe: Set<string> | undefined;

  const writer = (stream: 'stdout' | 'stderr') => {
    const decoder = new TextDecoder();
    return (bytes: Uint8Array): number => {
      if (probe) {
        probe.add(stream);
        return bytes.length;
      }
      const c = capture;
      if (!c) return bytes.length;
      if (c.flood) {
        if (!c.userDone) interrupt[0] = 2; // keep interrupting code that catches KeyboardInterrupt and prints on
        return bytes.length;
      }
      let chunk = bytes;
      if (bytes.length > c.room) {
        chunk = bytes.subarray(0, c.room);
        c.truncated = c.flood = true;
        interrupt[0] = 2;
      }
      c.room -= chunk.length;
      const text = decoder.decode(chunk, { stream: !c.flood });
      if (text || c.flood) env.post({ kind: 'output', id: c.id, stream, text, ...(c.flood ? { cut: true } : {}) });
      return bytes.length;
    };
  };

  /** What Python's `js` module is: timers the core cancels after every job, nothing else. */
  const jsglobals = {
    setTimeout: (f: () => void, ms?: number) => {
      const t = setTimeout(() => {
        timers.delete(t);
        f();
      }, ms);
      timers.add(t);
      return t;
    },
    clearTimeout: (t: ReturnType<typeof setTimeout>) => {
      timers.delete(t);
      clearTimeout(t);
    },
  };
  const silent = () => {};
  let madeSnapshot = false;

  /**
   * A snapshot for the pool: Pyodide loaded with the same globals and memory cap as `init` gives
   * it, imaged before anything else runs. This interpreter is never used for a job (it stays out
   * of `py`, and Pyodide's snapshot mode wraps its `js` globals in a recording proxy).
   */
  async function snapshot(req: Extract<SandboxRequest, { kind: 'snapshot' }>): Promise<SnapshotData> {
    if (py || madeSnapshot) throw new Error('a snapshot is made by a fresh worker, once');
    madeSnapshot = true;
    capWasmMemory(req.maxMemoryBytes);
    const maker = await env.loadPyodide({ indexURL: req.indexURL, jsglobals, stdout: silent, stderr: silent, _makeSnapshot: true });
    // Pyodide's last set-up step puts '' first on sys.path, and runs again when a worker starts
    // from the image: taken out here, so that worker's sys.path is a fresh interpreter's.
    maker.runPython("import sys\nif sys.path[:1] == ['']:\n    del sys.path[0]");
    return env.writeSnapshot(maker.makeMemorySnapshot());
  }

  async function init(req: Extract<SandboxRequest, { kind: 'init' }>): Promise<InitInfo> {
    if (madeSnapshot) throw new Error('this worker made a snapshot and serves nothing else');
    const t0 = performance.now();
    capWasmMemory(req.maxMemoryBytes);
    if (req.interrupt) interrupt = new Int32Array(req.interrupt);
    const image = req.snapshot ? env.readSnapshot(req.snapshot) : undefined;
    py = await env.loadPyodide({ indexURL: req.indexURL, jsglobals, stdout: silent, stderr: silent, ...(image ? { _loadSnapshot: image } : {}) });
    if (image) py.runPython(RESEED_PY);
    py.setInterruptBuffer(interrupt);
    py.setStdout({ write: writer('stdout'), isatty: false });
    py.setStderr({ write: writer('stderr'), isatty: false });
    py.setStdin({
      stdin: () => {
        const s = stdinText;
        stdinText = null;
        return s ?? undefined;
      },
      isatty: false,
    });
    const make = py.runPython(`${PRELUDE_PY}\n_make_sandbox`) as PyProxy & ((n: number) => PyProxy);
    sb = make(req.maxRecursionLimit) as unknown as SandboxPy;
    writeProbe = py.runPython('def _probe():\n    import os\n    os.write(1, b"\\0")\n    os.write(2, b"\\0")\n_probe') as PyProxy & (() => void);
    env.scrubGlobals();
    const heap = (py as unknown as { _module: { HEAPU8: Uint8Array } })._module.HEAPU8.length;
    const pythonVersion = String(py.runPython('import sys; sys.version.split()[0]'));
    return {
      pyodideVersion: py.version,
      pythonVersion,
      startMs: performance.now() - t0,
      heapBytes: heap,
      interruptible: req.interrupt !== undefined,
      fromSnapshot: image !== undefined,
    };
  }

  let writeProbe: (() => void) | undefined;

  /** Output reaches our writers (a run may have rewired Pyodide's stdout/stderr): null when it does. */
  function wiringFault(): string | null {
    const seen = new Set<string>();
    probe = seen;
    let raised: string | null = null;
    try {
      writeProbe?.();
    } catch (e) {
      raised = `the output probe raised ${(e as Error).message}`;
    } finally {
      probe = undefined;
    }
    const missing = ['stdout', 'stderr'].filter((x) => !seen.has(x));
    return raised ?? (missing.length ? `output wiring broken (${missing.join(', ')} no longer reaches the sandbox)` : null);
  }

  /** After a job: cancel its timers and name what it changed outside its namespace. */
  function afterJob(outcome: RunOutcome): RunOutcome {
    for (const t of timers) clearTimeout(t);
    timers.clear();
    if (outcome.fatal) return outcome;
    let list: string[];
    try {
      const changes = ready().outside_changes();
      list = changes.toJs() as string[];
      changes.destroy();
    } catch (e) {
      // The check itself raised: a run that exhausted the heap (its memory not yet back), or one
      // that broke what the check calls. The worker cannot be vouched for, so it is replaced; the
      // run's own outcome stands (a memory bomb is a MemoryError, not a crash).
      const last = String((e as Error).message ?? e).trim().split('\n').pop() ?? '';
      list = [`the check after the run raised ${last.slice(0, 200)}`];
    }
    return list.length ? { ...outcome, recycle: list } : outcome;
  }

  function ready(): SandboxPy {
    if (!sb) throw new Error('the sandbox worker was not initialised');
    return sb;
  }

  /** Runs `code` in `ns` with output captured; the outcome maps interrupts and crashes. */
  async function execute(c: Capture, code: string, ns: PyProxy, key: string, maxOutputBytes: number): Promise<RunOutcome> {
    const s = ready();
    capture = c;
    interrupt[0] = 0;
    c.userDone = false;
    const done = () => {
      c.userDone = true;
      interrupt[0] = 0;
    };
    try {
      const r = s.run(code, ns, key, done);
      const err = r ? (r.toJs() as [string, string]) : null;
      r?.destroy();
      if (err && c.flood) {
        return { errorType: 'OutputLimitExceeded', errorMessage: `output exceeded ${maxOutputBytes} bytes`, truncated: true, fatal: false };
      }
      return { errorType: err?.[0] ?? null, errorMessage: err?.[1] ?? null, truncated: c.truncated, fatal: false };
    } catch (e) {
      // An interrupt that landed after the user's code, while reporting its result.
      const type = (e as { type?: unknown }).type;
      if (type === 'KeyboardInterrupt') {
        return c.flood
          ? { errorType: 'OutputLimitExceeded', errorMessage: `output exceeded ${maxOutputBytes} bytes`, truncated: true, fatal: false }
          : { errorType: 'KeyboardInterrupt', errorMessage: '', truncated: c.truncated, fatal: false };
      }
      // Not a Python exception: the interpreter itself broke (fatal error, JS stack overflow).
      return { errorType: 'SandboxCrash', errorMessage: `the Python interpreter crashed: ${(e as Error).message}`, truncated: c.truncated, fatal: true };
    }
  }

  function cleanup(outcome: RunOutcome): void {
    capture = undefined;
    stdinText = null;
    if (outcome.fatal) return;
    interrupt[0] = 0;
    try {
      ready().reset();
    } catch {
      interrupt[0] = 0; // a late interrupt landed inside reset: run it again
      ready().reset();
    }
  }

  async function run(req: Extract<SandboxRequest, { kind: 'run' }>): Promise<RunOutcome> {
    const s = ready();
    const key = req.episode !== undefined ? episodeKey(req.episode) : `run-${req.id}`;
    let ns = req.episode !== undefined ? episodes.get(req.episode) : undefined;
    if (!ns) {
      ns = s.new_namespace(key);
      if (req.episode !== undefined) episodes.set(req.episode, ns);
    }
    stdinText = req.stdin ?? null;
    const c: Capture = { id: req.id, room: req.maxOutputBytes, truncated: false, flood: false, userDone: false };
    const outcome = await execute(c, req.code, ns, key, req.maxOutputBytes);
    cleanup(outcome);
    if (req.episode === undefined && !outcome.fatal) {
      ns.destroy();
      s.drop_workdir(key);
    }
    return outcome;
  }

  /** Runs one check in the solution's namespace (after the solution): a value to encode, or a whole assert. */
  function runCheck(s: SandboxPy, check: Check, ns: PyProxy): CheckResult {
    if (check.kind === 'assert') {
      const error = s.check(check.test, ns);
      return error === undefined ? { kind: 'passed' } : { kind: 'failed', error };
    }
    const r = s.value(check.expr, ns);
    const [status, payload] = r.toJs() as ['ok', PyValue] | ['error', string];
    r.destroy();
    return status === 'ok' ? { kind: 'value', value: payload } : { kind: 'failed', error: payload };
  }

  async function tests(req: Extract<SandboxRequest, { kind: 'tests' }>): Promise<RunOutcome> {
    const s = ready();
    const key = `run-${req.id}`;
    const ns = s.new_namespace(key);
    const source = req.setup ? `${req.setup}\n${req.code}` : req.code;
    const c: Capture = { id: req.id, room: req.maxOutputBytes, truncated: false, flood: false, userDone: false };
    const outcome = await execute(c, source, ns, key, req.maxOutputBytes);
    env.post({ kind: 'solution', id: req.id, ok: !outcome.errorType });
    if (!outcome.errorType) {
      capture = c;
      c.userDone = false;
      for (let i = 0; i < req.checks.length; i++) {
        interrupt[0] = 0;
        let result: CheckResult;
        try {
          result = runCheck(s, req.checks[i], ns);
        } catch {
          result = { kind: 'failed', error: 'KeyboardInterrupt' }; // landed while the failure was being described
        }
        env.post({ kind: 'check', id: req.id, index: i, result });
        if (result.kind === 'failed' && result.error.startsWith('KeyboardInterrupt')) {
          // The pool timed us out (or output flooded): stop, and say so in the outcome.
          Object.assign(outcome, { errorType: 'KeyboardInterrupt', errorMessage: '' });
          break;
        }
      }
      c.userDone = true;
      outcome.truncated ||= c.truncated;
      if (c.flood) Object.assign(outcome, { errorType: 'OutputLimitExceeded', errorMessage: `output exceeded ${req.maxOutputBytes} bytes` });
    }
    cleanup(outcome);
    if (!outcome.fatal) {
      ns.destroy();
      s.drop_workdir(key);
    }
    return outcome;
  }

  /** Dataset code only: how each test is graded (see prelude.ts `plan`). */
  function plan(req: Extract<SandboxRequest, { kind: 'plan' }>): RunOutcome {
    const s = ready();
    const c: Capture = { id: req.id, room: req.maxOutputBytes, truncated: false, flood: false, userDone: false };
    capture = c;
    interrupt[0] = 0;
    const plans = req.tests.map((test): TestPlan => {
      const r = s.plan(test);
      const p = r.toJs() as ['assert'] | ['compare', string, PyValue];
      r.destroy();
      return p[0] === 'compare' ? { kind: 'compare', probe: p[1], expected: p[2] } : { kind: 'assert', test };
    });
    env.post({ kind: 'plan', id: req.id, plans });
    const outcome: RunOutcome = { errorType: null, errorMessage: null, truncated: c.truncated, fatal: false };
    cleanup(outcome);
    return outcome;
  }

  function endEpisode(episode: string): void {
    const ns = episodes.get(episode);
    episodes.delete(episode);
    if (ns) {
      ns.destroy();
      ready().drop_workdir(episodeKey(episode));
    }
  }

  async function job(req: Extract<SandboxRequest, { kind: 'run' | 'tests' | 'plan' }>): Promise<void> {
    const fault = wiringFault();
    if (fault) return env.post({ kind: 'poisoned', id: req.id, reason: fault });
    const outcome = req.kind === 'run' ? await run(req) : req.kind === 'tests' ? await tests(req) : plan(req);
    env.post({ kind: 'result', id: req.id, for: 'run', outcome: afterJob(outcome) });
  }

  async function handle(req: SandboxRequest): Promise<void> {
    try {
      switch (req.kind) {
        case 'init':
          env.post({ kind: 'result', id: req.id, for: 'init', info: await init(req) });
          break;
        case 'snapshot':
          env.post({ kind: 'snapshot', id: req.id, data: await snapshot(req) });
          break;
        case 'run':
        case 'tests':
        case 'plan':
          await job(req);
          break;
        case 'endEpisode':
          endEpisode(req.episode);
          env.post({ kind: 'result', id: req.id, for: 'endEpisode' });
          break;
      }
    } catch (e) {
      env.post({ kind: 'error', id: req.id, message: (e as Error).message ?? String(e) });
    }
  }

  return (req) => {
    chain = chain.then(() => handle(req));
  };
}

function episodeKey(episode: string): string {
  return `ep-${episode.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)}-${fnvText(episode).toString(36)}`;
}
