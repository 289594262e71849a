// Escape attempts against the Node Python sandbox (separate process, empty environment, Node's
// permission model, no network namespace): every route from issue 9 (os.system, the Function
// constructor, pyodide_js after sys.meta_path.pop(0), mountNodeFS, a JS heap blow-up, network
// to a loopback listener started here), then the same goals tried with full JavaScript inside the
// sandbox process. None may write a host file, start a process, read the environment or connect.
import { createServer, type Server } from 'node:net';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceSandbox, createNodePythonPool } from '../../../src/tools/python/node-pool';
import { detectIsolation, sandboxCommand } from '../../../src/tools/python/isolation';
import type { PythonPool } from '../../../src/tools/python/pool';

const CANARY = `canary-${Math.random().toString(36).slice(2)}`;
const SECRET = `secret-${Math.random().toString(36).slice(2)}`;
let secretFile: string; // a host file holding SECRET that every attack tries to read
let pool: PythonPool;
let listener: Server;
let port = 0;
let connections = 0;
let host: string; // a host folder every attack tries to write into

beforeAll(async () => {
  process.env.RLS_SANDBOX_CANARY = CANARY;
  host = mkdtempSync(join(tmpdir(), 'rls-escape-'));
  secretFile = join(mkdtempSync(join(tmpdir(), 'rls-secret-')), 'secret.txt');
  writeFileSync(secretFile, SECRET);
  listener = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
  pool = createNodePythonPool({ workers: 1, timeoutMs: 20_000 });
  await pool.ready();
});

afterAll(async () => {
  await pool.close();
  listener.close();
  rmSync(host, { recursive: true, force: true });
  rmSync(dirname(secretFile), { recursive: true, force: true });
  delete process.env.RLS_SANDBOX_CANARY;
});

/** Tries to get Node's `process` through every JS route Python has; prints what it found. */
const FIND_PROCESS = String.raw`
import sys, gc
found = []
def grab(f):
    try:
        p = f()
        if p is not None and hasattr(p, 'env'):
            found.append(p)
    except BaseException as e:
        print('blocked:', type(e).__name__, str(e)[:80])
from pyodide.ffi import to_js
grab(lambda: to_js([1]).constructor.constructor('return process')())
grab(lambda: to_js({}).constructor.constructor('return globalThis.process')())
while sys.meta_path and type(sys.meta_path[0]).__name__ == '_Blocker':
    sys.meta_path.pop(0)
for name in ('js', 'pyodide_js'):
    sys.modules.pop(name, None)
try:
    import js
    grab(lambda: js.process)
    grab(lambda: js.globalThis.process)
except BaseException as e:
    print('import js:', type(e).__name__)
try:
    import pyodide_js
    grab(lambda: pyodide_js.constructor.constructor('return process')())
    grab(lambda: pyodide_js._module.process)
except BaseException as e:
    print('import pyodide_js:', type(e).__name__)
for o in gc.get_objects():
    if type(o).__name__.startswith('Js'):
        grab(lambda: o.process)
        grab(lambda: o.globalThis.process)
print('process reached:', len(found))
`;

const ATTACKS: Record<string, string> = {
  'os.system': `import os\nprint(os.system('touch @HOST@/system; cat @SECRET@; env > @HOST@/env'))`,
  subprocess: `import subprocess\nsubprocess.run(['touch', '@HOST@/subprocess'])`,
  'Function constructor -> process': `${FIND_PROCESS}
for p in found:
    for step in (lambda: print('env', p.env.RLS_SANDBOX_CANARY, p.env.HOME, len(p.env.object_keys())),
                 lambda: p.getBuiltinModule('child_process').execSync('touch @HOST@/cp'),
                 lambda: p.getBuiltinModule('fs').writeFileSync('@HOST@/fs', 'x'),
                 lambda: print(p.getBuiltinModule('fs').readFileSync('@SECRET@', 'utf8')),
                 lambda: p.getBuiltinModule('net').connect(@PORT@, '127.0.0.1')):
        try:
            step()
        except BaseException as e:
            print('denied:', str(e)[:80])`,
  'pyodide_js after meta_path.pop + mountNodeFS': `import sys
sys.meta_path.pop(0)
import pyodide_js
for i, target in enumerate(('@HOST@', '/', '/etc')):
    try:
        pyodide_js.mountNodeFS(f'/host{i}', target)
        with open(f'/host{i}/mounted', 'w') as f:
            f.write('x')
        print('mounted', target)
    except BaseException as e:
        print('mount', target, type(e).__name__, str(e)[:80])
try:
    print('secret read:', repr(open('/host1@SECRET@').read()))
except BaseException as e:
    print('read', type(e).__name__)`,
  'network to a loopback listener': `import socket, urllib.request
for f in (lambda: socket.create_connection(('127.0.0.1', @PORT@), timeout=2),
          lambda: urllib.request.urlopen('http://127.0.0.1:@PORT@/', timeout=2),
          lambda: socket.socket().connect(('127.0.0.1', @PORT@))):
    try:
        f()
        print('connected?')
    except BaseException as e:
        print('net', type(e).__name__)
${FIND_PROCESS}
for p in found:
    try:
        p.getBuiltinModule('net').connect(@PORT@, '127.0.0.1')
    except BaseException as e:
        print('denied', str(e)[:80])`,
};

const fill = (code: string) => code.replaceAll('@HOST@', host).replaceAll('@PORT@', String(port)).replaceAll('@SECRET@', secretFile);

