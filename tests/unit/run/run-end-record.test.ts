// The recorder's end record (status.json, option `status`): written at finished / cancelled /
// failed with the step and last checkpoint, removed when the run starts again (a resume), never
// written without the option (the CLI's folders). The Runs panel reads it to tell a cut-off run
// (no record) from one that ended (src/workers/engine/runs.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeFsStorage } from '../../../src/run/node-storage';
import { recordRun } from '../../../src/run/recorder';
import { STATUS_FILE } from '../../../src/run/layout';
import { readText } from '../../../src/run/storage';

const started = { kind: 'started', runId: 'r', trainer: 'sft', plan: null, totalSteps: 4, startStep: 0 } as const;

describe('status.json end record', () => {
  it('records how a run ended and drops the record when it starts again', async () => {
    const s = new NodeFsStorage(mkdtempSync(join(tmpdir(), 'run-end-')));
    const emit = recordRun(s, { configYaml: 'trainer: sft\n', status: true });
    await emit(started);
    expect(await readText(s, STATUS_FILE)).toBeNull();
    await emit({ kind: 'cancelled', step: 2, lastCheckpoint: 'checkpoints/step-2' });
    const cancelled = JSON.parse((await readText(s, STATUS_FILE))!) as Record<string, unknown>;
    console.log(`after stop: ${JSON.stringify(cancelled)}`);
    expect(cancelled).toMatchObject({ state: 'cancelled', step: 2, lastCheckpoint: 'checkpoints/step-2', message: null });
    await emit({ ...started, startStep: 2 });
    expect(await readText(s, STATUS_FILE), 'a resumed run has no end record while it trains').toBeNull();
    await emit({ kind: 'failed', step: 3, message: 'GPU device lost', lastCheckpoint: 'checkpoints/step-2' });
    expect(JSON.parse((await readText(s, STATUS_FILE))!)).toMatchObject({ state: 'failed', step: 3, message: 'GPU device lost' });
    await emit({ ...started, startStep: 3 });
    await emit({ kind: 'finished', step: 4, export: null });
    expect(JSON.parse((await readText(s, STATUS_FILE))!)).toMatchObject({ state: 'finished', step: 4 });
  });

  it('writes nothing without the option', async () => {
    const s = new NodeFsStorage(mkdtempSync(join(tmpdir(), 'run-end-')));
    const emit = recordRun(s, {});
    await emit(started);
    await emit({ kind: 'finished', step: 4, export: null });
    expect(await s.list('')).toEqual([]);
  });
});
