// Finds a Chrome/Chromium binary for the browser tests: CHROME_PATH, then the usual install
// paths, then the PATH. Used by scripts/test.mjs and playwright.config.ts; never downloads one.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const candidates = [
  '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable', '/opt/google/chrome/chrome', '/snap/bin/chromium',
];
const names = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** Returns the path of a Chrome/Chromium executable, or null when none is installed. */
export function findChrome() {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (existsSync(fromEnv)) return fromEnv;
    throw new Error(`CHROME_PATH=${fromEnv} does not exist: point it at a Chrome or Chromium binary, or unset it.`);
  }
  for (const c of candidates) if (existsSync(c)) return c;
  for (const n of names) {
    try {
      const p = execFileSync('which', [n], { encoding: 'utf8' }).trim();
      if (p) return p;
    } catch { /* not on PATH */ }
  }
  return null;
}

/**
 * Dawn zero-fills workgroup memory through a loop (Tint) instead of the Vulkan extension, whose
 * form SwiftShader compiles into one store per element: 1-1.5 s more compile time for each
 * pipeline that declares a tile, a reduction buffer or the NF4 code table (src/gpu/node-gpu.ts
 * dawnFlags does the same in Node). The same string as src/gpu/device.ts SWIFTSHADER_CHROME_SWITCH
 * (this plain script cannot import TypeScript; tests/unit/gpu/node-gpu.test.ts checks they agree).
 */
export const SWIFTSHADER_FAST_COMPILE = '--disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension';

/** Chromium flags that expose WebGPU on SwiftShader headless and keep it off the network. */
export const chromeFlags = [
  '--no-sandbox', '--enable-unsafe-webgpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
  SWIFTSHADER_FAST_COMPILE,
];
