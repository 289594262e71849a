// The Node WebGPU provider's driver discovery: an override naming a missing ICD file fails
// with a message that says what to do. Runs in a child process because the provider caches
// Dawn once per process.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';

describe('getNodeGpu', () => {
  it('names the bad RL_STUDIO_VK_ICD file and what to install', () => {
    const script = "import('./src/gpu/node-gpu.ts').then(m => m.getNodeGpu()).then(() => console.log('opened'), e => { console.log(e.name + ': ' + e.message); })";
    const r = spawnSync('npx', ['tsx', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, RL_STUDIO_VK_ICD: '/nonexistent/icd.json', VK_ICD_FILENAMES: '' },
      timeout: 60_000,
    });
    const out = r.stdout + r.stderr;
    expect(out).toContain('WebGpuUnavailableError');
    expect(out).toContain('/nonexistent/icd.json');
    expect(out).toMatch(/apt-get install chromium/);
  });
});
