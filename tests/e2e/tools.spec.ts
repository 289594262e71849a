// Browser tests of the agent's tools in headless Chromium against the built app: the Pyodide
// sandbox in Web Workers (normal runs, episodes, every failure mode ending in a structured error,
// the pool serving on), the worker's CSP holding against every escape tried (the browser's own
// list plus the Node list of issue 9, with a loopback listener started here), cross-run isolation,
// the BM25 corpus shipped with the build, the registry, and the proxy's /api.
import { createServer, type Server } from 'node:net';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';

type H = Record<string, (...a: unknown[]) => Promise<unknown>>;
interface Run { stdout: string; stderr: string; errorType: string | null; errorMessage: string | null; durationMs: number; truncated: boolean; timedOut: boolean }

async function harness(page: Page): Promise<void> {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('ready');
}

const call = <T>(page: Page, fn: string, ...args: unknown[]) =>
  page.evaluate(([f, a]) => (window as unknown as { __harness: H }).__harness[f as string](...(a as unknown[])), [fn, args] as const) as Promise<T>;

const py = (page: Page, code: string, opts: Record<string, unknown> = {}) => call<Run>(page, 'toolsPythonRun', code, opts);

// Each probe tries to reach the network from Python by one route; success would be a request to
// /canary/<name> (or a WebSocket). They print what happened; the test looks at the wire.
const ESCAPES: Record<string, string> = {
  'import-js': `import js\njs.fetch('/canary/import-js')`,
  'pyodide-http': `import pyodide.http\npyodide.http.open_url('/canary/pyodide-http')`,
  'run-js': `from pyodide.code import run_js\nrun_js("fetch('/canary/run-js')")`,
  'pyodide-js': `import pyodide_js\npyodide_js.runPython('import js; js.fetch("/canary/pyodide-js")')`,
  'sys-modules': `import sys, importlib\nfor n in list(sys.modules):\n    m = sys.modules[n]\n    for a in ('fetch', 'XMLHttpRequest'):\n        f = getattr(m, a, None)\n        if f is not None:\n            print('found', n, a)\n            f('/canary/sys-modules')`,
  'gc-jsproxy': [
    'import gc',
    'hits = 0',
    'for o in gc.get_objects():',
    '    if type(o).__name__ not in ("JsProxy", "JsCallable", "JsDoubleProxy", "JsMutableMap", "JsMap") and not type(o).__name__.startswith("Js"):',
    '        continue',
    '    hits += 1',
    '    for attempt in (lambda: o.fetch("/canary/gc-fetch"),',
    '                    lambda: o.self.fetch("/canary/gc-self"),',
    '                    lambda: o.globalThis.fetch("/canary/gc-global"),',
    '                    lambda: o.constructor.constructor("return fetch(\'/canary/gc-function\')")(),',
    '                    lambda: o.constructor.constructor("return import(\'/canary/gc-import.js\')")(),',
    '                    lambda: o.constructor.constructor("importScripts(\'/canary/gc-importscripts.js\')")(),',
    '                    lambda: o.constructor.constructor("var x = new XMLHttpRequest(); x.open(\'GET\', \'/canary/gc-xhr\', false); x.send()")(),',
    '                    lambda: o.constructor.constructor("new WebSocket(\'ws://\' + location.host + \'/canary-ws\')")()):',
    '        try:',
    '            attempt()',
    '        except BaseException as e:',
    '            pass',
    'print("js objects reached:", hits)',
  ].join('\n'),
  'event-loop': `import asyncio\nloop = asyncio.get_event_loop()\nfor name in dir(loop):\n    try:\n        v = getattr(loop, name)\n        if hasattr(v, 'fetch'):\n            v.fetch('/canary/event-loop')\n    except BaseException:\n        pass`,
  'socket': `import _socket\ns = _socket.socket()\ns.connect(('localhost', 80))\ns.send(b'GET /canary/socket HTTP/1.0\\r\\n\\r\\n')`,
  // Not the network: the Pyodide image the pages keep in Cache Storage (browser-snapshot-cache.ts).
  // Success would be the entry deleted; the snapshot test checks it is still there, unchanged.
  'cache-storage': [
    'import gc',
    'def wipe(cs):',
    "    cs.open('rl-studio-pyodide-snapshot').then(lambda c: c.keys().then(lambda ks: [c.delete(k) for k in ks]))",
    'reached = 0',
    'try:',
    '    import js',
    '    wipe(js.caches)',
    '    reached += 1',
    'except BaseException:',
    '    pass',
    'for o in gc.get_objects():',
    "    if not type(o).__name__.startswith('Js'):",
    '        continue',
    '    for get in (lambda: o.caches, lambda: o.self.caches, lambda: o.globalThis.caches):',
    '        try:',
    '            wipe(get())',
    '            reached += 1',
    '        except BaseException:',
    '            pass',
    "print('caches reached:', reached)",
  ].join('\n'),
  'setTimeout-string': `import gc\nfor o in gc.get_objects():\n    if type(o).__name__.startswith('Js') and 'setTimeout' in str(o):\n        try:\n            o("fetch('/canary/settimeout')", 0)\n        except BaseException:\n            pass`,
};

