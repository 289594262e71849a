// The Python sandbox in Node (worker_threads + Pyodide): normal runs, stdin, episodes'
// persistent namespaces, every failure mode ending in a structured error inside its timeout
// (loop, sleep, memory bomb, output flood, deep recursion, syntax error), the pool serving on
// afterwards, concurrent runs surviving a neighbour's respawn, abort, and MBPP-style asserts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';
import type { RunResult } from '../../../src/tools/python/types';

let pool: PythonPool;

beforeAll(async () => {
  pool = createNodePythonPool({ workers: 2, timeoutMs: 5000, maxMemoryBytes: 256 * 1024 * 1024, maxOutputBytes: 4096 });
  const info = await pool.ready();
  console.log(`pyodide ${info[0].pyodideVersion}, python ${info[0].pythonVersion}, start ${info.map((i) => i.startMs.toFixed(0)).join('/')} ms, interruptible ${info[0].interruptible}`);
});

afterAll(async () => {
  await pool.close();
});

function brief(r: RunResult): string {
  return `${r.errorType ?? 'ok'} in ${r.durationMs.toFixed(0)} ms${r.truncated ? ' (truncated)' : ''}: ${r.errorMessage ?? r.stdout.slice(0, 60)}`;
}

async function stillServes(): Promise<void> {
  const r = await pool.run('print(sum(range(10)))');
  expect(r.errorType).toBeNull();
  expect(r.stdout).toBe('45\n');
}

describe('python sandbox: normal runs', () => {
  it('returns stdout, stderr, the exception and a duration', async () => {
    const ok = await pool.run('import sys\nprint("hello", 6 * 7)\nprint("warn", file=sys.stderr)');
    expect(ok).toMatchObject({ stdout: 'hello 42\n', stderr: 'warn\n', errorType: null, truncated: false, timedOut: false });
    expect(ok.durationMs).toBeGreaterThan(0);
    const bad = await pool.run('def f():\n    return 1 / 0\nf()');
    expect(bad.errorType).toBe('ZeroDivisionError');
    expect(bad.errorMessage).toBe('division by zero');
    expect(bad.stderr).toContain('line 2, in f');
  });

  it('feeds stdin and gives EOF after it', async () => {
    const r = await pool.run('a = input(); b = input()\nprint(int(a) + int(b))\ninput()', { stdin: '2\n40\n' });
    expect(r.stdout).toBe('42\n');
    expect(r.errorType).toBe('EOFError');
  });

  it('treats exit(0) as success and exit(3) as SystemExit', async () => {
    expect((await pool.run('print(1)\nraise SystemExit(0)')).errorType).toBeNull();
    expect((await pool.run('import sys; sys.exit(3)')).errorType).toBe('SystemExit');
  });

  it('keeps an episode namespace across calls, not across episodes, and clears it at the end', async () => {
    expect((await pool.run('counter = 41\ndef bump():\n    global counter\n    counter += 1\n    return counter', { episode: 'ep-a' })).errorType).toBeNull();
    expect((await pool.run('print(bump())', { episode: 'ep-a' })).stdout).toBe('42\n');
    expect((await pool.run('print(counter)', { episode: 'ep-b' })).errorType).toBe('NameError');
    expect((await pool.run('print(counter)')).errorType).toBe('NameError');
    await pool.endEpisode('ep-a');
    expect((await pool.run('print(counter)', { episode: 'ep-a' })).errorType).toBe('NameError');
    await pool.endEpisode('ep-a');
    await pool.endEpisode('ep-b');
  });

  it('does not leak builtins, modules or files between runs', async () => {
    await pool.run('import builtins, os\nbuiltins.print = None\nopen("note.txt", "w").write("x")\nimport sys\nsys.modules["mine"] = type(sys)("mine")');
    const r = await pool.run('import os, sys\nprint(os.path.exists("note.txt"), "mine" in sys.modules)');
    expect(r.stdout).toBe('False False\n');
  });
});

