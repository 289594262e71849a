// `npm test`: the whole test suite in one command. Finds (or, as root on Debian/Ubuntu,
// installs) Chromium, then runs lint, the type checks (all, then the browser bundle without Node
// types), the vitest unit tests (Node + Dawn), the production build, the test build (the app plus
// harness.html, dist-test/) and the Playwright browser tests on it, and prints one count line.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { findChrome } from './find-chrome.mjs';
import { relative } from 'node:path';

const started = Date.now();

function run(label, cmd, args, env = {}) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
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
steps.push(['lint', run('lint', 'npx', ['eslint', '.', '--max-warnings=0'])]);
steps.push(['typecheck', run('typecheck', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json'])]);
steps.push(['typecheck browser', run('typecheck of the bundle without Node types', 'npx',
  ['tsc', '--noEmit', '-p', 'tsconfig.browser.json'])]);
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
