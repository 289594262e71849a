// The kernel tuning file during tests (vite.config.ts globalSetup
// tests/unit/helpers/tuning-file-setup.ts): RL_STUDIO_TUNING_FILE names a temporary file, not
// the user's ~/.cache/rl-studio/tuning.json, and a choice remembered through the Node GPU's store
// lands in that file while the home cache is left as it was.
// Run: npx vitest run tests/unit/gpu/tuning-file.test.ts
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getNodeGpu, tuningFilePath } from '../../../src/gpu/node-gpu';
import { GpuRuntime } from '../../../src/gpu/runtime';
import { getTuning, setTuning } from '../../../src/gpu/tuning';

const HOME_FILE = join(homedir(), '.cache', 'rl-studio', 'tuning.json');

describe('tuning file under vitest', () => {
  it('is a temporary file, not the home cache, and receives the choices', async () => {
    const file = tuningFilePath();
    console.log(`tuning file during tests: ${file}`);
    expect(process.env.RL_STUDIO_TUNING_FILE).toBe(file);
    expect(resolve(file).startsWith(join(homedir(), '.cache'))).toBe(false);
    expect(realpathSync(dirname(file)).startsWith(realpathSync(tmpdir()))).toBe(true);

    const before = existsSync(HOME_FILE) ? { text: readFileSync(HOME_FILE, 'utf8'), mtime: statSync(HOME_FILE).mtimeMs } : null;
    const rt = await GpuRuntime.create((await getNodeGpu()).gpu);
    const family = `test:tuning-file:${process.pid}`;
    setTuning(rt.report, family, 'probe');
    expect(getTuning(rt.report, family)).toBe('probe');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Object.entries(stored).some(([k, v]) => k.endsWith(family) && v === 'probe')).toBe(true);
    const after = existsSync(HOME_FILE) ? { text: readFileSync(HOME_FILE, 'utf8'), mtime: statSync(HOME_FILE).mtimeMs } : null;
    expect(after).toEqual(before);
    if (after) expect(after.text).not.toContain(family);
  });
});
