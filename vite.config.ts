// Vite config for the studio: React, cross-origin isolation headers (SharedArrayBuffer for
// Pyodide interrupts), and the vitest unit-test settings. Exercised by `npm start`, `npm run
// build` (the app alone, into dist/), `vite build --mode test` (the app plus the test page
// harness.html, into dist-test/, served to Playwright) and `npm run test:unit`.
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { datasetsPlugin, ortRuntimePlugin, pythonSandboxPlugin, searchProxyPlugin } from './src/server/vite-plugins';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** The build mode that adds harness.html (a test-only page exposing engine functions). */
export const TEST_MODE = 'test';

/** The pages a build bundles: the app, plus harness.html in the test mode. */
function buildInput(mode: string): Record<string, string> {
  return mode === TEST_MODE ? { main: 'index.html', harness: 'harness.html' } : { main: 'index.html' };
}

export default defineConfig(({ mode }) => ({
  // pythonSandboxPlugin: Pyodide served under /pyodide/ + the strict CSP of the Python worker;
  // searchProxyPlugin: the search proxy under /api/ (keys stay on the server);
  // ortRuntimePlugin: onnxruntime-web's .wasm/.mjs under /ort/ (no CDN);
  // datasetsPlugin: datasets/*.jsonl under /datasets/ (the engine worker's tasks and corpora).
  plugins: [react(), pythonSandboxPlugin(), searchProxyPlugin(), ortRuntimePlugin(), datasetsPlugin()],
  server: { headers: isolation, port: 5173, host: 'localhost' },
  preview: { headers: isolation, port: 4173, host: 'localhost' },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: true,
    // harness.html is a test-only page that exposes engine functions to Playwright: only the
    // test build (`vite build --mode test`, its own folder) contains it, never the production one.
    outDir: mode === TEST_MODE ? 'dist-test' : 'dist',
    rollupOptions: {
      input: buildInput(mode),
    },
  },
  test: {
    // One folder per layer (tests/unit/gpu/, model/, train/, rl/, ...: docs/architecture.md).
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    // A temporary kernel tuning file per run (RL_STUDIO_TUNING_FILE): never the user's cache.
    globalSetup: ['tests/unit/helpers/tuning-file-setup.ts'],
    // Each file waits for its GPU work to finish before the next file of its fork starts.
    setupFiles: ['tests/unit/helpers/gpu-settle.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Dawn (the `webgpu` package) is a native addon: forks (processes), not threads. Two files at
    // a time: many wait on child processes or Pyodide, so the 2-core suite ends sooner (measured
    // 755 s vs 872 s one at a time, every test passing both ways).
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    // The files of a fork run one after another in one module graph (not a fresh fork per file):
    // the GPU tests share one device and its compiled pipelines per fork
    // (tests/unit/helpers/gpu-helpers.ts), and modules load once. Pipeline builds on SwiftShader
    // were ~40 % of the unit tests' time with a fork per file; measured 566 s -> 429 s for the
    // whole unit suite. A test that swaps global state puts it back (helpers/tuning-store.ts).
    isolate: false,
  },
}));
