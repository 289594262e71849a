// The studio's one engine worker: created on first use and shared by every slice (models, run,
// runs, playground, eval). Slices call it; components never do. Exercised through the panels'
// Playwright specs (tests/e2e/studio-*.spec.ts).
import { EngineClient } from '../workers/engine/client';

let client: EngineClient | null = null;

/** The engine worker's client, started on the first call. */
export function engine(): EngineClient {
  client ??= EngineClient.create();
  return client;
}
