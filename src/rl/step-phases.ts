// The GRPO step's time split as perf/ metrics: generation vs tool wait from the rollout's wall
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

/** Where a step started: wall clock (performance.now()) and the runtime's dispatch count. */
export interface StepStart { t0: number; dispatch0: number }

export function stepStart(rt: GpuRuntime): StepStart {
  return { t0: performance.now(), dispatch0: rt.dispatchCount };
}

/** step_time, perf/train_time, perf/train_tokens_per_s, perf/dispatches_per_step, gpu/bytes_in_use, gpu/peak_bytes. */
export function stepCost(rt: GpuRuntime, start: StepStart, trainMs: number, trainRows: number): Record<string, number> {
  const mem = rt.memory();
  return {
    step_time: (performance.now() - start.t0) / 1000,
    'perf/train_time': trainMs / 1000,
    'perf/train_tokens_per_s': trainMs > 0 ? trainRows / (trainMs / 1000) : 0,
    'perf/dispatches_per_step': rt.dispatchCount - start.dispatch0,
    'gpu/bytes_in_use': mem.inUse,
    'gpu/peak_bytes': mem.peak,
  };
}
