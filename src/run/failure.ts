// The message a run's `failed` event carries: the error's own text, or, when the GPU device was
// lost (the error then is often an empty rejection from the driver), the loss with what to do.
// Used by both run loops (rl-run.ts, sft-run.ts); tested by tests/unit/run/device-loss.test.ts.
import type { GpuRuntime } from '../gpu/runtime';

export function failureMessage(e: unknown, rt: GpuRuntime): string {
  const own = e instanceof Error ? e.message : String(e);
  if (!rt.lost || own === rt.lost.message) return own || 'the run failed with an error that has no message';
  return own ? `${rt.lost.message} (then: ${own})` : rt.lost.message;
}
