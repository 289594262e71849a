// An RL step's (GRPO, PPO) time split as perf/ metrics: generation vs tool wait from the rollout's wall
// time and GPU idle share; forward, loss, backward and optimizer from GPU timestamps (PhaseTimer
// marks recorded by TrainStep and the trainer, read back with the step's one metrics readback).
// Without the timestamp-query feature only the rollout split is reported. stepCost: the wall time,
// training throughput, dispatches and GPU memory every RL step reports. Used by grpo-trainer.ts and ppo-trainer.ts;
// tested by tests/unit/rl/rl-grpo-gpu-path.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import { PhaseTimer } from '../gpu/phase-timer';

const timers = new WeakMap<GpuRuntime, PhaseTimer>();

/**
 * The runtime's PhaseTimer holding at least `marks` marks (created once per runtime, grown when a
 * step needs more), or null when the device cannot stamp.
 */
export function stepPhaseTimer(rt: GpuRuntime, marks: number): PhaseTimer | null {
  if (!rt.hasFeature('timestamp-query')) return null;
  let t = timers.get(rt);
  if (!t || t.capacity < marks) {
    t?.destroy();
    t = new PhaseTimer(rt.device, Math.max(256, 2 ** Math.ceil(Math.log2(marks))));
    timers.set(rt, t);
  }
  t.reset();
  return t;
}

/** perf/generation_time and perf/tool_wait_time (s) from the rollout's wall time and GPU idle share. */
export function rolloutSplit(rolloutS: number, idleFrac: number): Record<string, number> {
  const wait = rolloutS * (Number.isFinite(idleFrac) ? idleFrac : 0);
  return { 'perf/generation_time': rolloutS - wait, 'perf/tool_wait_time': wait };
}

/** perf/{forward,loss,backward,optimizer}_time (s of GPU time) from PhaseTimer totals (ms). */
export function gpuPhaseMetrics(ms: Record<string, number>): Record<string, number> {
  const s = (k: string) => (ms[k] ?? 0) / 1000;
  return { 'perf/forward_time': s('forward'), 'perf/loss_time': s('loss'), 'perf/backward_time': s('backward'), 'perf/optimizer_time': s('optimizer') };
}

/** TrainStep's running counts of token rows and of the rows sharing let it skip. */
export interface RowCounts { rowsShared: number; tokenRows: number }

/** Where a step started: wall clock (performance.now()), the runtime's dispatch count, the TrainStep's row counts. */
export interface StepStart { t0: number; dispatch0: number; shared0: number; tokens0: number }

export function stepStart(rt: GpuRuntime, rows: RowCounts): StepStart {
  return { t0: performance.now(), dispatch0: rt.dispatchCount, shared0: rows.rowsShared, tokens0: rows.tokenRows };
}

/**
 * Every RL step's closing figures: step_time, perf/train_time, perf/train_tokens_per_s,
 * perf/dispatches_per_step, gpu/bytes_in_use, gpu/peak_bytes; perf/train_shared_rows_frac (of
 * the update's token rows, log-prob passes included, those a group's earlier episode computed);
 * the rollout split (rolloutSplit) from the step's perf/rollout_time and idle share in `metrics`.
 */
export function stepCost(rt: GpuRuntime, start: StepStart, rows: RowCounts, trainMs: number, trainRows: number, metrics: Record<string, number>): Record<string, number> {
  const mem = rt.memory();
  return {
    step_time: (performance.now() - start.t0) / 1000,
    'perf/train_time': trainMs / 1000,
    'perf/train_tokens_per_s': trainMs > 0 ? trainRows / (trainMs / 1000) : 0,
    'perf/dispatches_per_step': rt.dispatchCount - start.dispatch0,
    'gpu/bytes_in_use': mem.inUse,
    'gpu/peak_bytes': mem.peak,
    'perf/train_shared_rows_frac': (rows.rowsShared - start.shared0) / Math.max(1, rows.tokenRows - start.tokens0),
    ...rolloutSplit(metrics['perf/rollout_time'] ?? 0, metrics['perf/gpu_idle_waiting_tools_frac'] ?? 0),
  };
}
