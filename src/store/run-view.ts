// One run as the Run panel shows it, and the pure reducer that folds the engine's RunEvents into
// it (status, progress, metric rows with their arrival time, the last N rollouts, warnings).
// No React, no zustand: the run slice batches events through applyRunEvents. Exercised by
// tests/unit/store/run-view.test.ts and tests/e2e/studio-run.spec.ts.
import type { RolloutRecord } from '../rl/rollout-log';
import type { MetricsRow, RunEvent } from '../run/events';
import type { RunPhase, RunStatus } from '../workers/engine/protocol';

/** Rollouts kept per run (the newest); older ones are in the run folder's rollouts.jsonl. */
export const KEPT_ROLLOUTS = 512;

export interface RunView {
  runId: string;
  /** The worker's model the run trains (null for a run attached without it: token text unavailable). */
  modelId: string | null;
  phase: RunPhase;
  /** True once the loop is actually held between steps (a pause asked mid-step is not yet held). */
  holding: boolean;
  trainer: string | null;
  step: number;
  total: number;
  startStep: number;
  elapsedMs: number;
  etaMs: number | null;
  /** metrics.jsonl rows in order, and each row's time: the loop's elapsed seconds at that step (its progress
   * event), or until that arrives the seconds since the view was created. */
  rows: MetricsRow[];
  rowSeconds: number[];
  rollouts: RolloutRecord[];
  /** Total rollouts received (rollouts holds the last KEPT_ROLLOUTS of them). */
  rolloutCount: number;
  warnings: { step: number; message: string }[];
  lastCheckpoint: string | null;
  exportPath: string | null;
  error: string | null;
  /** Date.now() when the view was created (time axis origin). */
  createdAt: number;
}

export function newRunView(runId: string, modelId: string | null, now: number): RunView {
  return {
    runId, modelId, phase: 'starting', holding: false, trainer: null, step: 0, total: 0, startStep: 0, elapsedMs: 0, etaMs: null,
    rows: [], rowSeconds: [], rollouts: [], rolloutCount: 0, warnings: [], lastCheckpoint: null, exportPath: null, error: null, createdAt: now,
  };
}

/**
 * A failed run's message with what to do: resume from its last checkpoint in the Runs panel (the
 * message itself says when the page must be reloaded first: a lost GPU device or a dead engine
 * worker), or start again when it wrote none.
 */
export function failureText(v: RunView): string | null {
  if (!v.error) return null;
  const said = /[.!?]$/.test(v.error.trim()) ? v.error.trim() : `${v.error.trim()}.`;
  return v.lastCheckpoint ? `${said} Resume from ${v.lastCheckpoint} in the Runs panel.` : `${said} It wrote no checkpoint: start it again from the Config panel.`;
}

const LIVE: readonly RunPhase[] = ['starting', 'running', 'paused', 'stopping'];
export const isLive = (p: RunPhase): boolean => LIVE.includes(p);

/** The view after `events` (in arrival order) received at time `now` (ms). Returns a new object when anything changed. */
export function applyRunEvents(v: RunView, events: readonly RunEvent[], now: number): RunView {
  if (!events.length) return v;
  const out: RunView = { ...v };
  let rows = v.rows, rowSeconds = v.rowSeconds, rollouts = v.rollouts, warnings = v.warnings;
  const fresh: RolloutRecord[] = [];
  for (const e of events) {
    switch (e.kind) {
      case 'started':
        out.trainer = e.trainer;
        out.total = e.totalSteps;
        out.startStep = e.startStep;
        out.step = e.startStep;
        // A run that ended (failed, cancelled) and is resumed in this page starts again.
        if (out.phase === 'starting' || !isLive(out.phase)) out.phase = 'running';
        out.error = null;
        // A resume starts after its checkpoint: rows, warnings and rollouts an earlier attempt showed
        // past it were cut from the logs and come again, so they leave the view (no duplicate steps).
        if (rows.some((r) => r.step > e.startStep)) {
          const keep = rows.map((r) => r.step <= e.startStep);
          rows = rows.filter((_, i) => keep[i]);
          rowSeconds = rowSeconds.filter((_, i) => keep[i]);
        }
        if (warnings.some((w) => w.step > e.startStep)) warnings = warnings.filter((w) => w.step <= e.startStep);
        if (rollouts.some((r) => r.step > e.startStep)) {
          const kept = rollouts.filter((r) => r.step <= e.startStep);
          out.rolloutCount -= rollouts.length - kept.length;
          rollouts = kept;
        }
        break;
      case 'progress':
        if (rows.length && rows[rows.length - 1].step === e.step) {
          if (rowSeconds === v.rowSeconds) rowSeconds = [...rowSeconds];
          rowSeconds[rowSeconds.length - 1] = e.elapsedMs / 1000;
        }
        out.step = e.step;
        out.total = e.total;
        out.elapsedMs = e.elapsedMs;
        out.etaMs = e.etaMs;
        break;
      case 'metrics':
        if (rows === v.rows) rows = [...rows];
        if (rowSeconds === v.rowSeconds) rowSeconds = [...rowSeconds];
        rows.push(e.row);
        rowSeconds.push((now - v.createdAt) / 1000);
        break;
      case 'rollout':
        fresh.push(e.record);
        out.rolloutCount++;
        break;
      case 'warning':
        warnings = [...warnings, { step: e.step, message: e.message }];
        break;
      case 'checkpoint':
        out.lastCheckpoint = e.path;
        break;
      case 'finished':
        out.phase = 'finished';
        out.step = e.step;
        out.exportPath = e.export?.path ?? null;
        out.etaMs = 0;
        out.holding = false;
        break;
      case 'failed':
        out.phase = 'failed';
        out.error = e.message;
        out.lastCheckpoint = e.lastCheckpoint ?? out.lastCheckpoint;
        out.holding = false;
        break;
      case 'cancelled':
        out.phase = 'cancelled';
        out.step = e.step;
        out.lastCheckpoint = e.lastCheckpoint ?? out.lastCheckpoint;
        out.holding = false;
        break;
    }
  }
  if (fresh.length) {
    rollouts = [...rollouts, ...fresh];
    if (rollouts.length > KEPT_ROLLOUTS) rollouts = rollouts.slice(rollouts.length - KEPT_ROLLOUTS);
  }
  return { ...out, rows, rowSeconds, rollouts, warnings };
}

/** The view after the worker reported the run's status (a command's answer or run-state). */
export function applyStatus(v: RunView, s: RunStatus): RunView {
  // A terminal phase learnt from events wins over a status read before it.
  if (!isLive(v.phase) && isLive(s.phase)) return v;
  return { ...v, phase: s.phase, holding: s.holding, step: Math.max(v.step, s.step), total: s.total || v.total, lastCheckpoint: s.lastCheckpoint ?? v.lastCheckpoint, error: s.error ?? v.error };
}
