// The one vocabulary between a training loop and whoever watches it: RunEvent (what the loop
// reports, in order) and RunCommand (what a caller asks between steps). SFT (src/run/sft-run.ts)
// and the RL loops (src/run/rl-run.ts: GRPO, rejection sampling, reward-weighted) emit it; the CLI, the
// run-folder recorder (src/run/recorder.ts) and the engine worker (src/workers/engine/) consume it.
// Tested by tests/unit/run/run-storage.test.ts and, through the loops, sft-cli / rl-grpo / run-control.
import type { RolloutRecord } from '../rl/rollout-log';
import type { TrainerKind } from '../rl/config-schema';
import type { MemoryPlan } from '../train/memory-plan';
import type { RunControl } from '../train/run-control';

/** A folder's files (name -> bytes): a checkpoint (state.json, state.safetensors) or an export. */
export type RunFiles = Map<string, Uint8Array>;

/** One metrics.jsonl row: `step` and metric values under their vocabulary names (src/metrics/names.ts). */
export type MetricsRow = { step: number } & Record<string, number>;

export type RunEvent =
  /** Once, before the first step. `startStep` > 0 on a resume. */
  | { kind: 'started'; runId: string; trainer: TrainerKind; plan: MemoryPlan | null; totalSteps: number; startStep: number }
  /** After each step (and its metrics row). Times in milliseconds; ETA from the mean step so far. */
  | { kind: 'progress'; step: number; total: number; elapsedMs: number; etaMs: number }
  /** One row exactly as metrics.jsonl gets it. */
  | { kind: 'metrics'; row: MetricsRow }
  /** One episode exactly as rollouts.jsonl gets it (RL trainers, when log.rollouts). */
  | { kind: 'rollout'; record: RolloutRecord }
  /**
   * A checkpoint after `step` steps, at `path` inside the run folder. `files` are its bytes: the
   * recorder writes them before the loop goes on; the worker drops them before posting to the page.
   */
  | { kind: 'checkpoint'; step: number; path: string; files?: RunFiles }
  /** Something the user should know that does not stop the run (e.g. why a loss is 0). */
  | { kind: 'warning'; step: number; message: string }
  /** Terminal: every step done; `export` is the adapter/ (or model/) folder written last. */
  | { kind: 'finished'; step: number; export: { path: string; files?: RunFiles } | null }
  /** Terminal: the loop threw; resume from `lastCheckpoint` (null: none written yet). */
  | { kind: 'failed'; step: number; message: string; lastCheckpoint: string | null }
  /** Terminal: stopped on request after checkpointing what was done; `export` as `finished` (the adapter so far) when the loop writes one. */
  | { kind: 'cancelled'; step: number; lastCheckpoint: string | null; export?: { path: string; files?: RunFiles } | null };

export type RunEventKind = RunEvent['kind'];

/** Receives every event in order; the loop awaits it (so a checkpoint is on disk before the next step). */
export type RunEmit = (e: RunEvent) => void | Promise<void>;

export type RunCommand = { kind: 'pause' } | { kind: 'resume' } | { kind: 'stop' } | { kind: 'checkpoint' };

export const TERMINAL_KINDS: readonly RunEventKind[] = ['finished', 'failed', 'cancelled'];

export const isTerminal = (e: RunEvent): boolean => TERMINAL_KINDS.includes(e.kind);

/** One emitter calling each of `emits` in order (e.g. the recorder first, then the printer). */
export function fanOut(...emits: (RunEmit | undefined)[]): RunEmit {
  const list = emits.filter((x): x is RunEmit => !!x);
  return async (e) => {
    for (const f of list) await f(e);
  };
}

/** Applies a command to the loop's RunControl (checked between steps). */
export function applyCommand(control: RunControl, c: RunCommand): void {
  if (c.kind === 'pause') control.pause();
  else if (c.kind === 'resume') control.resume();
  else if (c.kind === 'stop') control.stop();
  else control.checkpointNow();
}

/** The event without file bytes (what crosses a worker boundary or goes to a log). */
export function withoutFiles(e: RunEvent): RunEvent {
  if (e.kind === 'checkpoint') return { kind: 'checkpoint', step: e.step, path: e.path };
  if (e.kind === 'finished') return { kind: 'finished', step: e.step, export: e.export ? { path: e.export.path } : null };
  if (e.kind === 'cancelled' && e.export) return { ...e, export: { path: e.export.path } };
  return e;
}

/** Tracks the last checkpoint path a run reported (for `failed` and crash messages). */
export class CheckpointTracker {
  last: string | null = null;
  readonly emit: RunEmit = (e) => {
    if (e.kind === 'checkpoint') this.last = e.path;
  };
}
