// The shape of window.__harness: named async functions that Playwright tests call with
// page.evaluate. Each area adds its functions in its own src/harness/<area>.harness.ts.
export type HarnessFn = (...args: never[]) => Promise<unknown>;
export type Harness = Record<string, HarnessFn>;

export interface HarnessModule {
  register(h: Harness): void;
}