describe('python sandbox: failures end with a clear error and the pool keeps serving', () => {
  it('interrupts an infinite loop at the timeout', async () => {
    const r = await pool.run('while True:\n    pass', { timeoutMs: 800 });
    console.log(`infinite loop: ${brief(r)}`);
    expect(r).toMatchObject({ errorType: 'Timeout', timedOut: true });
    expect(r.durationMs).toBeLessThan(800 + pool.config.interruptGraceMs + 1500);
    await stillServes();
  });

  it('kills and respawns a worker stuck in time.sleep', async () => {
    const before = pool.stats().respawns;
    const r = await pool.run('import time\nprint("before", flush=True)\ntime.sleep(10**6)', { timeoutMs: 800 });
    console.log(`sleep: ${brief(r)}`);
    expect(r).toMatchObject({ errorType: 'Timeout', timedOut: true, stdout: 'before\n' });
    expect(pool.stats().respawns).toBe(before + 1);
    await stillServes();
  });

  it('turns a memory bomb into MemoryError', async () => {
    const r = await pool.run('blocks = []\nwhile True:\n    blocks.append(bytearray(10**6))', { timeoutMs: 20_000 });
    console.log(`memory bomb: ${brief(r)}`);
    expect(r.errorType).toBe('MemoryError');
    await stillServes();
  });

  it('stops an output flood at maxOutputBytes', async () => {
    const r = await pool.run('while True:\n    print("x" * 100)', { maxOutputBytes: 2000 });
    console.log(`output flood: ${brief(r)}, ${r.stdout.length} chars kept`);
    expect(r).toMatchObject({ errorType: 'OutputLimitExceeded', truncated: true });
    expect(r.stdout.length).toBeLessThanOrEqual(2000);
    const stubborn = await pool.run('while True:\n    try:\n        print("y" * 100)\n    except BaseException:\n        pass', { maxOutputBytes: 1000, timeoutMs: 1500 });
    console.log(`flood that catches interrupts: ${brief(stubborn)}`);
    expect(stubborn.truncated).toBe(true);
    expect(stubborn.stdout.length).toBeLessThanOrEqual(1000);
    await stillServes();
  });

  it('turns deep recursion into RecursionError, even with a huge recursion limit', async () => {
    const r = await pool.run('import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)');
    console.log(`deep recursion: ${brief(r)}`);
    expect(r.errorType).toBe('RecursionError');
    await stillServes();
  });

  it('reports a syntax error with its line', async () => {
    const r = await pool.run('x = (1 +\nprint(x)');
    expect(r.errorType).toBe('SyntaxError');
    expect(r.stderr).toContain('line 1');
    await stillServes();
  });

  it('never loses a concurrent run when a neighbour worker is killed', async () => {
    const [stuck, fine] = await Promise.all([
      pool.run('import time\ntime.sleep(10**6)', { timeoutMs: 600 }),
      pool.run('import time\nt = 0\nfor i in range(200000):\n    t += i\nprint(t)', { timeoutMs: 20_000 }),
    ]);
    expect(stuck.errorType).toBe('Timeout');
    expect(fine).toMatchObject({ errorType: null, stdout: `${(199999 * 200000) / 2}\n` });
  });

  it('aborts a running job through its AbortSignal', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const r = await pool.run('while True:\n    pass', { signal: ac.signal, timeoutMs: 20_000 });
    expect(r.errorType).toBe('Aborted');
    await stillServes();
  });
});

describe('python sandbox: code-task asserts (MBPP shape)', () => {
  it('returns pass/fail and the error of each assert', async () => {
    const code = 'def remove_Occ(s, ch):\n    return s.replace(ch, "", 1)[::-1].replace(ch, "", 1)[::-1]';
    const tests = ['assert remove_Occ("hello","l") == "heo"', 'assert remove_Occ("abcda","a") == "bcd"', 'assert remove_Occ("PHP","P") == "X"', 'assert undefined_fn() == 1'];
    const r = await pool.runTests(code, tests);
    console.log(`asserts: ${r.passed}/${r.total} passed; errors ${r.asserts.filter((a) => !a.passed).map((a) => a.error).join(' | ')}`);
    expect(r.solutionOk).toBe(true);
    expect(r.asserts.map((a) => a.passed)).toEqual([true, true, false, false]);
    expect(r.asserts[2].error).toBe('AssertionError: got "H", expected "X"');
    expect(r.asserts[3].error).toContain('NameError');
  });

  it('fails every assert when the solution does not run, and times out a hanging one', async () => {
    const broken = await pool.runTests('def f(:\n  pass', ['assert f() is None']);
    expect(broken.solutionOk).toBe(false);
    expect(broken.asserts[0].error).toContain('SyntaxError');
    const hang = await pool.runTests('def f(x):\n    while x:\n        pass\n    return x', ['assert f(0) == 0', 'assert f(1) == 1', 'assert f(0) == 0'], { timeoutMs: 800 });
    expect(hang.solutionOk).toBe(true);
    expect(hang.asserts[0].passed).toBe(true);
    expect(hang.asserts[1].passed).toBe(false);
    expect(hang.run.errorType).toBe('Timeout');
  });
});
