// The Runs panel's zip and folder reading (src/ui/runs/run-zip.ts): an exported zip has the run's
// files under one folder named after it and reads back to the same files; a picked folder or a zip
// is cut to the folder holding config.yaml; a folder without config.yaml, or a damaged zip, is
// refused with a message that says what to pick.
import { describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { runFolderOf, unzipEntries, zipRunFolder } from '../../../src/ui/runs/run-zip';

const enc = (s: string) => new TextEncoder().encode(s);
const files = [
  { path: 'config.yaml', bytes: enc('trainer: sft\n') },
  { path: 'metrics.jsonl', bytes: enc('{"step":1,"loss":2}\n') },
  { path: 'checkpoints/step-2/state.json', bytes: enc('{}') },
  { path: 'checkpoints/step-2/state.safetensors', bytes: new Uint8Array([1, 2, 3, 4]) },
];

describe('run folder zip', () => {
  it('round-trips a run folder under its id', () => {
    const zip = zipRunFolder({ runId: 'run-1', files });
    expect(Object.keys(unzipSync(zip)).sort()).toEqual(['run-1/checkpoints/step-2/state.json', 'run-1/checkpoints/step-2/state.safetensors', 'run-1/config.yaml', 'run-1/metrics.jsonl']);
    const back = runFolderOf(unzipEntries(zip, 'run-1.zip'), 'fallback');
    expect(back.runId).toBe('run-1');
    expect(back.files.map((f) => f.path).sort()).toEqual(files.map((f) => f.path).sort());
    for (const f of files) expect(back.files.find((x) => x.path === f.path)!.bytes).toEqual(f.bytes);
  });

  it('finds the run folder inside a picked folder, or takes the fallback name at the top', () => {
    const nested = runFolderOf([...files.map((f) => ({ ...f, path: `outer/my run/${f.path}` })), { path: 'outer/notes.txt', bytes: enc('x') }], 'fb');
    expect(nested.runId).toBe('my-run');
    expect(nested.files.map((f) => f.path)).not.toContain('notes.txt');
    expect(runFolderOf(files, 'dropped').runId).toBe('dropped');
  });

  it('refuses a folder without config.yaml and a damaged zip, saying what to pick', () => {
    expect(() => runFolderOf([{ path: 'x/metrics.jsonl', bytes: enc('') }], 'fb')).toThrow(/no config\.yaml .*pick the run folder the CLI wrote/);
    expect(() => unzipEntries(enc('not a zip'), 'bad.zip')).toThrow(/bad\.zip: not a readable zip/);
  });
});
