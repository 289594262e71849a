// Entry of harness.html, a test-only page of the build: collects every
// src/harness/*.harness.ts module and exposes their functions as window.__harness, so
// Playwright tests (tests/e2e) can drive engine code inside a real browser.
import type { Harness, HarnessModule } from './types';

const modules = import.meta.glob<HarnessModule>('./*.harness.ts', { eager: true });
const harness: Harness = {};
for (const m of Object.values(modules)) m.register(harness);
(window as unknown as { __harness: Harness }).__harness = harness;
document.getElementById('status')!.textContent = `ready: ${Object.keys(harness).sort().join(', ')}`;
