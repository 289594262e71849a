// resumedKeepCheckpoints (src/run/resume.ts): `train --resume` / `sft --resume` go on with the
// log.keep_checkpoints their run's config.yaml saved, unless --set log.keep_checkpoints=N is given;
// a folder without config.yaml (or with no valid count) keeps the flags' value. On a real folder
// (NodeFsStorage); the sft end to end is tests/unit/cli/sft-cli.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/rl/config-schema';
import { NodeFsStorage } from '../../../src/run/node-storage';
import { resumedConfigYaml, resumedKeepCheckpoints } from '../../../src/run/resume';

describe('a resumed run keeps its own log.keep_checkpoints', () => {
  it('takes config.yaml\'s value unless --set gives one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'resume-keep-'));
    const s = new NodeFsStorage(dir);
    expect(await resumedKeepCheckpoints(s, 3, [])).toBe(3);   // no config.yaml yet
    writeFileSync(join(dir, 'config.yaml'), stringify({ ...DEFAULT_CONFIG, log: { ...DEFAULT_CONFIG.log, keep_checkpoints: 2 } }));
    expect(await resumedKeepCheckpoints(s, 3, [])).toBe(2);
    expect(await resumedKeepCheckpoints(s, 3, ['train.steps=9'])).toBe(2);
    expect(await resumedKeepCheckpoints(s, 5, ['log.keep_checkpoints=5'])).toBe(5);
    writeFileSync(join(dir, 'config.yaml'), stringify({ ...DEFAULT_CONFIG, log: { ...DEFAULT_CONFIG.log, keep_checkpoints: 0 } }));
    expect(await resumedKeepCheckpoints(s, 3, [])).toBe(0);   // keep all stays keep all
    writeFileSync(join(dir, 'config.yaml'), 'log:\n  keep_checkpoints: -1\n');
    expect(await resumedKeepCheckpoints(s, 3, [])).toBe(3);
  });
});

describe('a resumed SFT run records its own config.yaml', () => {
  it('keeps every setting and comment, changes only the steps and checkpoint settings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'resume-config-'));
    const s = new NodeFsStorage(dir);
    const set = { steps: 12, checkpointEvery: 4, keepCheckpoints: 2 };
    expect(await resumedConfigYaml(s, set)).toBeNull();   // no config.yaml: the caller writes the resolved one
    writeFileSync(join(dir, 'config.yaml'), '# my run\ntrainer: sft\noptim:\n  lr: 0.01 # high\ntrain:\n  steps: 5\n  seed: 7\n');
    const text = (await resumedConfigYaml(s, set))!;
    expect(text).toContain('# my run');
    expect(text).toContain('# high');
    expect(parse(text)).toEqual({ trainer: 'sft', optim: { lr: 0.01 }, train: { steps: 12, seed: 7 }, log: { checkpoint_every: 4, keep_checkpoints: 2 } });
    writeFileSync(join(dir, 'config.yaml'), 'train: [unclosed\n');
    expect(await resumedConfigYaml(s, set)).toBeNull();
  });
});
