// PythonPool: N warm Pyodide workers behind one queue. Runs get a clean namespace, or their
// episode's persistent one (an episode sticks to one worker); timeouts interrupt through the
// SharedArrayBuffer (when shared) and then terminate + respawn the worker, without touching other
// runs. A worker that a job changed outside its namespace, or that fails its output check, is
// replaced (a poisoned worker's job is requeued, not failed). Tests are graded against expected
// values computed in a job that never sees the solution (grader.ts).
// Works with any SandboxPortFactory (node-pool.ts, browser-pool.ts); tests/unit/tools/tools-python*.test.ts.
import type { CheckResult, InitInfo, RunOutcome, SandboxPort, SandboxPortFactory, SandboxReply, SandboxRequest, TestPlan } from './protocol';
import { gradeChecks, planChecks } from './grader';
import type { SnapshotSource, SnapshotStore } from './snapshot-store';
import { responsiveTimeout } from '../../util/responsive-timeout';
import {
  resolvePoolConfig,
  type PoolConfig,
  type RunOptions,
  type RunResult,
  type TestsResult,
} from './types';

type JobRequest = Extract<SandboxRequest, { kind: 'run' | 'tests' | 'plan' }>;

interface Job {
  request: JobRequest;
  episode?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  onAbort?: () => void;
  stdout: string;
  stderr: string;
  outBytes: number;
  truncated: boolean;
  checks: Map<number, CheckResult>;
  plans?: TestPlan[];
  solutionOk: boolean;
  startedAt: number;
  stopReason?: 'Timeout' | 'Aborted';
  /** Cancels the job's pending timeouts. */
  cancels: (() => void)[];
  namespaceLost: boolean;
  /** Times the job was put back because its worker was found poisoned. */
  requeues: number;
  resolve(r: JobResult): void;
}

interface JobResult {
  run: RunResult;
  checks: Map<number, CheckResult>;
  plans?: TestPlan[];
  solutionOk: boolean;
}

interface Slot {
  index: number;
  generation: number;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  port?: SandboxPort;
  interrupt?: Int32Array;
  job?: Job;
  info?: InitInfo;
  /** Jobs this worker (this generation) has run; at config.recycleAfterRuns it is replaced. */
  jobs: number;
  /** Replies awaited for control requests (init, endEpisode). */
  control: Map<number, () => void>;
  started: Promise<void>;
  /** The snapshot this generation was started from, if any. */
  snapshot?: Uint8Array;
}

export interface PoolStats {
  workers: number;
  idle: number;
  busy: number;
  starting: number;
  dead: number;
  queued: number;
  runs: number;
  respawns: number;
  /** Workers replaced because a job changed something outside its namespace, or after recycleAfterRuns jobs. */
  recycles: number;
  /** Workers found broken before a job (output wiring), replaced with the job requeued. */
  poisoned: number;
  /** Why the last worker was recycled or found poisoned. */
  lastRecycle?: string;
  /** Workers started from the Pyodide snapshot (the rest loaded Pyodide from scratch). */
  fromSnapshot: number;
  /** Where that snapshot came from: a lasting copy (a file in Node, Cache Storage in the browser) or a maker worker of this realm. */
  snapshotSource?: SnapshotSource;
  /** Why workers load Pyodide from scratch, when a snapshot was wanted but could not be had. */
  snapshotError?: string;
}

