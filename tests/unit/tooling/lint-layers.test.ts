// The layer rule (scripts/eslint-layers.mjs, on in eslint.config.js) through the ESLint Node API:
// source text linted as if it lived inside an engine folder. An upward or sideways import must
// fail with `layers/import-order`, a downward one must pass, and every src/ folder must be on a
// layer that docs/architecture.md names. Run: npx vitest run tests/unit/tooling/lint-layers.test.ts
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { LAYERS, LAYER_EXCEPTIONS } from '../../../scripts/eslint-layers.mjs';

const root = join(__dirname, '..', '..', '..');
const eslint = new ESLint({ cwd: root });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  expect(result.fatalErrorCount, JSON.stringify(result.messages)).toBe(0);
  return result.messages.filter((m) => m.ruleId === 'layers/import-order').map((m) => m.message);
}

describe('layers/import-order', () => {
  it('fails an engine file that imports a higher layer', async () => {
    const errs = await layerErrors('src/gpu/kernels/probe.ts',
      "import { computeAdvantages } from '../../rl/advantages';\nexport const f = computeAdvantages;\n");
    expect(errs).toHaveLength(1);
    expect(errs[0]).toContain('src/gpu/kernels/probe.ts (layer gpu) imports src/rl/advantages (layer rl), above it');
  });

  it('passes the same file importing a lower layer', async () => {
    const errs = await layerErrors('src/gpu/kernels/probe.ts',
      "import { KL_KIND } from '../../reference/kl';\nimport { mulberry32 } from '../../util/rng';\nexport const f = [KL_KIND, mulberry32];\n");
    expect(errs).toEqual([]);
  });

  it('catches re-exports, dynamic import() and directory imports', async () => {
    const errs = await layerErrors('src/data/probe.ts', [
      "export { Trainer } from '../train/trainer';",
      "export * from '../cli/main';",
      "export const later = () => import('../envs');",
    ].join('\n') + '\n');
    expect(errs).toHaveLength(3);
    expect(errs[2]).toContain('imports src/envs (layer train / envs)');
  });

  it('fails folders on one layer importing each other', async () => {
    const errs = await layerErrors('src/train/probe.ts', "import { weigh } from '../envs/reward';\nexport const f = weigh;\n");
    expect(errs).toHaveLength(1);
    expect(errs[0]).toContain('on the same layer as it');
  });

  it('allows only the listed exceptions', async () => {
    expect(await layerErrors('src/reference/probe.ts', "import type { ModelConfig } from '../model/types';\nexport type C = ModelConfig;\n")).toEqual([]);
    const errs = await layerErrors('src/reference/probe.ts', "import { GpuModel } from '../model/gpu/model';\nexport const f = GpuModel;\n");
    expect(errs).toHaveLength(1);
    for (const e of LAYER_EXCEPTIONS) expect(e.why.length).toBeGreaterThan(20);
  });

  it('every src/ folder is on a layer, and docs/architecture.md names each one', () => {
    const placed = new Set(LAYERS.flatMap((l) => l.folders));
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.filter((f) => !placed.has(f))).toEqual([]);
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    for (const f of placed) expect(doc, `docs/architecture.md names ${f}`).toContain(f === 'main.tsx' ? f : `${f}/`);
  });
});
