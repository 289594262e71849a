// LINEAR_KERNELS_FINGERPRINT (src/gpu/kernels/linear-fingerprint.ts) is part of every linear tuning
// family, so a remembered variant choice is timed again once the kernels change. It must match
// the files it covers: after a change to any of them, set it to the value this test names.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINEAR_KERNEL_FILES, LINEAR_KERNELS_FINGERPRINT, fingerprint } from '../../../src/gpu/kernels/linear-fingerprint';
import { tuningFamily } from '../../../src/gpu/kernels/linear-tune';
import { nodeRuntime } from '../helpers/gpu-helpers';

describe('linear tuning fingerprint', () => {
  it('matches the linear kernels\' files', () => {
    const now = fingerprint(LINEAR_KERNEL_FILES.map((name) => ({ name, text: readFileSync(name, 'utf8') })));
    expect(LINEAR_KERNELS_FINGERPRINT, `the linear kernels changed: set LINEAR_KERNELS_FINGERPRINT in src/gpu/kernels/linear-fingerprint.ts to '${now}'`).toBe(now);
  });

  it('changes with any byte of any file and names the family', async () => {
    const files = [{ name: 'a.wgsl', text: 'fn f() {}' }, { name: 'b.ts', text: 'export {}' }];
    const base = fingerprint(files);
    expect(base).toMatch(/^[0-9a-f]{8}$/);
    expect(fingerprint([{ ...files[0], text: 'fn f() { }' }, files[1]])).not.toBe(base);
    expect(fingerprint([files[1], files[0]])).not.toBe(base);
    const rt = await nodeRuntime();
    expect(tuningFamily(rt, 'f32', 'decode1', 64, 192).endsWith(`#${LINEAR_KERNELS_FINGERPRINT}`)).toBe(true);
  });
});
