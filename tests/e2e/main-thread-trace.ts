// The page's main-thread tasks from a Chrome trace (browser.startTracing), with each task's wall
// time and its thread CPU time. The browser tests check long tasks on CPU time: on these machines
// WebGPU runs on SwiftShader, whose threads share the 2 cores with the page, so a task's wall time
// also counts the time the OS scheduler gave the "GPU" instead (a 28 ms task measured 64 ms), which
// a real GPU does not take. Wall times are reported beside it. Used by studio-first-run.spec.ts,
// studio-run.spec.ts and run-worker-grpo.spec.ts.
import type { Page } from '@playwright/test';

/** One main-thread task over the report threshold: start (ms from the window's start), wall and CPU ms. */
export type MainTask = { at: number; wall: number; cpu: number };

/**
 * What the checks allow: a main-thread task's CPU time at most 100 ms, what the studio's issue asks.
 * It was the browser's 50 ms long-task threshold, which a slower machine's chart mounts reached by
 * themselves (37-55 ms CPU around the first chart points, where a faster one read 11-17 ms; the
 * same at the previous commit), so it failed CI without a regression.
 */
export const LONG_TASK_MS = 100;
/**
 * And its wall time at most this: a task that waits without using the CPU (a synchronous call into
 * another thread) shows only in wall time. Tasks of 15-35 ms CPU took up to 105 ms wall on a loaded
 * CI machine; this bound is three times that.
 */
export const BLOCKED_MS = 300;

type TraceEvent = { name: string; ph: string; pid: number; tid: number; ts: number; dur?: number; tdur?: number; args?: { name?: string; data?: { frames?: { processId: number; isOutermostMainFrame?: boolean }[] } } };

const PROBE = 'main-thread-trace-probe';
const MARK = 'main-thread-trace-start';
/** The probe: a busy task of this length, run first, which the trace must see (a check of the measure). */
export const PROBE_MS = 150;

/**
 * The trace saw the probe: its task at least PROBE_MS of wall time (the busy loop's length, less
 * 1 ms of clock granularity) and between a tenth of that and its wall time on the CPU (thread
 * time measured, in the right unit). Not more: the OS gives the page's thread what SwiftShader's
 * threads leave of the two cores (probes read 139.6 ms CPU, and 49.2 ms while the engine worker
 * was still busy, in CI). Throws what it saw otherwise.
 */
export function checkProbe(w: TraceWindow): void {
  if (w.probeWall < PROBE_MS - 1 || w.probeCpu < PROBE_MS / 10 || w.probeCpu > w.probeWall + 1) {
    throw new Error(`main-thread trace: the ${PROBE_MS} ms probe task read ${w.probeWall.toFixed(1)} ms wall / ${w.probeCpu.toFixed(1)} ms CPU; the measure is broken`);
  }
}

/** Starts tracing the page's tasks and runs the probe (start it while the page is quiet, so the probe gets its CPU); only tasks after the probe count. */
export async function startMainThreadTrace(page: Page): Promise<void> {
  const browser = page.context().browser();
  if (!browser) throw new Error('main-thread trace: the page has no browser (a persistent context?)');
  await browser.startTracing(page, { categories: ['disabled-by-default-devtools.timeline', 'blink.user_timing'] });
  await page.evaluate(([probe, mark, ms]) => new Promise<void>((resolve) => setTimeout(() => {
    performance.mark(probe);
    const t0 = performance.now();
    while (performance.now() - t0 < ms) { /* busy: the probe */ }
    performance.mark(mark);
    resolve();
  }, 0)), [PROBE, MARK, PROBE_MS] as const);
}

/** The page's main-thread tasks since the start mark: how many, the longest CPU and wall times, those over the threshold. */
export type TraceWindow = { probeWall: number; probeCpu: number; count: number; longestCpu: number; longestWall: number; long: MainTask[] };

/** Stops the trace; the window's tasks (those whose wall or CPU time exceeds LONG_TASK_MS listed). */
export async function stopMainThreadTrace(page: Page): Promise<TraceWindow> {
  const buffer = await page.context().browser()!.stopTracing();
  const parsed = JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const started = events.find((e) => e.name === 'TracingStartedInBrowser')?.args?.data?.frames?.find((f) => f.isOutermostMainFrame);
  const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain'
    && (!started || e.pid === started.processId));
  if (mains.length !== 1) throw new Error(`main-thread trace: found ${mains.length} renderer main threads for the page, expected 1`);
  const { pid, tid } = mains[0];
  const [probe, mark] = [PROBE, MARK].map((m) => events.find((e) => e.name === m && e.pid === pid));
  if (!probe || !mark) throw new Error(`main-thread trace: the marks "${PROBE}" and "${MARK}" are not in the trace (category blink.user_timing missing?)`);
  const runs = events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && e.pid === pid && e.tid === tid);
  if (runs.some((t) => t.tdur === undefined)) throw new Error('main-thread trace: RunTask events without thread time (tdur)');
  const probeTask = runs.find((t) => t.ts <= probe.ts && probe.ts <= t.ts + (t.dur ?? 0));
  const tasks = runs.filter((t) => t.ts >= mark.ts);
  const all = tasks.map((t) => ({ at: (t.ts - mark.ts) / 1000, wall: (t.dur ?? 0) / 1000, cpu: (t.tdur ?? 0) / 1000 }));
  return {
    probeWall: (probeTask?.dur ?? 0) / 1000,
    probeCpu: (probeTask?.tdur ?? 0) / 1000,
    count: all.length,
    longestCpu: Math.max(0, ...all.map((t) => t.cpu)),
    longestWall: Math.max(0, ...all.map((t) => t.wall)),
    long: all.filter((t) => t.wall > LONG_TASK_MS || t.cpu > LONG_TASK_MS),
  };
}

/** "N main-thread tasks, longest 28 ms CPU / 64 ms wall; 1 over 50 ms: 64 ms wall / 28 ms CPU at +15.6 s". */
export function describeTasks(w: TraceWindow): string {
  const list = w.long.map((t) => `${t.wall.toFixed(0)} ms wall / ${t.cpu.toFixed(0)} ms CPU at +${(t.at / 1000).toFixed(1)} s`).join(', ');
  return `probe ${w.probeWall.toFixed(0)} ms wall / ${w.probeCpu.toFixed(0)} ms CPU; ${w.count} main-thread tasks, longest ${w.longestCpu.toFixed(0)} ms CPU / ${w.longestWall.toFixed(0)} ms wall; ${w.long.length} over ${LONG_TASK_MS} ms${list ? `: ${list}` : ''}`;
}
