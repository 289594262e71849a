// Playwright settings for the browser tests: the test build of the studio (`npx vite build
// --mode test`: the app plus harness.html, in dist-test/) served by `vite preview --mode test`,
// headless Debian Chromium (found by scripts/find-chrome.mjs, never downloaded) with WebGPU on
// SwiftShader. Run by `npm test` after that build, or alone with `npx playwright test`.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { findChrome, chromeFlags } from './scripts/find-chrome.mjs';

const chrome = findChrome();
// A port of our own, so several runs on one machine do not collide; set in the main process and
// inherited by the workers, which evaluate this file again.
process.env.PW_PORT ??= String(4200 + Math.floor(Math.random() * 700));
const port = Number(process.env.PW_PORT);
/** The dev server (`npm start` without --open), for tests/e2e/dev-server.spec.ts. */
export const devPort = port + 1000;
process.env.PW_DEV_PORT = String(devPort);
// The CLI processes the browser tests spawn (the CLI side of their CLI-equal comparisons, with
// --tune false) must run the untuned kernel choices as the engine worker does, never the choices
// remembered in the user's ~/.cache/rl-studio/tuning.json: a tuning file of this run's own, not
// yet written (as the unit tests' tests/unit/helpers/tuning-file-setup.ts; inherited like PW_PORT).
process.env.RL_STUDIO_TUNING_FILE ??= join(tmpdir(), `rl-studio-e2e-tuning-${process.env.PW_PORT}-${Date.now()}.json`);
if (!chrome) throw new Error('No Chrome/Chromium found: install chromium or set CHROME_PATH (see README).');
if (!existsSync('dist-test/harness.html')) {
  throw new Error('No test build in dist-test/: run `npx vite build --mode test` first (the app plus harness.html; `npx vite build` alone leaves the test page out).');
}

/**
 * Specs that check the page's main-thread tasks while a run trains (tests/e2e/main-thread-trace.ts:
 * CPU time, and a looser wall-time bound): on a 2-core machine a second browser beside them would
 * lengthen those tasks' wall time, so they run last, one
 * at a time, after every other spec (which run two at a time; most of their time is waiting on
 * SwiftShader, Pyodide or a CLI child process).
 */
const ALONE = ['run-worker-grpo.spec.ts', 'studio-run.spec.ts', 'studio-first-run.spec.ts'];

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 180_000,
  expect: { timeout: 60_000 },
  workers: 2,
  projects: [
    { name: 'shared', testIgnore: ALONE },
    // Runs after 'shared' (and is skipped when a 'shared' spec failed: the run is red already).
    { name: 'alone', testMatch: ALONE, workers: 1, dependencies: ['shared'] },
  ],
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  outputDir: 'test-results/e2e',
  use: {
    baseURL: `http://localhost:${port}`,
    screenshot: 'on',
    launchOptions: { executablePath: chrome, args: chromeFlags },
  },
  webServer: [
    {
      command: `npx vite preview --mode test --port ${port} --strictPort`,
      url: `http://localhost:${port}`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: `npx vite --port ${devPort} --strictPort`,
      url: `http://localhost:${devPort}`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
  ],
});
