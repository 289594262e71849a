// The studio's one engine worker: created on first use and shared by every slice (models, run,
// runs, playground, eval). Slices call it; components never do. When it goes down (its worker
// crashed or its GPU device was lost) restartEngine() replaces it with a new worker (a new device
// on first use); run-event listeners stay attached across restarts. Exercised through the panels'
// Playwright specs (tests/e2e/studio-*.spec.ts; the restart by studio-run-failure.spec.ts).
import { EngineClient, type RunListener } from '../workers/engine/client';

let client: EngineClient | null = null;
const runListeners = new Set<RunListener>();
const downListeners = new Set<(reason: string) => void>();

/** How long a restart waits for the old worker to write its failed runs' status.json. */
const SETTLE_MS = 10_000;

/** The engine worker's client, started on the first call. */
export function engine(): EngineClient {
  if (client) return client;
  const c = EngineClient.create();
  c.onEvent((runId, e) => {
    if (client === c) for (const l of runListeners) l(runId, e);
  });
  c.onDown((reason) => {
    if (client === c) for (const l of downListeners) l(reason);
  });
  client = c;
  return c;
}

/** Every run event of the current engine (and of the ones after a restart). */
export function onRunEvent(l: RunListener): () => void {
  runListeners.add(l);
  return () => runListeners.delete(l);
}

/** The current engine went down (worker crashed or GPU device lost), with the message its runs got. */
export function onEngineDown(l: (reason: string) => void): () => void {
  downListeners.add(l);
  return () => downListeners.delete(l);
}

/** Why the current engine cannot train (null when it can, or none was started yet). */
export const engineDown = (): string | null => client?.down ?? null;

/**
 * Ends the current worker (after it wrote its failed runs, at most SETTLE_MS) and starts a new
 * one; the models it had loaded are gone, so the caller forgets their ids.
 */
export async function restartEngine(): Promise<void> {
  const old = client;
  client = null;
  if (old) {
    await old.settled(SETTLE_MS);
    old.terminate();
  }
  engine();
}
