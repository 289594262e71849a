// The production build leaves the test page out: vite.config.ts evaluated for `vite build` has
// index.html as its only input and writes dist/, while the test build (`--mode test`, served to
// Playwright) adds harness.html and writes dist-test/. Run: npx vitest run tests/unit/tooling/build-config.test.ts
import { describe, expect, it } from 'vitest';
import type { UserConfig } from 'vite';
import config, { TEST_MODE } from '../../../vite.config';

function resolved(mode: string): UserConfig {
  if (typeof config !== 'function') throw new Error('vite.config.ts must export a function of the mode');
  return config({ mode, command: 'build', isSsrBuild: false, isPreview: false }) as UserConfig;
}

describe('vite build inputs', () => {
  it('production: the app only, into dist/', () => {
    const b = resolved('production').build!;
    expect(b.rollupOptions!.input).toEqual({ main: 'index.html' });
    expect(b.outDir).toBe('dist');
  });

  it('test mode: the app plus harness.html, into dist-test/', () => {
    const b = resolved(TEST_MODE).build!;
    expect(b.rollupOptions!.input).toEqual({ main: 'index.html', harness: 'harness.html' });
    expect(b.outDir).toBe('dist-test');
  });
});
