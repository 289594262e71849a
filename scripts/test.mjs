// `npm test`: the whole test suite in one command. Finds (or, as root on Debian/Ubuntu,
// installs) Chromium, then runs lint and the type checks side by side (all, then the browser bundle without Node
// types), the vitest unit tests (Node + Dawn), the production build, the test build (the app plus
// harness.html, dist-test/) and the Playwright browser tests on it, and prints one count line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { findChrome } from './find-chrome.mjs';
import { relative } from 'node:path';

const started = Date.now();

function run(label, cmd, args, env = {}) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

/** Several steps at once (each single-threaded for most of its time), their output printed in
 * order once each ends, so that logs do not interleave; the exit statuses in order. */
async function runTogether(jobs) {
  const started = jobs.map(([label, cmd, args]) => new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (e) => { out.push(Buffer.from(String(e))); resolve({ label, cmd, args, out, status: 1 }); });
    child.on('close', (code) => resolve({ label, cmd, args, out, status: code ?? 1 }));
  }));
  const statuses = [];
  for (const p of started) {
    const r = await p;
    console.log(`\n=== ${r.label}: ${r.cmd} ${r.args.join(' ')}`);
    process.stdout.write(Buffer.concat(r.out));
    statuses.push(r.status);
  }
  return statuses;
}

function ensureChrome() {
  let chrome = findChrome();
  if (chrome) return chrome;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log('No Chrome/Chromium found: installing Debian\'s chromium with apt-get (root).');
    run('apt', 'apt-get', ['update', '-qq']);
    run('apt', 'apt-get', ['install', '-y', '-qq', 'chromium'], { DEBIAN_FRONTEND: 'noninteractive' });
    chrome = findChrome();
    if (chrome) return chrome;
  }
  console.error(
    'npm test needs Chrome or Chromium for the browser tests and WebGPU (SwiftShader) in Node.\n' +
    'Install one (Debian/Ubuntu: `sudo apt-get install chromium`) or set CHROME_PATH to its binary.\n' +
    'This script never downloads a browser build of its own.');
  process.exit(1);
}

const chrome = ensureChrome();
console.log(`Using browser: ${chrome}`);
mkdirSync('test-results', { recursive: true });

const steps = [];
// Lint and the two type checks run side by side (about 1.4 cores between them: 45 s one after
// another on a 2-core machine, about 30 s together).
const checks = [
  ['lint', 'npx', ['eslint', '.', '--max-warnings=0']],
  ['typecheck', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']],
  ['typecheck browser', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.browser.json']],
];
const checkStatus = await runTogether(checks);
checks.forEach(([name], i) => steps.push([name, checkStatus[i]]));
steps.push(['unit', run('unit tests (vitest, Node + Dawn)', 'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=test-results/vitest.json'])]);
steps.push(['build', run('build', 'npx', ['vite', 'build'])]);
steps.push(['test build', run('test build (app + harness.html)', 'npx', ['vite', 'build', '--mode', 'test'])]);
steps.push(['e2e', run('browser tests (Playwright, headless Chromium + WebGPU)', 'npx', ['playwright', 'test'],
  { CHROME_PATH: chrome })]);

function readJson(path) {
  try { return JSON.parse(readFileSync(path, 'utf8')); } catch { return null; }
}
let passed = 0, failed = 0, skipped = 0;
const vitest = readJson('test-results/vitest.json');
if (vitest) {
  passed += vitest.numPassedTests ?? 0;
  failed += vitest.numFailedTests ?? 0;
  skipped += (vitest.numPendingTests ?? 0) + (vitest.numTodoTests ?? 0);
}
const pw = readJson('test-results/playwright.json');
if (pw?.stats) {
  passed += pw.stats.expected ?? 0;
  failed += (pw.stats.unexpected ?? 0) + (pw.stats.flaky ?? 0);
  skipped += pw.stats.skipped ?? 0;
}
// The names of the failed tests, last, so that a log cut to its tail still says what broke.
const failures = [];
const firstLine = (text) => String(text ?? '').split('\n').find((l) => l.trim())?.trim().slice(0, 300) ?? '';
for (const file of vitest?.testResults ?? []) {
  for (const t of file.assertionResults ?? []) {
    if (t.status === 'failed') failures.push(`unit ${relative(process.cwd(), file.name)} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
  }
  if (file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed')) {
    failures.push(`unit ${relative(process.cwd(), file.name)}: ${firstLine(file.message)}`);
  }
}
(function walk(suite, path) {
  for (const spec of suite?.specs ?? []) {
    for (const t of spec.tests ?? []) {
      if (t.status === 'unexpected' || t.status === 'flaky') {
        const err = (t.results ?? []).map((r) => r.error?.message).find(Boolean);
        failures.push(`e2e ${spec.file}:${spec.line} > ${[...path, spec.title].join(' > ')} (${t.status}): ${firstLine(err)}`);
      }
    }
  }
  for (const child of suite?.suites ?? []) walk(child, child.title && !child.title.endsWith('.ts') ? [...path, child.title] : path);
})({ suites: pw?.suites ?? [] }, []);
if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
const bad = steps.filter(([, status]) => status !== 0).map(([name]) => name);
const minutes = ((Date.now() - started) / 60000).toFixed(1);
console.log(`\nSteps: ${steps.map(([n, s]) => `${n} ${s === 0 ? 'ok' : 'FAILED'}`).join(', ')} (${minutes} min)`);
if (bad.length && failed === 0) failed = bad.length; // a failed lint/typecheck/build counts
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(bad.length ? 1 : 0);
