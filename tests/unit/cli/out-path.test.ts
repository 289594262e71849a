// The CLI's guards against losing work (src/cli/out-path.ts), no GPU: a run folder with files is
// refused without --resume / --overwrite (and emptied with --overwrite), an output file equal to
// an input (same path, another spelling, a symlink) is refused, an existing one needs --overwrite;
// and `sft --out` / `logprobs --out` refuse before loading anything.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/util/args';
import { checkOutFile, checkOutFileOf, checkOutFolderOf, prepareRunFolder } from '../../../src/cli/out-path';
import { cliCommand } from '../../fixtures/cli-command';

const tmp = () => mkdtempSync(join(tmpdir(), 'out-path-'));

describe('run folders', () => {
  it('accepts a new or empty folder, refuses one with files unless --resume or --overwrite', () => {
    const dir = tmp();
    expect(prepareRunFolder(join(dir, 'new'), 'new', 'sft')).toBe('fresh');
    mkdirSync(join(dir, 'empty'));
    expect(prepareRunFolder(join(dir, 'empty'), 'new', 'sft')).toBe('fresh');
    expect(prepareRunFolder(join(dir, 'empty'), 'resume', 'sft')).toBe('fresh');
    const run = join(dir, 'run');
    mkdirSync(join(run, 'checkpoints', 'step-1'), { recursive: true });
    writeFileSync(join(run, 'metrics.jsonl'), '{"step":1}\n');
    expect(() => prepareRunFolder(run, 'new', 'sft')).toThrow(/sft: the run folder .*run already holds .*metrics\.jsonl.*pass --resume to continue that run, --overwrite/);
    expect(readFileSync(join(run, 'metrics.jsonl'), 'utf8')).toBe('{"step":1}\n');
    expect(prepareRunFolder(run, 'resume', 'sft')).toBe('resume');
    expect(prepareRunFolder(run, 'overwrite', 'sft')).toBe('fresh');
    expect(readdirSync(run)).toEqual([]);
    writeFileSync(join(dir, 'file'), 'x');
    expect(() => prepareRunFolder(join(dir, 'file'), 'new', 'train')).toThrow(/is a file, not a folder/);
  });
});

describe('output folders (export)', () => {
  it('refuses an --out that holds or lies inside an input, and a non-empty one without --overwrite', () => {
    const dir = tmp();
    const model = join(dir, 'model');
    mkdirSync(join(model, 'adapter'), { recursive: true });
    writeFileSync(join(model, 'config.json'), '{}');
    const args = (...a: string[]) => parseArgs(['--model', model, ...a]);
    expect(() => checkOutFolderOf(args('--out', model), 'export')).toThrow(/export: --out .*model overlaps --model .*pick another --out/);
    expect(() => checkOutFolderOf(args('--out', join(model, 'merged')), 'export')).toThrow(/overlaps --model/);
    expect(() => checkOutFolderOf(args('--out', dir), 'export')).toThrow(/overlaps --model/);
    expect(() => checkOutFolderOf(parseArgs(['--adapter', join(model, 'adapter'), '--out', join(model, 'adapter', '..', 'adapter')]), 'export')).toThrow(/overlaps --adapter/);
    const out = join(dir, 'out');
    expect(() => checkOutFolderOf(args('--out', out), 'export')).not.toThrow();
    mkdirSync(out);
    writeFileSync(join(out, 'model.onnx'), 'x');
    expect(() => checkOutFolderOf(args('--out', out), 'export')).toThrow(/already holds model\.onnx; pass --overwrite/);
    expect(() => checkOutFolderOf(args('--out', out, '--overwrite'), 'export')).not.toThrow();
    expect(readFileSync(join(model, 'config.json'), 'utf8')).toBe('{}');
  });
});

describe('output files', () => {
  it('refuses its own input under any spelling, and an existing file without --overwrite', () => {
    const dir = tmp();
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, '{"text": "a"}\n');
    symlinkSync(input, join(dir, 'link.jsonl'));
    expect(() => checkOutFile(input, [['--input', input]], true, 'logprobs')).toThrow(/logprobs: --out .*in\.jsonl is the same file as --input .*would destroy the input/);
    expect(() => checkOutFile(join(dir, 'sub', '..', 'in.jsonl'), [['--input', input]], true, 'logprobs')).toThrow(/same file/);
    expect(() => checkOutFile(join(dir, 'link.jsonl'), [['--input', input]], true, 'logprobs')).toThrow(/same file/);
    expect(() => checkOutFile(join(dir, 'other.jsonl'), [['--input', input]], false, 'logprobs')).not.toThrow();
    writeFileSync(join(dir, 'old.jsonl'), 'keep');
    expect(() => checkOutFile(join(dir, 'old.jsonl'), [['--input', input]], false, 'logprobs')).toThrow(/already exists; pass --overwrite/);
    expect(() => checkOutFile(join(dir, 'old.jsonl'), [['--input', input]], true, 'logprobs')).not.toThrow();
    const args = parseArgs(['--model', join(dir, 'm.bin'), '--input', input, '--out', join(dir, 'm.bin')]);
    expect(() => checkOutFileOf(args, 'logprobs')).toThrow(/same file as --model/);
  });

  it('the CLI refuses before loading anything (logprobs over its input, sft into a used folder)', () => {
    const dir = tmp();
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, '{"text": "a"}\n');
    const cli = (...a: string[]) => spawnSync(...cliCommand(...a), { encoding: 'utf8', timeout: 60_000 });
    const r = cli('logprobs', '--model', join(dir, 'absent.bin'), '--input', input, '--out', input);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/same file as --input/);
    expect(readFileSync(input, 'utf8')).toBe('{"text": "a"}\n');
    writeFileSync(join(dir, 'metrics.jsonl'), '{"step":1}\n');
    const s = cli('sft', '--model', join(dir, 'absent.bin'), '--data', input, '--out', dir);
    expect(s.status).not.toBe(0);
    expect(s.stderr).toMatch(/already holds .*pass --resume/);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe('{"step":1}\n');
  }, 60_000);
});
