// The message a run's `failed` event carries: the error's own text, or, when the GPU device was
// lost (the error then is often an empty rejection from the driver, or a mapAsync that failed
// before device.lost settled), the loss with what to do. Used by both run loops (rl-run.ts,
// sft-run.ts); tested by tests/unit/run/device-loss.test.ts and tests/e2e/studio-run-failure.spec.ts.
import type { GpuRuntime } from '../gpu/runtime';

export async function failureMessage(e: unknown, rt: GpuRuntime): Promise<string> {
  const own = e instanceof Error ? e.message : String(e);
  const lost = await rt.lossBehind();
  if (!lost || own === lost.message) return own || 'the run failed with an error that has no message';
  return own ? `${lost.message} (then: ${own})` : lost.message;
}
