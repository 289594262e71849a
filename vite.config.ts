// Vite config for the studio: React, cross-origin isolation headers (SharedArrayBuffer for
// Pyodide interrupts), and the vitest unit-test settings. Exercised by `npm start`, `npm run
// build` and `npm run test:unit`.
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { ortRuntimePlugin, pythonSandboxPlugin, searchProxyPlugin } from './src/server/vite-plugins';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  // pythonSandboxPlugin: Pyodide served under /pyodide/ + the strict CSP of the Python worker;
  // searchProxyPlugin: the search proxy under /api/ (keys stay on the server);
  // ortRuntimePlugin: onnxruntime-web's .wasm/.mjs under /ort/ (no CDN).
  plugins: [react(), pythonSandboxPlugin(), searchProxyPlugin(), ortRuntimePlugin()],
  server: { headers: isolation, port: 5173, host: 'localhost' },
  preview: { headers: isolation, port: 4173, host: 'localhost' },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: true,
    // harness.html is a test-only page that exposes engine functions to Playwright.
    rollupOptions: { input: { main: 'index.html', harness: 'harness.html' } },
  },
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Dawn (the `webgpu` package) is a native addon: one fork per file keeps devices apart.
    pool: 'forks',
    fileParallelism: false,
  },
});