export class PythonPool {
  readonly config: PoolConfig;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  /** episode -> slot index and the worker generation that holds its namespace. */
  private readonly episodes = new Map<string, { slot: number; generation: number }>();
  private nextId = 1;
  private runs = 0;
  private respawns = 0;
  private recycles = 0;
  private poisoned = 0;
  private lastRecycle: string | undefined;
  /** Test plans by test list: dataset code is planned once (a plan job never sees a solution). */
  private readonly plans = new Map<string, TestPlan[]>();
  private lastStartError = '';
  private fromSnapshot = 0;
  private snapshotError: string | undefined;
  private snapshotSource: SnapshotSource | undefined;
  /** Lazy mode: whether this pool has asked for the image to be made (makeLater). */
  private madeLater = false;
  private closed = false;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly factory: SandboxPortFactory,
    private readonly indexURL: string,
    config: Partial<PoolConfig> = {},
    /** Where the Pyodide snapshot workers start from is kept; without one every worker loads Pyodide. */
    private readonly snapshots?: SnapshotStore,
  ) {
    this.config = resolvePoolConfig(config);
    for (let i = 0; i < this.config.workers; i++) {
      const slot: Slot = { index: i, generation: 0, state: 'dead', jobs: 0, control: new Map(), started: Promise.resolve() };
      this.slots.push(slot);
      this.spawn(slot);
    }
  }

  /** Resolves when every worker has started (or failed to); returns the started ones' info. */
  async ready(): Promise<InitInfo[]> {
    await Promise.all(this.slots.map((s) => s.started));
    const infos = this.slots.flatMap((s) => (s.info ? [s.info] : []));
    if (!infos.length) throw new Error(`no Python worker could start: ${this.lastStartError}`);
    return infos;
  }

  run(code: string, opts: RunOptions = {}): Promise<RunResult> {
    const request: JobRequest = { kind: 'run', id: 0, code, maxOutputBytes: this.outputCap(opts) };
    if (opts.stdin !== undefined) request.stdin = opts.stdin;
    if (opts.episode !== undefined) request.episode = opts.episode;
    return this.submit(request, opts).then((r) => r.run);
  }

  /**
   * Grades a candidate solution on assert statements (MBPP shape). Each `assert A == B` is planned
   * first in a job without the solution (B's value computed there); the solution's job only
   * evaluates A, and the pool compares. Other asserts run whole in the solution's job.
   */
  async runTests(code: string, tests: string[], opts: RunOptions & { setup?: string } = {}): Promise<TestsResult> {
    const plans = await this.plan(tests, opts);
    const request: JobRequest = { kind: 'tests', id: 0, code, checks: planChecks(plans), maxOutputBytes: this.outputCap(opts) };
    if (opts.setup) request.setup = opts.setup;
    const { run, checks, solutionOk } = await this.submit(request, { ...opts, episode: undefined });
    const list = gradeChecks(plans, checks, run, solutionOk, tests);
    const passed = list.filter((a) => a.passed).length;
    return { solutionOk, run, asserts: list, passed, total: tests.length };
  }

  private async plan(tests: string[], opts: RunOptions): Promise<TestPlan[]> {
    const key = JSON.stringify(tests);
    const hit = this.plans.get(key);
    if (hit) return hit;
    const { run, plans } = await this.submit({ kind: 'plan', id: 0, tests, maxOutputBytes: this.outputCap(opts) }, { ...opts, episode: undefined });
    const got = plans ?? tests.map((test): TestPlan => ({ kind: 'assert', test }));
    if (plans && !run.errorType) {
      if (this.plans.size >= 4096) this.plans.delete(this.plans.keys().next().value as string);
      this.plans.set(key, got);
    }
    return got;
  }

  /** Drops the episode's namespace and working directory. */
  endEpisode(episode: string): Promise<void> {
    const bound = this.episodes.get(episode);
    this.episodes.delete(episode);
    if (!bound) return Promise.resolve();
    const slot = this.slots[bound.slot];
    if (slot.generation !== bound.generation || !slot.port || slot.state === 'dead' || slot.state === 'starting') {
      return Promise.resolve();
    }
    return this.control(slot, { kind: 'endEpisode', id: this.nextId++, episode });
  }

  private control(slot: Slot, req: Extract<SandboxRequest, { kind: 'endEpisode' }>): Promise<void> {
    return new Promise((resolve) => {
      slot.control.set(req.id, resolve);
      slot.port?.post(req);
    });
  }

  stats(): PoolStats {
    const count = (st: Slot['state']) => this.slots.filter((s) => s.state === st).length;
    return {
      workers: this.slots.length, idle: count('idle'), busy: count('busy'), starting: count('starting'),
      dead: count('dead'), queued: this.queue.length, runs: this.runs, respawns: this.respawns,
      recycles: this.recycles, poisoned: this.poisoned, ...(this.lastRecycle ? { lastRecycle: this.lastRecycle } : {}),
      fromSnapshot: this.fromSnapshot, ...(this.snapshotSource ? { snapshotSource: this.snapshotSource } : {}),
      ...(this.snapshotError ? { snapshotError: this.snapshotError } : {}),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.finish(job, failure('SandboxUnavailable', 'the Python pool was closed'));
    for (const slot of this.slots) {
      if (slot.job) this.finish(slot.job, failure('SandboxUnavailable', 'the Python pool was closed'));
      slot.port?.terminate();
      slot.port = undefined;
      slot.state = 'dead';
      for (const done of slot.control.values()) done();
      slot.control.clear();
    }
  }

  private outputCap(opts: RunOptions): number {
    return opts.maxOutputBytes ?? this.config.maxOutputBytes;
  }

  private submit(request: JobRequest, opts: RunOptions): Promise<JobResult> {
    return new Promise((resolve) => {
      const job: Job = {
        request, timeoutMs: opts.timeoutMs ?? this.config.timeoutMs, maxOutputBytes: request.maxOutputBytes,
        stdout: '', stderr: '', outBytes: 0, truncated: false, checks: new Map(), solutionOk: false, startedAt: 0,
        cancels: [], namespaceLost: false, requeues: 0, resolve,
      };
      if (opts.episode !== undefined) job.episode = opts.episode;
      if (this.closed) return this.finish(job, failure('SandboxUnavailable', 'the Python pool was closed'));
      if (opts.signal) {
        if (opts.signal.aborted) return this.finish(job, failure('Aborted', 'the run was aborted before it started'));
        job.signal = opts.signal;
        job.onAbort = () => this.abort(job);
        opts.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      for (const slot of this.slots) if (slot.state === 'dead' && !this.closed) this.spawn(slot);
      this.pump();
    });
  }

  private spawn(slot: Slot): void {
    slot.generation++;
    slot.state = 'starting';
    slot.info = undefined;
    slot.jobs = 0;
    slot.port = undefined;
    slot.snapshot = undefined;
    const generation = slot.generation;
    slot.started = this.snapshot().then((snapshot) => {
      if (this.closed || slot.generation !== generation) return;
      return this.launch(slot, snapshot);
    });
  }

  /** The snapshot to start workers from; null without a store, when turned off, or when none can be
   * had (in lazy mode also while none is kept or stored). */
  private async snapshot(): Promise<Uint8Array | null> {
    if (!this.snapshots || !this.config.snapshot || this.snapshotError) return null;
    try {
      const bytes = this.config.snapshot === 'lazy' ? await this.snapshots.peek() : await this.snapshots.get(() => this.makeSnapshot());
      if (bytes) this.snapshotSource = this.snapshots.source();
      return bytes;
    } catch (e) {
      this.snapshotError = (e as Error).message;
      return null;
    }
  }

  /** Lazy mode, a worker being replaced: makes the image in the background (once per pool) for the
   * workers started after it, and for later pools of this realm and, through the lasting copy, later pages. */
  private makeLater(): void {
    if (this.config.snapshot !== 'lazy' || !this.snapshots || this.snapshotError || this.madeLater) return;
    this.madeLater = true;
    this.snapshots.get(() => this.makeSnapshot()).catch((e: unknown) => {
      this.snapshotError = (e as Error).message;
    });
  }

  /** Runs a worker that only loads Pyodide and images it, then ends it (left to finish when the pool closes: other pools may wait for it). */
  private makeSnapshot(): Promise<Uint8Array> {
    const port = this.factory();
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the snapshot worker did not finish within ${this.config.startTimeoutMs} ms`)), this.config.startTimeoutMs);
      port.listen((msg) => {
        if (msg.id !== id) return;
        clearTimeout(timer);
        if (msg.kind === 'snapshot' && 'bytes' in msg.data) resolve(msg.data.bytes);
        else reject(new Error(msg.kind === 'error' ? msg.message : `unexpected ${msg.kind} reply from the snapshot worker`));
      }, (reason) => {
        clearTimeout(timer);
        reject(new Error(`the snapshot worker ended: ${reason}`));
      });
      port.post({ kind: 'snapshot', id, indexURL: this.indexURL, maxMemoryBytes: this.config.maxMemoryBytes });
    }).finally(() => port.terminate());
  }

  private launch(slot: Slot, snapshot: Uint8Array | null): Promise<void> {
    const port = this.factory();
    slot.port = port;
    slot.snapshot = snapshot ?? undefined;
    const sab = port.sharesMemory && typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(4) : undefined;
    slot.interrupt = sab ? new Int32Array(sab) : undefined;
    const generation = slot.generation;
    const alive = () => slot.port === port && slot.generation === generation;
    port.listen(
      (msg) => alive() && this.onReply(slot, msg),
      (reason) => alive() && this.onExit(slot, reason),
    );
    const id = this.nextId++;
    const started = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        if (!alive() || slot.state !== 'starting') return resolve();
        this.startFailed(slot, `Pyodide did not start within ${this.config.startTimeoutMs} ms (check the worker's CSP allows 'wasm-unsafe-eval')`);
        resolve();
      }, this.config.startTimeoutMs);
      slot.control.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const init: SandboxRequest = {
      kind: 'init', id, indexURL: this.indexURL,
      maxMemoryBytes: this.config.maxMemoryBytes, maxRecursionLimit: this.config.maxRecursionLimit,
    };
    if (sab) init.interrupt = sab;
    if (snapshot) init.snapshot = { bytes: snapshot };
    port.post(init);
    return started;
  }

  private startFailed(slot: Slot, reason: string): void {
    if (slot.snapshot && !this.closed) {
      // The snapshot may be what failed: forget it, and load Pyodide from scratch in this slot
      // (whoever waits for the slot's start waits for that one).
      this.snapshotError = `a worker could not start from the Pyodide snapshot (${reason}); workers load Pyodide from scratch`;
      this.snapshots?.discard(slot.snapshot, reason);
      slot.port?.terminate();
      const waiting = [...slot.control.values()];
      slot.control.clear();
      slot.generation++;
      slot.started = this.launch(slot, null);
      void slot.started.then(() => { for (const done of waiting) done(); });
      return;
    }
    this.lastStartError = reason;
    slot.port?.terminate();
    slot.port = undefined;
    slot.state = 'dead';
    for (const done of slot.control.values()) done();
    slot.control.clear();
    // Nothing can serve the queue: fail it rather than hang.
    if (this.slots.every((s) => s.state === 'dead')) {
      for (const job of this.queue.splice(0)) this.finish(job, failure('SandboxUnavailable', `no Python worker could start: ${reason}`));
    }
  }

  private onReply(slot: Slot, msg: SandboxReply): void {
    const job = slot.job;
    switch (msg.kind) {
      case 'output': {
        if (!job || msg.id !== job.request.id) return;
        this.appendOutput(job, msg.stream, msg.text);
        if (msg.cut) job.truncated = true;
        return;
      }
      case 'check': {
        if (!job || msg.id !== job.request.id || job.request.kind !== 'tests') return;
        if (msg.index >= 0 && msg.index < job.request.checks.length) job.checks.set(msg.index, msg.result);
        return;
      }
      case 'plan': {
        if (job && msg.id === job.request.id && job.request.kind === 'plan' && msg.plans.length === job.request.tests.length) job.plans = msg.plans;
        return;
      }
      case 'poisoned': {
        if (!job || msg.id !== job.request.id) return;
        if (++job.requeues > 2) {
          return this.complete(slot, job, { errorType: 'SandboxCrash', errorMessage: `three fresh workers failed their output check: ${msg.reason}`, truncated: false, fatal: true });
        }
        // Not the job's fault: put it back at the front and replace the worker.
        this.poisoned++;
        this.lastRecycle = msg.reason;
        slot.job = undefined;
        for (const cancel of job.cancels) cancel();
        job.cancels = [];
        this.runs--;
        this.queue.unshift(job);
        this.respawn(slot);
        return;
      }
      case 'solution': {
        if (job && msg.id === job.request.id) job.solutionOk = msg.ok;
        return;
      }
      case 'result': {
        if (msg.for === 'init') {
          slot.info = msg.info;
          if (msg.info.fromSnapshot) this.fromSnapshot++;
          slot.state = 'idle';
          slot.control.get(msg.id)?.();
          slot.control.delete(msg.id);
          this.pump();
          return;
        }
        if (msg.for === 'endEpisode') {
          slot.control.get(msg.id)?.();
          slot.control.delete(msg.id);
          return;
        }
        if (!job || msg.id !== job.request.id) return;
        this.complete(slot, job, msg.outcome);
        return;
      }
      case 'error': {
        if (slot.control.has(msg.id)) {
          if (slot.state === 'starting') return this.startFailed(slot, msg.message);
          slot.control.get(msg.id)?.();
          slot.control.delete(msg.id);
          return;
        }
        if (!job || msg.id !== job.request.id) return;
        // An internal failure of the worker: report it and replace the worker to be safe.
        this.complete(slot, job, { errorType: 'SandboxCrash', errorMessage: msg.message, truncated: job.truncated, fatal: true });
      }
    }
  }

  private onExit(slot: Slot, reason: string): void {
    if (slot.state === 'starting') return this.startFailed(slot, reason);
    const job = slot.job;
    slot.port = undefined;
    if (job) this.complete(slot, job, { errorType: 'SandboxCrash', errorMessage: `the Python worker exited: ${reason}`, truncated: job.truncated, fatal: true });
    else this.respawn(slot);
  }

  private appendOutput(job: Job, stream: 'stdout' | 'stderr', text: string): void {
    const room = job.maxOutputBytes - job.outBytes;
    if (room <= 0) {
      job.truncated = true;
      return;
    }
    const bytes = this.encoder.encode(text);
    let kept = text;
    if (bytes.length > room) {
      kept = new TextDecoder().decode(bytes.subarray(0, room));
      job.truncated = true;
    }
    job.outBytes += Math.min(bytes.length, room);
    if (stream === 'stdout') job.stdout += kept;
    else job.stderr += kept;
  }

  /** Picks the next runnable job for each idle worker; episodes stay on their worker. */
  private pump(): void {
    for (let qi = 0; qi < this.queue.length; qi++) {
      const job = this.queue[qi];
      const slot = this.pickSlot(job);
      if (!slot) continue;
      this.queue.splice(qi--, 1);
      this.dispatch(slot, job);
    }
  }

  private pickSlot(job: Job): Slot | undefined {
    if (job.episode !== undefined) {
      const bound = this.episodes.get(job.episode);
      if (bound) {
        const slot = this.slots[bound.slot];
        if (slot.state !== 'dead') {
          if (slot.state !== 'idle') return undefined;
          if (slot.generation !== bound.generation) {
            job.namespaceLost = true;
            bound.generation = slot.generation;
          }
          return slot;
        }
        job.namespaceLost = true; // its worker is gone for good: start over elsewhere
        this.episodes.delete(job.episode);
      }
    }
    const idle = this.slots.filter((s) => s.state === 'idle');
    if (!idle.length) return undefined;
    if (job.episode === undefined) return idle[0];
    const load = (s: Slot) => [...this.episodes.values()].filter((b) => b.slot === s.index).length;
    const slot = idle.reduce((a, b) => (load(b) < load(a) ? b : a));
    this.episodes.set(job.episode, { slot: slot.index, generation: slot.generation });
    return slot;
  }

  private dispatch(slot: Slot, job: Job): void {
    job.request.id = this.nextId++;
    job.startedAt = performance.now();
    slot.state = 'busy';
    slot.job = job;
    slot.jobs++;
    this.runs++;
    // Responsive time (util/responsive-timeout.ts): a stall of this thread (a synchronous pipeline
    // build) must not stop a job whose answer arrived during it.
    job.cancels.push(responsiveTimeout(job.timeoutMs, () => this.stop(slot, job, 'Timeout')));
    slot.port?.post(job.request);
  }

  private abort(job: Job): void {
    const qi = this.queue.indexOf(job);
    if (qi >= 0) {
      this.queue.splice(qi, 1);
      return this.finish(job, failure('Aborted', 'the run was aborted before it started'));
    }
    const slot = this.slots.find((s) => s.job === job);
    if (slot) this.stop(slot, job, 'Aborted');
  }

  /** Interrupt through the shared buffer; terminate the worker if Python does not stop in time. */
  private stop(slot: Slot, job: Job, reason: 'Timeout' | 'Aborted'): void {
    if (slot.job !== job || job.stopReason) return;
    job.stopReason = reason;
    const kill = () => {
      if (slot.job !== job) return;
      const message = reason === 'Timeout' ? `execution exceeded ${job.timeoutMs} ms; the worker was restarted` : 'the run was aborted; the worker was restarted';
      this.complete(slot, job, { errorType: reason, errorMessage: message, truncated: job.truncated, fatal: true });
    };
    if (slot.interrupt && this.config.interruptGraceMs > 0) {
      Atomics.store(slot.interrupt, 0, 2);
      job.cancels.push(responsiveTimeout(this.config.interruptGraceMs, kill));
    } else {
      kill();
    }
  }

  private complete(slot: Slot, job: Job, outcome: RunOutcome): void {
    slot.job = undefined;
    let { errorType, errorMessage } = outcome;
    if (job.stopReason && (errorType === 'KeyboardInterrupt' || outcome.fatal)) {
      errorType = job.stopReason;
      errorMessage = job.stopReason === 'Timeout'
        ? (outcome.fatal ? errorMessage : `execution exceeded ${job.timeoutMs} ms (interrupted)`)
        : 'the run was aborted';
    }
    let stderr = job.stderr;
    if (errorType === 'Timeout' && stderr.endsWith('KeyboardInterrupt\n')) {
      stderr = `${stderr.slice(0, -'KeyboardInterrupt\n'.length)}TimeoutError: ${errorMessage}\n`;
    }
    const result: RunResult = {
      stdout: job.stdout, stderr, errorType, errorMessage,
      durationMs: performance.now() - job.startedAt,
      truncated: job.truncated || outcome.truncated,
      timedOut: errorType === 'Timeout',
    };
    if (job.namespaceLost) result.namespaceLost = true;
    if (outcome.recycle?.length) result.changedOutside = outcome.recycle;
    this.finish(job, result);
    const recycle = outcome.recycle?.length ? `a job changed ${outcome.recycle.join('; ')}` : slot.jobs >= this.config.recycleAfterRuns ? `${slot.jobs} jobs run` : '';
    if (outcome.fatal) this.respawn(slot);
    else if (recycle) {
      this.recycles++;
      this.lastRecycle = recycle;
      this.respawn(slot);
    } else slot.state = 'idle';
    this.pump();
  }

  private respawn(slot: Slot): void {
    slot.port?.terminate();
    slot.port = undefined;
    for (const done of slot.control.values()) done();
    slot.control.clear();
    slot.state = 'dead';
    if (this.closed) return;
    this.respawns++;
    this.makeLater();
    this.spawn(slot);
  }

  private finish(job: Job, run: RunResult): void {
    for (const cancel of job.cancels) cancel();
    job.cancels = [];
    if (job.signal && job.onAbort) job.signal.removeEventListener('abort', job.onAbort);
    job.resolve({ run, checks: job.checks, solutionOk: job.solutionOk, ...(job.plans ? { plans: job.plans } : {}) });
  }
}

function failure(errorType: string, errorMessage: string): RunResult {
  return { stdout: '', stderr: '', errorType, errorMessage, durationMs: 0, truncated: false, timedOut: false };
}
