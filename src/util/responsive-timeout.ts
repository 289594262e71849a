// Timeouts that count only the time this thread was free to act. A run's own synchronous work
// stalls the event loop (in Node, Dawn builds a compute pipeline synchronously at a kernel's first
// dispatch: up to ~1.5 s each on SwiftShader, several at a new shape). A tool call made just before
// such a stall sends its request only after it (as does a server in this process answer), and a
// plain setTimeout that expired meanwhile fires first: the call fails although the tool answered
// in milliseconds. Here the clock advances in ticks of at most `tickMs`, and a tick counts at most
// two ticks' worth however late it runs, so a stall adds ~2 ticks, not its length. Tool and request
// timeouts use these (agents/tool-exec.ts, the HTTP and search tools, the Python pool, the search
// proxy). Tested by tests/unit/util/responsive-timeout.test.ts.

/** Calls `onTimeout` once `ms` of responsive time have passed; the returned function cancels it. */
export function responsiveTimeout(ms: number, onTimeout: () => void, tickMs = 100): () => void {
  let elapsed = 0, last = performance.now(), cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    if (cancelled) return;
    const now = performance.now();
    elapsed += Math.min(now - last, 2 * tickMs);
    last = now;
    if (elapsed >= ms) onTimeout();
    else timer = setTimeout(tick, Math.min(tickMs, ms - elapsed));
  };
  timer = setTimeout(tick, Math.min(tickMs, ms));
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}

/** An AbortSignal that aborts (with a TimeoutError, as AbortSignal.timeout) after `ms` of responsive time; `clear` stops its clock. */
export function responsiveSignal(ms: number): { signal: AbortSignal; clear: () => void } {
  const ac = new AbortController();
  const clear = responsiveTimeout(ms, () => ac.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')));
  return { signal: ac.signal, clear };
}
