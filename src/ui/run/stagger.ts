// Keeps the page responsive while a run streams in: each live chart takes its new data in its own
// macrotask, as a transition (React renders it in slices and yields), so a step's update of a dozen
// recharts charts is a dozen short tasks instead of one long one. Used by MetricCharts; the
// no-long-task check is in tests/e2e/studio-run.spec.ts. Chart widths are measured here too, so a
// resize is also a queued transition rather than recharts' own synchronous re-render.
import { startTransition, useEffect, useState } from 'react';

const queue: (() => void)[] = [];
let scheduled = false;

function drain(): void {
  const job = queue.shift();
  if (job) startTransition(job);
  if (queue.length) setTimeout(drain, 0);
  else scheduled = false;
}

function enqueue(job: () => void): void {
  queue.push(job);
  if (!scheduled) {
    scheduled = true;
    setTimeout(drain, 0);
  }
}

/** `value`, applied in its own task after the components queued before it; `initial` until then. */
export function useStaggered<T, I>(value: T, initial: I): T | I {
  const [shown, setShown] = useState<T | I>(initial);
  useEffect(() => {
    let live = true;
    enqueue(() => {
      if (live) setShown(value);
    });
    return () => {
      live = false;
    };
  }, [value]);
  return shown;
}

/** The element's content width in px (0 until measured); resizes arrive as transitions, not urgent renders. */
export function useWidth(ref: { current: HTMLElement | null }): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver((entries) => {
      const w = Math.floor(entries[entries.length - 1].contentRect.width);
      enqueue(() => setWidth(w));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return width;
}
