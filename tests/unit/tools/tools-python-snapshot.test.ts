// Python sandbox workers started from a Pyodide snapshot (snapshot-store.ts, node-snapshot-file.ts,
// sandbox-core.ts): the pool makes it once, in a worker that serves nothing else; its workers and
// respawned ones start from it, with the interpreter state of a worker that loaded Pyodide from
// scratch; a later process starts from the file; a snapshot no worker can start from is removed
// and the workers load Pyodide as before. Prints the start times.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNodePythonPool, pyodideDir } from '../../../src/tools/python/node-pool';
import { nodeSnapshotFile } from '../../../src/tools/python/node-snapshot-file';
import { forgetKeptSnapshots, snapshotStore, type SnapshotFile } from '../../../src/tools/python/snapshot-store';
import { processSandboxPort } from '../../../src/tools/python/process-port';
import { detectIsolation } from '../../../src/tools/python/isolation';
import type { PythonPool } from '../../../src/tools/python/pool';
import type { SandboxReply } from '../../../src/tools/python/protocol';

const dir = mkdtempSync(join(tmpdir(), 'rl-studio-snapshot-'));
const file = nodeSnapshotFile(pyodideDir(), dir).path;
const pools: PythonPool[] = [];

/** What a fresh interpreter looks like from inside: modules, paths, environment, limits, files. */
const PROBE = `
import sys, os
print(sorted(sys.modules))
print(sys.path, sys.getrecursionlimit(), os.path.dirname(os.getcwd()))
print(sorted(os.environ.items()))
print(sorted(os.listdir('/')), sorted(os.listdir('/tmp')))
print(sorted(k for k in globals()))
`;

function pool(opts: Parameters<typeof createNodePythonPool>[0]): PythonPool {
  const p = createNodePythonPool({ workers: 1, timeoutMs: 5000, snapshotDir: dir, ...opts });
  pools.push(p);
  return p;
}

const starts = (infos: { startMs: number; fromSnapshot: boolean }[]) => infos.map((i) => `${i.startMs.toFixed(0)} ms${i.fromSnapshot ? ' (snapshot)' : ''}`).join(', ');

afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('python workers from a Pyodide snapshot', () => {
  it('made once for the pool, kept in a file; its workers and respawns start from it like a fresh interpreter', async () => {
    forgetKeptSnapshots();
    const scratch = pool({ snapshot: false });
    const snap = pool({ workers: 2, timeoutMs: 2000 });
    const [plain, restored] = await Promise.all([scratch.ready(), snap.ready()]);
    console.log(`from scratch: ${starts(plain)}; from the snapshot: ${starts(restored)}`);
    expect(plain.map((i) => i.fromSnapshot)).toEqual([false]);
    expect(restored.map((i) => i.fromSnapshot)).toEqual([true, true]);
    expect(snap.stats().snapshotSource).toBe('made');
    expect(statSync(file).size).toBeGreaterThan(1 << 20);

    // Each worker draws its own random numbers (Pyodide seeded them before the image was taken):
    // the first draws of the two workers differ (two episodes at once go to the two workers).
    const draw = 'import random, ssl\nprint(random.random(), ssl.RAND_bytes(8).hex())';
    const [a, b] = await Promise.all([snap.run(draw, { episode: 'a' }), snap.run(draw, { episode: 'b' })]);
    await Promise.all([snap.endEpisode('a'), snap.endEpisode('b')]);
    console.log(`first draws of two workers from the snapshot: ${a.stdout.trim()} | ${b.stdout.trim()}`);
    expect(a.errorType).toBeNull();
    expect(a.stdout.split(' ')[0]).not.toBe(b.stdout.split(' ')[0]);
    expect(a.stdout.split(' ')[1]).not.toBe(b.stdout.split(' ')[1]);

    // The same state inside as a worker that loaded Pyodide itself.
    const want = await scratch.run(PROBE);
    expect(want.errorType).toBeNull();
    expect((await snap.run(PROBE)).stdout).toBe(want.stdout);

    // Runs stay apart, and a worker killed by a timeout comes back from the snapshot.
    expect((await snap.run('x = 6 * 7\nprint(x)')).stdout).toBe('42\n');
    expect((await snap.run('print(x)')).errorType).toBe('NameError');
    expect((await snap.run('while True: pass', { timeoutMs: 300 })).errorType).toBe('Timeout');
    await expect.poll(() => snap.stats().fromSnapshot, { timeout: 60_000 }).toBe(3);
    expect(snap.stats()).toMatchObject({ respawns: 1, dead: 0 });
    expect(snap.stats().snapshotError).toBeUndefined();
    expect((await snap.run(PROBE)).stdout).toBe(want.stdout);
  });

  it('a later process starts from the file; a file no worker can start from is removed and Pyodide loads as before', async () => {
    // As a new process would: nothing kept in memory, the file from the test above.
    forgetKeptSnapshots();
    const made = statSync(file).mtimeMs;
    const later = pool({});
    expect((await later.ready()).map((i) => i.fromSnapshot)).toEqual([true]);
    expect(statSync(file).mtimeMs, 'started from the file, not from a new snapshot').toBe(made);
    expect(later.stats().snapshotSource).toBe('stored');
    expect((await later.run('print(sum(range(10)))')).stdout).toBe('45\n');

    forgetKeptSnapshots();
    writeFileSync(file, new Uint8Array(2 << 20).fill(7));
    const broken = pool({});
    const infos = await broken.ready();
    console.log(`after a broken snapshot: ${starts(infos)}; ${broken.stats().snapshotError}`);
    expect(infos.map((i) => i.fromSnapshot)).toEqual([false]);
    expect(broken.stats().snapshotError).toMatch(/could not start from the Pyodide snapshot .*load Pyodide from scratch/);
    expect(existsSync(file), 'the broken file is removed').toBe(false);
    expect((await broken.run('print(sum(range(10)))')).stdout).toBe('45\n');
  });

  it('a store whose lasting copy loads asynchronously (as Cache Storage does): served from it, made and saved without it, removed when bad; peek never makes or waits', async () => {
    // A copy in memory behind promises, as browser-snapshot-cache.ts is (the e2e tools test runs that one).
    const image = new Uint8Array(2 << 20).fill(3);
    let copy: Uint8Array | null = image;
    const calls: string[] = [];
    const lasting: SnapshotFile = {
      load: async () => { calls.push('load'); await new Promise((r) => setTimeout(r, 5)); return copy; },
      save: (bytes) => { calls.push('save'); copy = bytes; },
      remove: () => { calls.push('remove'); copy = null; },
    };
    let makes = 0;
    const make = async () => { makes++; return new Uint8Array(2 << 20).fill(9); };
    forgetKeptSnapshots();
    const store = snapshotStore('async-test', lasting);
    const [a, b] = await Promise.all([store.get(make), store.get(make)]);
    expect(a).toBe(image);
    expect(b).toBe(image);
    expect([makes, store.source(), calls]).toEqual([0, 'stored', ['load']]);

    store.discard(image, 'bad magic');
    await expect.poll(() => copy).toBeNull();
    await expect(store.get(make)).rejects.toThrow(/could not start from the Pyodide snapshot \(bad magic\)/);

    forgetKeptSnapshots(); // a later page: nothing stored; peek makes none and does not wait for a maker
    const later = snapshotStore('async-test', lasting);
    expect(await later.peek()).toBeNull();
    let release = () => {};
    const making = later.get(() => new Promise<Uint8Array>((resolve) => { release = () => resolve(new Uint8Array(2 << 20).fill(9)); }));
    await new Promise((r) => setTimeout(r, 20));
    expect(await later.peek(), 'a maker is running: not waited for').toBeNull();
    release();
    const made = await making;
    expect(await later.peek()).toBe(made);
    expect([made[0], copy?.[0], later.source()]).toEqual([9, 9, 'made']);
    expect(calls).toEqual(['load', 'remove', 'load', 'save']);

    forgetKeptSnapshots(); // the next page peeks the saved copy
    const next = snapshotStore('async-test', lasting);
    expect(await next.peek()).toBe(copy);
    expect(next.source()).toBe('stored');
    forgetKeptSnapshots();
  });

  it('a worker that made a snapshot serves nothing else', async () => {
    const port = processSandboxPort(detectIsolation(), pyodideDir(), { jsHeapMb: 256, dataBytes: 2 ** 31, fileBytes: 2 ** 26 });
    const replies: SandboxReply[] = [];
    port.listen((m) => replies.push(m), () => {});
    try {
      const indexURL = pyodideDir();
      port.post({ kind: 'snapshot', id: 1, indexURL, maxMemoryBytes: 512 << 20 });
      await expect.poll(() => replies.length, { timeout: 60_000 }).toBe(1);
      expect(replies[0].kind).toBe('snapshot');
      const bytes = replies[0].kind === 'snapshot' && 'bytes' in replies[0].data ? replies[0].data.bytes : new Uint8Array();
      expect(bytes.length).toBeGreaterThan(1 << 20);
      port.post({ kind: 'init', id: 2, indexURL, maxMemoryBytes: 512 << 20, maxRecursionLimit: 1000 });
      port.post({ kind: 'run', id: 3, code: 'print(1)', maxOutputBytes: 100 });
      port.post({ kind: 'snapshot', id: 4, indexURL, maxMemoryBytes: 512 << 20 });
      await expect.poll(() => replies.length, { timeout: 30_000 }).toBe(4);
      // The run finds no interpreter wired up: reported poisoned (the pool would replace the worker), never run.
      expect(replies.slice(1).map((r) => [r.kind, r.id])).toEqual([['error', 2], ['poisoned', 3], ['error', 4]]);
      expect(replies[1]).toMatchObject({ message: 'this worker made a snapshot and serves nothing else' });
    } finally {
      port.terminate();
    }
  });
});
