// The message a run's `failed` event carries: the error's own text, or, when the GPU device was
// lost (the error then is often an empty rejection from the driver, or a mapAsync that failed
// before device.lost settled), the loss with what to do. Used by both run loops (rl-run.ts,
// sft-run.ts); tested by tests/unit/run/device-loss.test.ts and tests/e2e/studio-run-failure.spec.ts.
import type { GpuRuntime } from '../gpu/runtime';

/** How long a failure whose error looks like a device loss waits for device.lost to settle: a busy
 * 2-core machine has taken more than half a second to report the loss behind an aborted mapAsync. */
export const LOSS_SYMPTOM_WAIT_MS = 10_000;
/** The same for any other error (a lost device is still named if it settles meanwhile). */
export const OTHER_ERROR_WAIT_MS = 500;

/**
 * Whether an error is what a call meets on a device being lost before device.lost settles: an
 * empty rejection (Dawn in Node: a mapAsync AbortError with no message), Chromium's aborted
 * mapAsync ("Buffer was unmapped before mapping was resolved"), or a lost-device message.
 */
export function looksLikeLoss(e: unknown): boolean {
  const message = e instanceof Error ? e.message : String(e ?? '');
  return message === '' || /unmapped before mapping was resolved|device (?:is |was )?lost/i.test(message);
}

export async function failureMessage(e: unknown, rt: Pick<GpuRuntime, 'lossBehind'>): Promise<string> {
  const own = e instanceof Error ? e.message : String(e);
  const lost = await rt.lossBehind(looksLikeLoss(e) ? LOSS_SYMPTOM_WAIT_MS : OTHER_ERROR_WAIT_MS);
  if (!lost || own === lost.message) return own || 'the run failed with an error that has no message';
  return own ? `${lost.message} (then: ${own})` : lost.message;
}
