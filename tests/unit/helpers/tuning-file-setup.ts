// vitest globalSetup (vite.config.ts test.globalSetup): points every test run at a fresh
// temporary kernel tuning file (RL_STUDIO_TUNING_FILE, read by src/gpu/node-gpu.ts) so tests and
// the CLI processes they spawn never read or write the user's ~/.cache/rl-studio/tuning.json.
// The test forks inherit the variable; the folder is removed after the run.
// Checked by tests/unit/gpu/tuning-file.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'rl-studio-test-tuning-'));
  process.env.RL_STUDIO_TUNING_FILE = join(dir, 'tuning.json');
  return () => rmSync(dir, { recursive: true, force: true });
}