// The Node escape list of issue 9 (tests/unit/tools/tools-python-escape.test.ts), run in the browser:
// success would be a connection to the loopback listener (LISTENER is replaced by its port).
const NODE_ESCAPES: Record<string, string> = {
  'os.system': `import os\nprint(os.system('curl http://127.0.0.1:LISTENER/'))`,
  'Function constructor -> process': `from pyodide.ffi import to_js\nf = to_js([1]).constructor.constructor\nfor src in ('return process', 'return globalThis.process', "return fetch('http://127.0.0.1:LISTENER/fn')"):\n    try:\n        print(f(src)())\n    except BaseException as e:\n        print('blocked', type(e).__name__)`,
  'pyodide_js after meta_path.pop + mountNodeFS': `import sys\nsys.meta_path.pop(0)\nimport pyodide_js\ntry:\n    pyodide_js.mountNodeFS('/host', '/')\nexcept BaseException as e:\n    print('mount', type(e).__name__)\ntry:\n    pyodide_js.runPython('import js; js.fetch("http://127.0.0.1:LISTENER/pyjs")')\nexcept BaseException as e:\n    print('runPython', type(e).__name__)`,
  'JS heap blow-up': `import sys\nsys.meta_path.pop(0)\nimport pyodide_js\nfrom pyodide.ffi import to_js\nkeep = []\nfor i in range(40):\n    keep.append(to_js('x' * 10**7 + str(i)))\nprint('allocated', len(keep))`,
  'network to a loopback listener': `import socket, urllib.request\nfor f in (lambda: socket.create_connection(('127.0.0.1', LISTENER), timeout=2), lambda: urllib.request.urlopen('http://127.0.0.1:LISTENER/', timeout=2)):\n    try:\n        f()\n    except BaseException as e:\n        print('net', type(e).__name__)`,
};

// Each leak of issue 9: what one run does, what a later run prints, and what it must print.
const LEAKS: [string, string, string, string][] = [
  ['json.dumps / math', 'import json, math\njson.dumps = lambda *a, **k: "HACKED"\nmath.pi = 3', 'import json, math\nprint(json.dumps([1]), math.pi)', '[1] 3.141592653589793\n'],
  ['files under absolute paths', 'open("/tmp/leak.txt", "w").write("x")', 'import os\nprint(os.path.exists("/tmp/leak.txt"))', 'False\n'],
  ['os.environ', 'import os\nos.environ["LEAK"] = "1"', 'import os\nprint("LEAK" in os.environ)', 'False\n'],
  ['the import blocker', 'import sys\ntype(sys.meta_path[0]).find_spec = lambda *a, **k: None', 'try:\n    import js\n    print("js imported")\nexcept ImportError:\n    print("blocked")', 'blocked\n'],
  ['loop.call_later', 'import asyncio, builtins\nasyncio.get_event_loop().call_later(0.05, setattr, builtins, "LEAK", 1)', 'import builtins\nprint(hasattr(builtins, "LEAK"))', 'False\n'],
  ['pyodide_js.setStdout(None)', 'import sys\nsys.meta_path.pop(0)\nimport pyodide_js\npyodide_js.setStdout()\ndel sys.modules["pyodide_js"]', 'print("visible")', 'visible\n'],
];

