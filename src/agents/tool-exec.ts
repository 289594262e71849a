// Runs the tool calls of one assistant turn through the registry, in order (a turn's calls may
// share state, e.g. the episode's Python namespace), each under a timeout that aborts it; blocks
// that did not parse become error responses without a call. Never throws. Episodes' turns run
// concurrently (loop.ts). Tested by tests/unit/agents/agent-turns.test.ts and agent-gpu.test.ts.
import type { ToolRegistry, ToolCallResult } from '../tools/registry';
import type { TurnBlock } from './tool-parse';
import { responsiveTimeout } from '../util/responsive-timeout';

export interface ToolOutcome extends ToolCallResult {
  name: string;
  args: Record<string, unknown> | null;
}

export async function runTurnTools(registry: ToolRegistry, blocks: TurnBlock[], episodeId: string, timeoutMs: number, signal?: AbortSignal): Promise<ToolOutcome[]> {
  const out: ToolOutcome[] = [];
  for (const b of blocks) {
    if (!b.ok) {
      out.push({ name: b.name ?? '', args: null, text: `Error: ${b.error}`, ok: false, error: b.error, latencyMs: 0, truncated: false });
      continue;
    }
    const r = await callWithTimeout(registry, b.call.name, b.call.arguments, episodeId, timeoutMs, signal);
    out.push({ ...r, name: b.call.name, args: b.call.arguments });
  }
  return out;
}

async function callWithTimeout(registry: ToolRegistry, name: string, args: Record<string, unknown>, episodeId: string, timeoutMs: number, outer?: AbortSignal): Promise<ToolCallResult> {
  const ac = new AbortController();
  const onOuterAbort = () => ac.abort(outer?.reason);
  if (outer?.aborted) ac.abort(outer.reason);
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  const t0 = performance.now();
  let clearTimer = () => {};
  // A tool that ignores the abort still cannot hold the episode past its timeout or the rollout's abort.
  const timeout = new Promise<ToolCallResult>((resolve) => {
    const fail = (error: string) => resolve({ text: `Error: ${error}`, ok: false, error, latencyMs: performance.now() - t0, truncated: false });
    // Responsive time: the run's own synchronous GPU work must not time a tool out (responsive-timeout.ts).
    clearTimer = responsiveTimeout(timeoutMs, () => {
      fail(`${name} timed out after ${timeoutMs} ms`);
      ac.abort(new Error('timeout'));
    });
    ac.signal.addEventListener('abort', () => fail(`${name} was aborted`), { once: true });
  });
  try {
    return await Promise.race([registry.call(name, args, { episodeId, signal: ac.signal }), timeout]);
  } finally {
    clearTimer();
    outer?.removeEventListener('abort', onOuterAbort);
  }
}
