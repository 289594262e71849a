// The engine worker's tuning store (src/workers/engine/tuning-store.ts) on Node storage: choices
// survive a reopen in write order, a damaged file starts empty and is replaced at the next choice,
// and the kernel tuner (src/gpu/tuning.ts) reads and writes through it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeFsStorage } from '../../../src/run/node-storage';
import { openTuningStore, TUNING_FILE } from '../../../src/workers/engine/tuning-store';
import { getTuning, pickFastest, setTuning, setTuningStore } from '../../../src/gpu/tuning';
import { mapTuningStore, useTestTuningStore } from '../helpers/tuning-store';
import { adapterKey, type AdapterReport } from '../../../src/gpu/device';

const report = { vendor: 'test', architecture: 'store', device: '', description: '' } as AdapterReport;

describe('engine worker tuning store', () => {
  it('setTuningStore returns the store it replaces and forgets the choices held in memory', () => {
    const a = mapTuningStore(), b = mapTuningStore();
    useTestTuningStore(a);
    setTuning(report, 'swap', 'dec');
    expect(getTuning(report, 'swap')).toBe('dec');
    expect(setTuningStore(b)).toBe(a);
    expect(getTuning(report, 'swap')).toBeUndefined(); // neither b nor memory has it
    expect(setTuningStore(a)).toBe(b);
    expect(getTuning(report, 'swap')).toBe('dec'); // from a itself
  });

  it('keeps choices across reopening, last write wins', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tuning-store-'));
    const s = await openTuningStore(new NodeFsStorage(dir));
    expect(s.getItem('a')).toBeNull();
    s.setItem('a', 'dec');
    s.setItem('b', 'rb16');
    s.setItem('a', 'sg');
    await s.flushed();
    const again = await openTuningStore(new NodeFsStorage(dir));
    expect([again.getItem('a'), again.getItem('b')]).toEqual(['sg', 'rb16']);
  });

  it('starts empty from a damaged file and replaces it at the next choice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tuning-store-'));
    writeFileSync(join(dir, TUNING_FILE), '{"a": "dec", trailing');
    const s = await openTuningStore(new NodeFsStorage(dir));
    expect(s.getItem('a')).toBeNull();
    s.setItem('c', 'rb8');
    await s.flushed();
    expect(JSON.parse(readFileSync(join(dir, TUNING_FILE), 'utf8'))).toEqual({ c: 'rb8' });
  });

  it('is where the kernel tuner remembers its choice, and a reopened store answers without timing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tuning-store-'));
    const s = await openTuningStore(new NodeFsStorage(dir));
    useTestTuningStore(s);
    let timed = 0;
    const time = async (c: string) => { timed++; return c === 'fast' ? 1 : 2; };
    expect(await pickFastest(report, 'fam', ['slow', 'fast'], time)).toBe('fast');
    expect(timed).toBe(2);
    await s.flushed();
    // A new worker: the file holds the tuner's key (tuning.ts also keeps choices in memory, so the
    // reopened store itself is asked).
    const again = await openTuningStore(new NodeFsStorage(dir));
    expect(again.getItem(`rl-studio:tuning:${adapterKey(report)}:fam`)).toBe('fast');
    setTuningStore(again);
    expect(getTuning(report, 'fam')).toBe('fast');
    expect(await pickFastest(report, 'fam', ['slow', 'fast'], time)).toBe('fast');
    expect(timed).toBe(2);
  });
});