interface CacheEntry { key: string; bytes: number; digest: string }
interface PoolStart { ms: number; startMs: number; fromSnapshot: boolean; stats: { snapshotSource?: string; snapshotError?: string; fromSnapshot: number }; stdout: string }

test.describe('python sandbox in Web Workers', () => {
  test.describe.configure({ mode: 'serial' });
  let context: BrowserContext;
  let page: Page;
  /** The snapshot entry the first page's pool saved in Cache Storage. */
  let saved: CacheEntry;
  const wire: string[] = [];
  let workerCsp: string | null = null;
  let listener: Server;
  let listenerPort = 0;
  let connections = 0;

  test.beforeAll(async ({ browser }) => {
    listener = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    listenerPort = (listener.address() as { port: number }).port;
    // One context: its pages share Cache Storage, where the first pool keeps the Pyodide image.
    context = await browser.newContext();
    page = await context.newPage();
    page.on('request', (r) => wire.push(r.url()));
    page.on('websocket', (ws) => wire.push(ws.url()));
    page.on('response', async (r) => {
      if (/python-sandbox\.worker/.test(r.url())) workerCsp = (await r.allHeaders())['content-security-policy'] ?? '';
    });
    await harness(page);
    const t0 = Date.now();
    const ready = await call<{ info: { startMs: number; interruptible: boolean; pythonVersion: string; fromSnapshot: boolean }[]; isolated: boolean }>(page, 'toolsPythonReady');
    console.log(`2 workers ready in ${Date.now() - t0} ms (Pyodide start ${ready.info.map((i) => i.startMs.toFixed(0)).join('/')} ms from the page's snapshot, Python ${ready.info[0].pythonVersion}), crossOriginIsolated ${ready.isolated}`);
    expect(ready.isolated).toBe(true);
    expect(ready.info[0].interruptible).toBe(true);
    // Both started from the snapshot a third worker made (snapshot-store.ts): this context's Cache
    // Storage had none, so the page made one, and keeps it there for later pages.
    expect(ready.info.map((i) => i.fromSnapshot)).toEqual([true, true]);
    const stats = await call<{ fromSnapshot: number; snapshotSource?: string; snapshotError?: string }>(page, 'toolsPythonStats');
    expect(stats).toMatchObject({ fromSnapshot: 2, snapshotSource: 'made' });
    expect(stats.snapshotError).toBeUndefined();
    await expect.poll(async () => (await call<{ entries: CacheEntry[] }>(page, 'toolsSnapshotCache')).entries.length, { timeout: 60_000 }).toBe(1);
    const cache = await call<{ entries: CacheEntry[]; key: string }>(page, 'toolsSnapshotCache');
    saved = cache.entries[0];
    console.log(`Cache Storage: ${saved.key} ${(saved.bytes / 2 ** 20).toFixed(1)} MiB`);
    expect(saved.key).toBe(cache.key);
    expect(saved.bytes).toBeGreaterThan(1 << 20);
  });

  test.afterAll(async () => {
    await context.close();
    listener.close();
  });

  test('the worker script is served with the strict CSP', async () => {
    console.log(`worker CSP: ${workerCsp}`);
    expect(workerCsp).toMatch(/connect-src http:\/\/localhost:\d+\/pyodide\/;/);
    expect(workerCsp).toContain("'wasm-unsafe-eval'");
    expect(workerCsp).not.toContain("'unsafe-eval'");
  });

  test('runs code and keeps an episode namespace within, not across, episodes', async () => {
    expect(await py(page, 'print(sum(range(101)))')).toMatchObject({ stdout: '5050\n', errorType: null });
    await py(page, 'secret = 7', { episode: 'a' });
    expect((await py(page, 'print(secret * 6)', { episode: 'a' })).stdout).toBe('42\n');
    expect((await py(page, 'print(secret)', { episode: 'b' })).errorType).toBe('NameError');
    await call(page, 'toolsPythonEndEpisode', 'a');
    expect((await py(page, 'print(secret)', { episode: 'a' })).errorType).toBe('NameError');
  });

  test('every escape attempt fails: no request leaves the sandbox', async () => {
    test.setTimeout(600_000); // attempts that reach the JS bridge recycle their worker
    const outcomes: string[] = [];
    const nodeList = Object.entries(NODE_ESCAPES).map(([name, code]) => [`node list: ${name}`, code.replaceAll('LISTENER', String(listenerPort))]);
    for (const [name, code] of [...Object.entries(ESCAPES), ...nodeList]) {
      const r = await py(page, code, { timeoutMs: 5000 });
      outcomes.push(`${name}: ${r.errorType ?? 'ran'}${r.stdout ? ` (${r.stdout.trim().split('\n').pop()})` : ''}`);
    }
    await page.waitForTimeout(1500); // let any asynchronous request surface
    console.log(`escape probes -> ${outcomes.join('; ')}`);
    const leaked = wire.filter((u) => /canary|127\.0\.0\.1/.test(u));
    expect(leaked).toEqual([]);
    expect(connections).toBe(0);
    expect((await py(page, 'print("still serving")')).stdout).toBe('still serving\n');
    // Positive controls: the workers' own Pyodide downloads, and a request from the page, are seen.
    expect(wire.some((u) => u.endsWith('/pyodide/python_stdlib.zip'))).toBe(true);
    await call(page, 'toolsPageFetch', '/canary/control');
    await expect.poll(() => wire.some((u) => u.endsWith('/canary/control'))).toBe(true);
  });

  test('a later page starts its workers from the image in Cache Storage; a bad image is removed; the default pool makes one once a worker is replaced', async () => {
    test.setTimeout(600_000);
    // The escape probes above did not reach it: the same single entry, byte for byte.
    expect((await call<{ entries: CacheEntry[] }>(page, 'toolsSnapshotCache')).entries).toEqual([saved]);
    const later = await context.newPage();
    try {
      await harness(later);
      // The browser's default (lazy) pool: the stored image, no maker.
      const first = await call<PoolStart>(later, 'toolsStartPool', 'lazy', false);
      expect(first).toMatchObject({ fromSnapshot: true, stdout: '42\n', stats: { fromSnapshot: 1, snapshotSource: 'stored' } });
      expect(first.stats.snapshotError).toBeUndefined();
      console.log(`one worker from the stored image, a page's first pool: ready in ${first.ms.toFixed(0)} ms (docs/speed.md has scratch against stored, in turns)`);

      // An image no worker can start from (here zeros under the entry's key): the worker loads
      // Pyodide instead, the pool says why, and the entry is gone for the next page to make anew.
      await later.evaluate(async ({ name, key }) => {
        await (await caches.open(name)).put(key, new Response(new Uint8Array(2 << 20)));
      }, { name: 'rl-studio-pyodide-snapshot', key: saved.key });
      const bad = await call<PoolStart>(later, 'toolsStartPool', 'lazy', true);
      console.log(`from a bad image: ready in ${bad.ms.toFixed(0)} ms; ${bad.stats.snapshotError}`);
      expect(bad).toMatchObject({ fromSnapshot: false, stdout: '42\n' });
      expect(bad.stats.snapshotError).toMatch(/could not start from the Pyodide snapshot/);
      await expect.poll(async () => (await call<{ entries: CacheEntry[] }>(later, 'toolsSnapshotCache')).entries.length).toBe(0);

      // Nothing stored now: the default pool loads Pyodide and makes no image, until a run's
      // timeout replaces its worker; then the image is made in the background and saved, and the
      // next replacement starts from it.
      type Stats = PoolStart['stats'] & { respawns: number };
      const lazy = await call<{ atStart: { fromSnapshot: boolean; entries: number; stats: Stats }; timedOut: string; madeMs: number; afterMake: { entries: number; stats: Stats }; final: Stats; stdout: string }>(later, 'toolsLazyPool');
      console.log(`lazy pool: image made and saved ${lazy.madeMs.toFixed(0)} ms after the first replacement; ${JSON.stringify(lazy.final)}`);
      expect(lazy.atStart).toMatchObject({ fromSnapshot: false, entries: 0, stats: { fromSnapshot: 0 } });
      expect(lazy.timedOut).toBe('Timeout');
      expect(lazy.afterMake).toMatchObject({ entries: 1, stats: { respawns: 1, fromSnapshot: 0 } });
      expect(lazy.final).toMatchObject({ respawns: 2, fromSnapshot: 1, snapshotSource: 'made' });
      expect(lazy.final.snapshotError).toBeUndefined();
      expect(lazy.stdout).toBe('42\n');
    } finally {
      await later.close();
    }
  });

  test('loop, sleep, memory bomb, output flood, recursion and syntax error end with clear errors', async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['infinite loop', 'while True:\n    pass', { timeoutMs: 1000 }, 'Timeout'],
      ['time.sleep', 'import time\ntime.sleep(10**6)', { timeoutMs: 1000 }, 'Timeout'],
      ['memory bomb', 'x = []\nwhile True:\n    x.append(bytearray(10**6))', { timeoutMs: 20000 }, 'MemoryError'],
      ['output flood', 'while True:\n    print("z" * 100)', { maxOutputBytes: 2000 }, 'OutputLimitExceeded'],
      ['deep recursion', 'import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)', { timeoutMs: 20000 }, 'RecursionError'],
      ['syntax error', 'def (:', {}, 'SyntaxError'],
    ];
    for (const [label, code, opts, expected] of cases) {
      const r = await py(page, code, opts);
      console.log(`${label}: ${r.errorType} in ${r.durationMs.toFixed(0)} ms${r.truncated ? ' (truncated)' : ''}: ${r.errorMessage}`);
      expect(r.errorType).toBe(expected);
      expect((await py(page, 'print("still serving")')).stdout).toBe('still serving\n');
    }
    const stats = await call<{ respawns: number; dead: number }>(page, 'toolsPythonStats');
    console.log(`pool after failures: ${JSON.stringify(stats)}`);
    expect(stats.dead).toBe(0);
  });

  test('no run leaks into the next run or another episode', async () => {
    test.setTimeout(600_000);
    for (const [name, leak, probe, expected] of LEAKS) {
      const first = await py(page, leak, { episode: 'leaker' });
      await page.waitForTimeout(150); // timers would fire now
      const next = await py(page, probe);
      const other = await py(page, probe, { episode: 'victim' });
      console.log(`${name}: first ${first.errorType ?? 'ok'}, changed outside: ${(first as { changedOutside?: string[] }).changedOutside?.join(', ') ?? '-'}; next ${JSON.stringify(next.stdout)}`);
      expect(first.errorType).toBeNull();
      expect(next).toMatchObject({ stdout: expected, errorType: null });
      expect(other).toMatchObject({ stdout: expected, errorType: null });
      await call(page, 'toolsPythonEndEpisode', 'leaker');
      await call(page, 'toolsPythonEndEpisode', 'victim');
    }
    const stats = await call<{ recycles: number; poisoned: number }>(page, 'toolsPythonStats');
    console.log(`pool after the leaks: ${JSON.stringify(stats)}`);
    expect(stats.poisoned + stats.recycles).toBeGreaterThanOrEqual(5);
  });

  test('MBPP-style asserts report pass/fail per assert', async () => {
    const r = await call<{ passed: number; total: number; asserts: { passed: boolean; error?: string }[] }>(page, 'toolsPythonTests', 'def sq(x):\n    return x * x', ['assert sq(3) == 9', 'assert sq(2) == 5']);
    expect(r.asserts.map((a) => a.passed)).toEqual([true, false]);
    expect(r.asserts[1].error).toBe('AssertionError: got 4, expected 5');
  });

  test('registry, corpus search and the proxy route work in the page', async () => {
    const reg = await call<{ prompt: string; second: { text: string; ok: boolean }; search: { text: string } }>(page, 'toolsRegistry', 'ep-reg');
    expect(reg.prompt).toContain('<tools>\n{"type": "function", "function": {"name": "search"');
    expect(reg.second).toMatchObject({ text: '42', ok: true });
    expect(reg.search.text).toContain('[Super Bowl 50]');
    const hits = await call<{ url: string }[]>(page, 'toolsCorpusSearch', 'Which NFL team represented the AFC at Super Bowl 50?', 5);
    expect(hits.map((h) => h.url)).toContain('corpus://Super_Bowl_50#0');
    const proxied = await call<{ ok: boolean; error?: string }>(page, 'toolsProxySearch', 'anything');
    console.log(`proxy from the page (no provider configured here): ${JSON.stringify(proxied)}`);
    expect(proxied.ok).toBe(false);
    expect(proxied.error).toMatch(/endpoint|API key/); // reached the proxy, got a token, and the proxy explained
  });
});