describe('python sandbox (Node): escape attempts from Python', () => {
  it('reaches no host file, process, environment or listener by any route', async () => {
    const outcomes: string[] = [];
    for (const [name, code] of Object.entries(ATTACKS)) {
      const r = await pool.run(fill(code), { timeoutMs: 20_000 });
      outcomes.push(`${name}: ${r.errorType ?? 'ran'} | ${(r.stdout + r.stderr).trim().split('\n').slice(-3).join(' / ').slice(0, 300)}`);
      expect(r.stdout + r.stderr).not.toContain(CANARY);
      expect(r.stdout + r.stderr).not.toContain(SECRET);
      expect(r.stdout).not.toMatch(/process reached: [1-9]|connected\?|^mounted/m);
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // let a late connection surface
    console.log(`escape attempts:\n  ${outcomes.join('\n  ')}`);
    expect(readdirSync(host)).toEqual([]);
    expect(readdirSync('/').filter((f) => f === 'mounted')).toEqual([]);
    expect(connections).toBe(0);
    expect((await pool.run('print("still serving")')).stdout).toBe('still serving\n');
  });

  it('bounds JS memory allocated through the bridge (heap cap and rlimits), then serves on', async () => {
    const blowUp = 'import sys\nsys.meta_path.pop(0)\nimport pyodide_js\nfrom pyodide.ffi import to_js\nkeep = []\nwhile True:\n    keep.append(to_js("x" * 10**7 + str(len(keep))))\n    keep.append(to_js(bytes(10**7)))';
    const r = await pool.run(blowUp, { timeoutMs: 60_000 });
    console.log(`JS heap blow-up: ${r.errorType}: ${(r.errorMessage ?? '').slice(0, 160)} after ${r.durationMs.toFixed(0)} ms`);
    expect(r.errorType).not.toBeNull();
    expect(r.timedOut).toBe(false);
    expect((await pool.run('print(2 + 2)')).stdout).toBe('4\n');
  });
});

describe('python sandbox (Node): the process boundary holds against JavaScript in the sandbox', () => {
  it('gives code with full JS no environment, host writes, processes, workers, addons or network', () => {
    const iso = detectIsolation();
    const dir = mkdtempSync(join(tmpdir(), 'rls-probe-'));
    const scratch = mkdtempSync(join(dir, 'scratch-'));
    const probe = join(dir, 'probe.mjs');
    writeFileSync(probe, String.raw`
const out = {};
const attempt = async (name, f) => { try { out[name] = 'ok: ' + String(await f()).slice(0, 80); } catch (e) { out[name] = 'denied: ' + (e.code ?? e.message); } };
const fs = process.getBuiltinModule('fs');
await attempt('env', () => JSON.stringify(process.env));
await attempt('write host', () => fs.writeFileSync(${JSON.stringify(join(host, 'js-write'))}, 'x'));
await attempt('read host', () => fs.readFileSync(${JSON.stringify(secretFile)}, 'utf8'));
await attempt('write scratch', () => fs.writeFileSync(${JSON.stringify(join(scratch, 'mine'))}, 'x'));
await attempt('spawn', () => process.getBuiltinModule('child_process').spawnSync('touch', [${JSON.stringify(join(host, 'js-spawn'))}]).status);
await attempt('worker', () => new (process.getBuiltinModule('worker_threads').Worker)('1', { eval: true }));
await attempt('addon', () => process.dlopen({ exports: {} }, '/usr/lib/x86_64-linux-gnu/libc.so.6'));
await attempt('eval', () => eval('1 + 1'));
await attempt('net', () => new Promise((resolve, reject) => { const s = process.getBuiltinModule('net').connect(${port}, '127.0.0.1', () => resolve('connected')); s.on('error', reject); }));
await attempt('fetch', () => fetch('http://127.0.0.1:${port}/').then((r) => r.status));
console.log(JSON.stringify(out));
`);
    const cmd = sandboxCommand(iso, probe, [], scratch, { jsHeapMb: 128, dataBytes: 2 ** 30, fileBytes: 2 ** 20 });
    const r = spawnSync(cmd.command, cmd.args, { env: cmd.env, encoding: 'utf8', timeout: 30_000 });
    const lines = r.stdout.trim().split('\n');
    const out = JSON.parse(lines[lines.length - 1]) as Record<string, string>;
    console.log(`full JS inside the sandbox process (${iso.level}):\n  ${Object.entries(out).map(([k, v]) => `${k}: ${v}`).join('\n  ')}`);
    rmSync(dir, { recursive: true, force: true });
    expect(out.env).toBe('ok: {}');
    expect(out['write scratch']).toBe('ok: undefined'); // the positive control: its own folder works
    for (const k of ['write host', 'read host', 'spawn', 'worker', 'addon', 'eval', 'net', 'fetch']) expect(out[k]).toMatch(/^denied/);
    expect(readdirSync(host)).toEqual([]);
    expect(connections).toBe(0);
  });

  it('prints the level and refuses model code below the minimum unless allowed', () => {
    const lines: string[] = [];
    expect(announceSandbox((l) => lines.push(l)).level).toBe('full');
    expect(lines[0]).toMatch(/^python sandbox isolation: full \(separate process, empty environment, .*no network, rlimits\)$/);
    expect(() => createNodePythonPool({ isolation: { disable: ['network'] } })).toThrow(/below the minimum "sealed".*--allow-weak-sandbox/);
    expect(() => announceSandbox(() => {}, { isolation: { disable: ['permissions'] } })).toThrow(/isolation level "process"/);
    expect(announceSandbox(() => {}, { isolation: { disable: ['network'] }, allowWeakSandbox: true }).level).toBe('restricted');
  });
});
