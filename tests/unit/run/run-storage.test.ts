// The run API without a GPU: the recorder (src/run/recorder.ts) turns a loop's RunEvents into the
// run folder through NodeFsStorage (config.yaml, metrics.jsonl, rollouts.jsonl appended before the
// step's checkpoint, checkpoint and export folders replaced atomically), recovery reads it back
// through the same storage, and events lose their bytes before crossing a worker boundary.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '../../../src/rl/rollout-log';
import { applyCommand, CheckpointTracker, fanOut, withoutFiles, type RunEvent } from '../../../src/run/events';
import { checkpointPath } from '../../../src/run/layout';
import { NodeFsStorage } from '../../../src/run/node-storage';
import { recordRun } from '../../../src/run/recorder';
import { listFiles, readText, StorageSource } from '../../../src/run/storage';
import { RunControl } from '../../../src/train/run-control';

const bytes = (s: string) => new TextEncoder().encode(s);
const record = (step: number, sample: number) => ({ step, sample, text: `story ${sample}` }) as unknown as RolloutRecord;

describe('run events, recorder and storage', () => {
  it('writes the run folder from events, in order, through NodeFsStorage', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-storage-'));
    const s = new NodeFsStorage(out);
    const order: string[] = [];
    // The second emitter sees each event after the recorder wrote it.
    const seen = async (e: RunEvent) => {
      order.push(`${e.kind}:${(await listFiles(s, '')).join(',')}`);
    };
    const tracker = new CheckpointTracker();
    const emit = fanOut(recordRun(s, { configYaml: 'trainer: grpo\n' }), tracker.emit, seen);
    await emit({ kind: 'started', runId: out, trainer: 'grpo', plan: null, totalSteps: 2, startStep: 0 });
    await emit({ kind: 'metrics', row: { step: 1, loss: 0.5, reward: Number.NaN } });
    await emit({ kind: 'rollout', record: record(1, 0) });
    await emit({ kind: 'rollout', record: record(1, 1) });
    await emit({ kind: 'checkpoint', step: 1, path: checkpointPath(1), files: new Map([['state.json', bytes('{"step":1}')]]) });
    await emit({ kind: 'finished', step: 1, export: { path: 'adapter', files: new Map([['adapter_config.json', bytes('{}')], ['sub/x.bin', bytes('x')]]) } });
    console.log(order.join('\n'));
    expect(readFileSync(join(out, 'config.yaml'), 'utf8')).toBe('trainer: grpo\n');
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8')).toBe('{"step":1,"loss":0.5,"reward":null}\n');
    expect(readFileSync(join(out, 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).sample)).toEqual([0, 1]);
    // Rollouts of step 1 were on the disk before its checkpoint.
    expect(order.find((o) => o.startsWith('checkpoint'))).toBe('checkpoint:checkpoints/step-1/state.json,config.yaml,metrics.jsonl,rollouts.jsonl');
    expect(await listFiles(s, '')).toEqual(['adapter/adapter_config.json', 'adapter/sub/x.bin', 'checkpoints/step-1/state.json', 'config.yaml', 'metrics.jsonl', 'rollouts.jsonl']);
    expect(readdirSync(join(out, 'checkpoints'))).toEqual(['step-1']);
    expect(tracker.last).toBe('checkpoints/step-1');
    expect(await new StorageSource(s, 'adapter').readText('sub/x.bin')).toBe('x');
    expect(await readText(s, 'absent.txt')).toBeNull();
    expect(checkpointPath(5)).toBe('checkpoints/step-5');
  });

  it('a folder write replaces the old one and leaves no side folder; a file write goes through .tmp', async () => {
    const s = new NodeFsStorage(mkdtempSync(join(tmpdir(), 'run-storage-')));
    await s.writeFolder('checkpoint', new Map([['a', bytes('1')]]));
    await s.writeFolder('checkpoint', new Map([['b', bytes('2')]]));
    expect(await s.list('')).toEqual(['checkpoint']);
    expect(await s.list('checkpoint')).toEqual(['b']);
    await s.writeFile('metrics.jsonl', 'x\n');
    await s.append('metrics.jsonl', 'y\n');
    expect(await readText(s, 'metrics.jsonl')).toBe('x\ny\n');
    await s.remove('checkpoint');
    expect(await s.exists('checkpoint')).toBe(false);
    expect(() => s.where('../x')).toThrow(/refusing the path "..\/x"/);
  });

  it('drops file bytes before an event crosses a worker boundary; commands reach RunControl', () => {
    const files = new Map([['state.json', bytes('{}')]]);
    expect(withoutFiles({ kind: 'checkpoint', step: 2, path: 'checkpoint', files })).toEqual({ kind: 'checkpoint', step: 2, path: 'checkpoint' });
    expect(withoutFiles({ kind: 'finished', step: 2, export: { path: 'adapter', files } })).toEqual({ kind: 'finished', step: 2, export: { path: 'adapter' } });
    const c = new RunControl();
    applyCommand(c, { kind: 'pause' });
    expect(c.current).toBe('paused');
    applyCommand(c, { kind: 'resume' });
    applyCommand(c, { kind: 'checkpoint' });
    expect([c.current, c.takeCheckpointRequest()]).toEqual(['running', true]);
    applyCommand(c, { kind: 'stop' });
    expect(c.current).toBe('stopping');
  });
});
