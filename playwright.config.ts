// Playwright settings for the browser tests: the built studio served by `vite preview`,
// headless Debian Chromium (found by scripts/find-chrome.mjs, never downloaded) with WebGPU on
// SwiftShader. Run by `npm test` after the build, or alone with `npx playwright test`.
import { defineConfig } from '@playwright/test';
import { findChrome, chromeFlags } from './scripts/find-chrome.mjs';

const chrome = findChrome();
if (!chrome) throw new Error('No Chrome/Chromium found: install chromium or set CHROME_PATH (see README).');

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 180_000,
  expect: { timeout: 60_000 },
  workers: 1,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  outputDir: 'test-results/e2e',
  use: {
    baseURL: 'http://localhost:4173',
    screenshot: 'on',
    launchOptions: { executablePath: chrome, args: chromeFlags },
  },
  webServer: {
    command: 'npx vite preview --port 4173 --strictPort',
    url: 'http://localhost:4173',
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
