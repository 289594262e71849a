// Grader tampering and cross-run isolation in the Node sandbox, on a one-worker pool so that every
// later job runs where the earlier one did: wrong solutions that patch whatever they find still
// fail and the next task is graded right; each leak of issue 9 (json.dumps/math, files under
// absolute paths, os.environ, the import blocker, loop.call_later, pyodide_js.setStdout) attempted
// by one run is invisible to the next run and to another episode. Also py-value's Python `==`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';
import { pyEquals, type PyValue } from '../../../src/tools/python/py-value';

let pool: PythonPool;

beforeAll(async () => {
  pool = createNodePythonPool({ workers: 1, timeoutMs: 20_000 });
  await pool.ready();
});

afterAll(async () => {
  await pool.close();
});

const TESTS = ['assert sq(3) == 9', 'assert sq(4) == 16', 'import math\nassert math.isclose(sq(2), 4)'];
const RIGHT = 'def sq(x):\n    return x * x';

// Wrong solutions (sq(x) = x + 1) that also try to make the grader say "pass".
const TAMPERS: Record<string, string> = {
  'always-equal object': 'class E:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\ndef sq(x):\n    return E()\nimport math\nmath.isclose = lambda *a, **k: True',
  'checker functions through gc': [
    'import gc, types',
    'def sq(x):',
    '    return x + 1',
    'def yes(*a, **k):',
    '    return None',
    'for f in gc.get_objects():',
    '    if isinstance(f, types.FunctionType) and f.__name__ in ("check", "value", "encode", "run", "failure", "plan"):',
    '        try:',
    '            f.__code__ = yes.__code__',
    '        except BaseException:',
    '            pass',
  ].join('\n'),
  'builtins and assert machinery': [
    'import builtins, sys',
    'def sq(x):',
    '    return x + 1',
    'class Quiet(Exception):',
    '    pass',
    'builtins.AssertionError = Quiet',
    'builtins.isinstance = lambda *a: False',
    'builtins.type = lambda *a: int',
    'sys.settrace(lambda *a: None)',
    'import math',
    'math.isclose = lambda *a, **k: True',
  ].join('\n'),
};

describe('python sandbox: grading out of the solution\'s reach', () => {
  it('fails wrong solutions that patch the grader, and grades the next task right', async () => {
    for (const [name, code] of Object.entries(TAMPERS)) {
      const r = await pool.runTests(code, TESTS);
      console.log(`${name}: ${r.passed}/${r.total} (${r.asserts.map((a) => a.error ?? 'pass').join(' | ').slice(0, 300)}); changed outside: ${r.run.changedOutside?.join(', ') ?? 'nothing'}`);
      expect(r.passed).toBe(0);
      const next = await pool.runTests(RIGHT, TESTS);
      expect(next.asserts.map((a) => a.passed)).toEqual([true, true, true]);
    }
    console.log(`pool after tampering: ${JSON.stringify(pool.stats())}`);
  });

  it('compares like Python ==', () => {
    const int = (n: number): PyValue => ['int', n < 0 ? `-${(-n).toString(16)}` : n.toString(16)];
    expect(pyEquals(int(1), ['float', '1.0'])).toBe(true);
    expect(pyEquals(['bool', true], int(1))).toBe(true);
    expect(pyEquals(['float', 'nan'], ['float', 'nan'])).toBe(false);
    expect(pyEquals(['list', [int(1)]], ['tuple', [int(1)]])).toBe(false);
    expect(pyEquals(['set', [int(1), int(2)]], ['set', [int(2), ['float', '1.0']]])).toBe(true);
    expect(pyEquals(['dict', [[['str', 'a'], int(1)]]], ['dict', [[['str', 'a'], ['float', '1.0']]]])).toBe(true);
    expect(pyEquals(['opaque', 'E'], ['opaque', 'E'])).toBe(false);
    expect(pyEquals(['int', 'f'.repeat(40)], ['int', 'f'.repeat(40)])).toBe(true);
  });
});

// Each leak: what the first run does, what a later run prints, and what it must print.
const LEAKS: [string, string, string, string][] = [
  ['json.dumps / math', 'import json, math\njson.dumps = lambda *a, **k: "HACKED"\nmath.pi = 3\nmath.sqrt = lambda x: 42', 'import json, math\nprint(json.dumps([1]), math.pi, math.sqrt(4))', '[1] 3.141592653589793 2.0\n'],
  ['files under absolute paths', 'for p in ("/tmp/leak.txt", "/home/pyodide/leak.txt", "/leak.txt"):\n    open(p, "w").write("x")', 'import os\nprint([os.path.exists(p) for p in ("/tmp/leak.txt", "/home/pyodide/leak.txt", "/leak.txt")])', '[False, False, False]\n'],
  ['os.environ', 'import os\nos.environ["LEAK"] = "1"\nos.environ.pop("HOME", None)', 'import os\nprint("LEAK" in os.environ, "HOME" in os.environ)', 'False True\n'],
  ['the import blocker', 'import sys\ntype(sys.meta_path[0]).find_spec = lambda *a, **k: None', 'try:\n    import js\n    print("js imported")\nexcept ImportError:\n    print("blocked")', 'blocked\n'],
  ['loop.call_later', 'import asyncio, builtins\nloop = asyncio.get_event_loop()\nloop.call_later(0.05, setattr, builtins, "LEAK", 1)\nloop.call_soon(setattr, builtins, "LEAK2", 1)', 'import builtins, time\nprint(hasattr(builtins, "LEAK"), hasattr(builtins, "LEAK2"))', 'False False\n'],
  // The check after a run raises (what it calls was broken): the worker is replaced, the run's outcome stands.
  ['a patch that breaks the check itself', 'import os\nos.listdir = None', 'import os\nprint(callable(os.listdir))', 'True\n'],
  ['pyodide_js.setStdout(None), import hidden', 'import sys\nsys.meta_path.pop(0)\nimport pyodide_js\npyodide_js.setStdout()\npyodide_js.setStderr()\ndel sys.modules["pyodide_js"]', 'print("visible")', 'visible\n'],
];

describe('python sandbox: no run leaks into the next run or another episode', () => {
  it('hides each leak from the next run and from another episode', async () => {
    for (const [name, leak, probe, expected] of LEAKS) {
      const before = pool.stats();
      const first = await pool.run(leak, { episode: 'leaker' });
      await new Promise((resolve) => setTimeout(resolve, 150)); // timers would fire now
      const next = await pool.run(probe);
      const other = await pool.run(probe, { episode: 'victim' });
      const after = pool.stats();
      console.log(`${name}: first ${first.errorType ?? 'ok'}, changed outside: ${first.changedOutside?.join(', ') ?? '-'}; next run ${JSON.stringify(next.stdout)}; recycles +${after.recycles - before.recycles}, poisoned +${after.poisoned - before.poisoned}`);
      expect(first.errorType).toBeNull();
      expect(next).toMatchObject({ stdout: expected, errorType: null });
      expect(other).toMatchObject({ stdout: expected, errorType: null });
      await pool.endEpisode('leaker');
      await pool.endEpisode('victim');
    }
    const s = pool.stats();
    expect(s.poisoned).toBeGreaterThanOrEqual(1); // the hidden setStdout was caught by the wiring check
  });
});
