// Browser test of the Runs panel and the worker's stored runs: an SFT run (stories260K, tiny data,
// a checkpoint every step) started through the engine worker is cut off by a page load mid-run,
// listed as "cut off" after it, resumed from the panel, and its metrics.jsonl then equals an
// uninterrupted run's of the same config and seed (every key but timings, exactly); the export zip
// holds the CLI layout; importing it (as a zip, a picked folder, dropped) lists the run, and so does
// a folder the CLI wrote (picked); compare
// draws two curves; axe and clipped-text checks at 1280x800, 1400x900 and 1920x1080; screenshots. A GRPO run
// cut off the same way resumes to the uninterrupted run's metrics and rollouts, and so does a GRPO run
// the CLI started and stopped (Ctrl-C), imported as a folder and resumed in the studio.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, writeFileSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { unzipSync, zipSync } from 'fflate';
import { parse, stringify } from 'yaml';
import { readFileSync } from 'node:fs';
import { clippedText, readOpfs, seriousViolations, shot } from './studio-helpers';
import { cliCommand } from '../fixtures/cli-command';

// The three tests share nothing but constants (each its own page, OPFS and temp folders): in
// parallel mode they spread over both workers instead of ending the shared phase on one.
test.describe.configure({ mode: 'parallel' });

// The cut comes after step 4 is reported; a fresh-clone run saw 7 rows written by then.
const STEPS = 18;
const TIMING = (k: string) => k === 'step_time' || k.startsWith('perf/') || k.startsWith('gpu/');
type Row = Record<string, number>;
type H = Record<string, (...a: unknown[]) => Promise<unknown>>;
interface Ev { runId: string; event: { kind: string; step?: number; message?: string } }

const DATA = ['Lily saw a big red ball in the park.', 'Tom wanted to fly his blue kite.', 'The cat sat on the warm mat.', 'Sue found a little bird.']
  .map((text) => JSON.stringify({ text })).join('\n') + '\n';
const YAML = stringify({
  trainer: 'sft', model: { path: 'public/models/stories260K', quant: 'none' }, data: { dataset: 'data.jsonl', max_length: 32 },
  rollout: { batch_size: 2 }, grpo: { micro_batch_size: 2 }, lora: { rank: 4, alpha: 8 }, optim: { lr: 0.01, schedule: 'cosine', warmup_steps: 0 },
  train: { steps: STEPS, seed: 3 }, log: { out_dir: 'runs/sft', checkpoint_every: 1 },
});

const call = <T>(page: Page, name: string, ...args: unknown[]) =>
  page.evaluate(([n, a]) => (window as unknown as { __harness: H }).__harness[n as string](...(a as unknown[])), [name, args] as const) as Promise<T>;

async function waitEvents(page: Page, what: string, pred: (evs: Ev[]) => boolean): Promise<Ev[]> {
  for (const t0 = Date.now(); ;) {
    const evs = await call<Ev[]>(page, 'engineEvents');
    if (pred(evs)) return evs;
    const failed = evs.find((e) => e.event.kind === 'failed');
    if (failed) throw new Error(`run failed while waiting for ${what}: ${failed.event.message}`);
    if (Date.now() - t0 > 600_000) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(100);
  }
}


const rowsOf = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Row);
const untimed = (r: Row) => Object.fromEntries(Object.entries(r).filter(([k]) => !TIMING(k)));

async function checkLayout(page: Page, where: string): Promise<void> {
  for (const size of [{ width: 1280, height: 800 }, { width: 1400, height: 900 }, { width: 1920, height: 1080 }]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(300);
    expect(await seriousViolations(page), `axe, ${where}, ${size.width}x${size.height}`).toEqual([]);
    expect(await clippedText(page), `clipped text, ${where}, ${size.width}x${size.height}`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('Runs panel: a run cut off by a reload resumes to the uninterrupted run\'s metrics; export, import, compare', async ({ page }, testInfo) => {
  test.setTimeout(30 * 60_000);
  const stamp = Date.now();
  const full = `full-${stamp}`, cut = `cut-${stamp}`;
  await page.setViewportSize({ width: 1280, height: 800 });

  // 1. The uninterrupted run, then the one to cut off, through the engine worker (harness page).
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await call<{ modelId: string }>(page, 'engineLoad', '/models/stories260K');
  const t0 = Date.now();
  await call(page, 'engineStart', info.modelId, YAML, full, { text: DATA, name: 'data.jsonl' });
  // Listing the stored runs while this one writes (and prunes) a checkpoint every step never fails.
  const listed = await call<{ listings: number; errors: string[] }>(page, 'engineListUntilFinished', full);
  await waitEvents(page, `${full} finished`, (evs) => evs.some((e) => e.runId === full && e.event.kind === 'finished'));
  console.log(`uninterrupted SFT run: ${STEPS} steps in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${listed.listings} listings meanwhile, ${listed.errors.length} failed${listed.errors.length ? `: ${listed.errors[0]}` : ''}`);
  expect(listed.errors).toEqual([]);
  await call(page, 'engineStart', info.modelId, YAML, cut, { text: DATA, name: 'data.jsonl' });
  const evs = await waitEvents(page, `${cut} step 4`, (x) => x.some((e) => e.runId === cut && e.event.kind === 'progress' && e.event.step! >= 4));
  const seen = Math.max(...evs.filter((e) => e.runId === cut && e.event.kind === 'progress').map((e) => e.event.step!));
  // 2. A page load mid-run: the worker dies with the page (no terminal record is written).
  await page.goto('/#runs');
  await expect(page.getByTestId('runs-panel')).toBeVisible();
  const cutRow = page.getByTestId(`run-row-${cut}`);
  await expect(cutRow).toHaveAttribute('data-state', 'cut-off');
  await expect(page.getByTestId(`run-row-${full}`)).toHaveAttribute('data-state', 'finished');
  const cutAt = Number(await cutRow.getAttribute('data-steps'));
  console.log(`cut off by the page load: step ${seen} seen, ${cutAt} rows in metrics.jsonl, listed as ${await cutRow.getAttribute('data-state')}`);
  expect(cutAt).toBeLessThan(STEPS);
  await expect(cutRow).toContainText('cut off');
  await expect(cutRow).toContainText('sft');
  await expect(cutRow).toContainText('stories260K');
  await shot(page, testInfo, 'cut-off', 'runs-cut-off.png');
  await checkLayout(page, 'cut-off run listed');

  // 3. Resume from the panel: it finishes, and its metrics equal the uninterrupted run's.
  const t1 = Date.now();
  await page.getByRole('button', { name: `Resume ${cut}` }).click();
  await expect(cutRow).toHaveAttribute('data-state', /live|finished/, { timeout: 300_000 });
  await shot(page, testInfo, 'resumed');
  await expect(cutRow).toHaveAttribute('data-state', 'finished', { timeout: 600_000 });
  // A failed resume or listing shows its message in the row or above the table: name it if so.
  const errors = await page.locator(`[data-testid="runs-error"], [data-testid="run-row-${cut}"] .error`).allInnerTexts();
  expect(errors, 'errors shown in the Runs panel after the resume').toEqual([]);
  await expect(page.getByTestId('runs-status')).toContainText(`${cut}: resumed from checkpoint`);
  console.log(`resume from step ${cutAt} to ${STEPS} in ${((Date.now() - t1) / 1000).toFixed(1)} s (model load included)`);
  const a = rowsOf(await readOpfs(page, full, 'metrics.jsonl')), b = rowsOf(await readOpfs(page, cut, 'metrics.jsonl'));
  expect(b.map((r) => r.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
  expect(b.map(untimed)).toEqual(a.map(untimed));
  const maxLossDiff = Math.max(...a.map((r, i) => Math.abs(r.loss - b[i].loss)));
  console.log(`resumed vs uninterrupted metrics.jsonl: ${STEPS} rows, every key but timings equal exactly; max |loss diff| ${maxLossDiff}; ` +
    `losses ${b.slice(0, 6).map((r) => r.loss.toFixed(5)).join(' ')} ...`);
  expect(maxLossDiff).toBe(0);
  const status = JSON.parse(await readOpfs(page, cut, 'status.json')) as { state: string; step: number };
  expect(status).toMatchObject({ state: 'finished', step: STEPS });

  // 4. Export: the zip holds the CLI layout under one folder named after the run.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Export ${full} as a zip` }).click()]);
  const zipPath = testInfo.outputPath(`${full}.zip`);
  await download.saveAs(zipPath);
  const zipBytes = new Uint8Array(await (await import('node:fs/promises')).readFile(zipPath));
  const entries = unzipSync(zipBytes);
  const names = Object.keys(entries).sort();
  console.log(`export zip: ${names.join(', ')} (${zipBytes.length} bytes)`);
  for (const f of ['config.yaml', 'metrics.jsonl', `checkpoints/step-${STEPS}/state.json`, `checkpoints/step-${STEPS}/state.safetensors`, 'adapter/adapter_config.json', 'adapter/adapter_model.safetensors']) {
    expect(names).toContain(`${full}/${f}`);
  }
  expect(new TextDecoder().decode(entries[`${full}/metrics.jsonl`])).toBe(await readOpfs(page, full, 'metrics.jsonl'));

  // 5. Import: the same zip is refused (the id is taken); under another folder name it is listed.
  await page.getByTestId('runs-import-zip').setInputFiles(zipPath);
  await expect(page.getByTestId('runs-import-error')).toContainText(`import: a run "${full}" is already stored; delete it first or rename the folder you import`);
  const copy = `copy-${stamp}`;
  const renamed = zipSync(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k.replace(`${full}/`, `${copy}/`), v])));
  await page.getByTestId('runs-import-zip').setInputFiles({ name: `${copy}.zip`, mimeType: 'application/zip', buffer: Buffer.from(renamed) });
  await expect(page.getByTestId(`run-row-${copy}`)).toHaveAttribute('data-state', 'finished');
  await expect(page.getByTestId(`run-row-${copy}`)).toHaveAttribute('data-steps', String(STEPS));
  // ...and as a picked folder (the CLI's folder on disk).
  const dir = mkdtempSync(join(tmpdir(), 'studio-runs-'));
  const folder = `folder-${stamp}`;
  for (const [k, v] of Object.entries(entries)) {
    const p = join(dir, folder, k.slice(full.length + 1));
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, v);
  }
  await page.getByTestId('runs-import-folder').setInputFiles(join(dir, folder));
  await expect(page.getByTestId(`run-row-${folder}`)).toHaveAttribute('data-state', 'finished');
  await expect(page.getByTestId('runs-status')).toContainText(`${folder}: imported`);
  // ...and dropped on the card (the zip, under a third name).
  const dropped = `dropped-${stamp}`;
  const droppedZip = Buffer.from(zipSync(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k.replace(`${full}/`, `${dropped}/`), v])))).toString('base64');
  const dt = await page.evaluateHandle(([name, b64]) => {
    const d = new DataTransfer();
    d.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type: 'application/zip' }));
    return d;
  }, [`${dropped}.zip`, droppedZip] as const);
  await page.getByTestId('runs-import').dispatchEvent('dragover', { dataTransfer: dt });
  await page.getByTestId('runs-import').dispatchEvent('drop', { dataTransfer: dt });
  await expect(page.getByTestId(`run-row-${dropped}`)).toHaveAttribute('data-state', 'finished');
  // A folder the CLI wrote (its status.json says finished).
  const cliDir = join(dir, `cli-${stamp}`);
  writeFileSync(join(dir, 'data.jsonl'), DATA);
  writeFileSync(join(dir, 'cli.yaml'), YAML.replace('dataset: data.jsonl', `dataset: ${join(dir, 'data.jsonl')}`).replace(`steps: ${STEPS}`, 'steps: 3').replace('out_dir: runs/sft', `out_dir: ${cliDir}`));
  const t2 = Date.now();
  const cli = spawnSync(...cliCommand('train', '--config', join(dir, 'cli.yaml'), '--tune', 'false'), { encoding: 'utf8', timeout: 600_000 });
  expect(cli.status, cli.stderr).toBe(0);
  console.log(`CLI SFT run of 3 steps for the import: ${((Date.now() - t2) / 1000).toFixed(0)} s; files ${readdirSync(cliDir).sort().join(', ')}`);
  // The export's layout is the CLI's: the same files, plus the studio's source.json; both keep
  // their last 3 checkpoints (log.keep_checkpoints), the last three of STEPS and 1-3 of 3.
  const stepless = (n: string) => n.replace(/^checkpoints\/step-\d+\//, 'checkpoints/step-N/');
  const cliFiles = (readdirSync(cliDir, { recursive: true, withFileTypes: true }) as Dirent[]).filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(cliDir.length + 1)).sort();
  expect(cliFiles.filter((n) => n.startsWith('checkpoints/'))).toHaveLength(6);
  expect(names.map((n) => stepless(n.slice(full.length + 1))).filter((n) => n !== 'source.json').sort()).toEqual(cliFiles.map(stepless).sort());
  expect(JSON.parse(readFileSync(join(cliDir, 'status.json'), 'utf8'))).toMatchObject({ state: 'finished', step: 3 });
  await page.getByTestId('runs-import-folder').setInputFiles(cliDir);
  const cliRow = page.getByTestId(`run-row-cli-${stamp}`);
  await expect(cliRow).toHaveAttribute('data-state', 'finished');
  await expect(cliRow).toHaveAttribute('data-steps', '3');
  await expect(cliRow).toContainText('stories260K');

  // 6. Compare: two runs, one metric, two curves.
  await page.getByRole('checkbox', { name: `Compare ${full}` }).check();
  await page.getByRole('checkbox', { name: `Compare ${cut}` }).check();
  const chart = page.getByTestId('compare-chart');
  await page.getByTestId('compare-metric').selectOption('loss');
  await expect(chart).toHaveAttribute('data-lines', '2');
  await expect(chart.locator('.recharts-line-curve')).toHaveCount(2);
  await chart.scrollIntoViewIfNeeded();
  await shot(page, testInfo, 'compare', 'runs-compare.png');
  await checkLayout(page, 'compare shown');

  // 7. Delete: gone from the list and from OPFS.
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: `Delete ${copy}` }).click();
  await expect(page.getByTestId(`run-row-${copy}`)).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId(`run-row-${cut}`)).toHaveAttribute('data-state', 'finished');
  await expect(page.getByTestId(`run-row-${copy}`)).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('after-reload.png') });
});

/** The stories GRPO preset shrunk for time (as tests/e2e/run-worker-helpers.ts), a checkpoint every step. */
function grpoYaml(steps: number): string {
  const c = parse(readFileSync('configs/stories_grpo.yaml', 'utf8')) as Record<string, Record<string, unknown>>;
  c.model = { ...c.model, quant: 'none' };
  c.rollout = { ...c.rollout, batch_size: 2, group_size: 4, max_new_tokens: 16 };
  c.data = { ...c.data, story_target_words: 8 };
  c.env = { ...c.env, weights: { mentions: 1, length: 0.5 } };
  c.grpo = { ...c.grpo, micro_batch_size: 8 };
  c.train = { ...c.train, steps, seed: 7 };
  c.log = { ...c.log, out_dir: 'runs/grpo', checkpoint_every: 1, print_examples: 0 };
  return stringify(c);
}

test('Runs panel: a GRPO run cut off by a reload resumes to the uninterrupted run\'s metrics and rollouts', async ({ page }) => {
  test.setTimeout(30 * 60_000);
  const steps = 4, stamp = Date.now();
  const full = `grpo-full-${stamp}`, cut = `grpo-cut-${stamp}`;
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await call<{ modelId: string }>(page, 'engineLoad', '/models/stories260K');
  const t0 = Date.now();
  await call(page, 'engineStart', info.modelId, grpoYaml(steps), full);
  await waitEvents(page, `${full} finished`, (evs) => evs.some((e) => e.runId === full && e.event.kind === 'finished'));
  console.log(`uninterrupted GRPO run: ${steps} steps in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await call(page, 'engineStart', info.modelId, grpoYaml(steps), cut);
  await waitEvents(page, `${cut} step 2`, (x) => x.some((e) => e.runId === cut && e.event.kind === 'progress' && e.event.step! >= 2));
  await page.goto('/#runs');
  const row = page.getByTestId(`run-row-${cut}`);
  await expect(row).toHaveAttribute('data-state', 'cut-off');
  const cutAt = Number(await row.getAttribute('data-steps'));
  await expect(row).toContainText('grpo (story)');
  const t1 = Date.now();
  await page.getByRole('button', { name: `Resume ${cut}` }).click();
  await expect(row).toHaveAttribute('data-state', 'finished', { timeout: 900_000 });
  console.log(`GRPO cut off after ${cutAt} metrics rows; resumed to step ${steps} in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  const a = rowsOf(await readOpfs(page, full, 'metrics.jsonl')), b = rowsOf(await readOpfs(page, cut, 'metrics.jsonl'));
  expect(b.map((r) => r.step)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
  expect(b.map(untimed)).toEqual(a.map(untimed));
  expect(a.every((r) => r.grad_norm > 0), 'every step trained').toBe(true);
  const ra = await readOpfs(page, full, 'rollouts.jsonl'), rb = await readOpfs(page, cut, 'rollouts.jsonl');
  expect(rb).toBe(ra);
  console.log(`GRPO resumed vs uninterrupted: ${steps} metrics rows equal exactly (timings excluded), rollouts.jsonl equal (${ra.trim().split('\n').length} lines); ` +
    `loss ${b.map((r) => r.loss.toExponential(3)).join(' ')}`);

  // The other way round from run-worker-grpo.spec: a run the CLI started and stopped with Ctrl-C is
  // imported as a folder, listed as cancelled, resumed here, and ends equal to the studio's own run.
  const dir = mkdtempSync(join(tmpdir(), 'studio-runs-grpo-'));
  const cliId = `grpo-cli-${stamp}`, cliDir = join(dir, cliId);
  writeFileSync(join(dir, 'cli.yaml'), grpoYaml(steps).replace('out_dir: runs/grpo', `out_dir: ${cliDir}`));
  const t2 = Date.now();
  const stopped = await interruptedCli(['train', '--config', join(dir, 'cli.yaml'), '--tune', 'false'], '(step 1)');
  expect(stopped.code, stopped.err).toBe(0);
  const stoppedAt = rowsOf(readFileSync(join(cliDir, 'metrics.jsonl'), 'utf8')).length;
  console.log(`CLI GRPO run stopped by Ctrl-C at step ${stoppedAt} in ${((Date.now() - t2) / 1000).toFixed(0)} s: ${stopped.err.split('\n').find((l) => l.startsWith('stopped at'))}`);
  expect(stoppedAt).toBeLessThan(steps);
  await page.getByTestId('runs-import-folder').setInputFiles(cliDir);
  const cliRow = page.getByTestId(`run-row-${cliId}`);
  await expect(cliRow).toHaveAttribute('data-state', 'cancelled');
  await expect(cliRow).toHaveAttribute('data-steps', String(stoppedAt));
  await page.getByRole('button', { name: `Resume ${cliId}` }).click();
  await expect(cliRow).toHaveAttribute('data-state', 'finished', { timeout: 900_000 });
  const c = rowsOf(await readOpfs(page, cliId, 'metrics.jsonl'));
  expect(c.map(untimed)).toEqual(a.map(untimed));
  expect(await readOpfs(page, cliId, 'rollouts.jsonl')).toBe(ra);
  console.log(`CLI run resumed in the studio from step ${stoppedAt} to ${steps}: metrics (timings excluded) and rollouts.jsonl equal the studio's uninterrupted run`);
});

/** The CLI (node + tsx, so the signal reaches it) sent Ctrl-C once `after` appears on its stderr. */
function interruptedCli(args: string[], after: string): Promise<{ code: number | null; err: string }> {
  const child = spawn(...cliCommand(...args), { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '', sent = false;
  child.stdout.resume();
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (!sent && err.includes(after)) sent = child.kill('SIGINT');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, err })));
}

test('Runs panel: a run training in another tab is listed live there, with no Resume, and cannot be deleted; listed as ended when it ends', async ({ page, context }) => {
  test.setTimeout(10 * 60_000);
  const runId = `other-tab-${Date.now()}`;
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await call<{ modelId: string }>(page, 'engineLoad', '/models/stories260K');
  await call(page, 'engineStart', info.modelId, YAML.replace(`steps: ${STEPS}`, 'steps: 400'), runId, { text: DATA, name: 'data.jsonl' });
  await waitEvents(page, 'step 1', (x) => x.some((e) => e.runId === runId && e.event.kind === 'progress'));
  const other = await context.newPage();
  await other.goto('/#runs');
  const row = other.getByTestId(`run-row-${runId}`);
  await expect(row).toHaveAttribute('data-state', 'live');
  await expect(row).toContainText('training');
  await expect(other.getByRole('button', { name: `Resume ${runId}` })).toHaveCount(0);
  await expect(other.getByRole('button', { name: `Delete ${runId}` })).toBeDisabled();
  console.log(`another tab lists ${runId} as ${await row.getAttribute('data-state')} at step ${await row.getAttribute('data-steps')}`);
  await call(page, 'engineCommand', runId, 'stop');
  await waitEvents(page, 'cancelled', (x) => x.some((e) => e.runId === runId && e.event.kind === 'cancelled'));
  // No Refresh: a row training elsewhere is read again every ELSEWHERE_RELIST_MS.
  await expect(row).toHaveAttribute('data-state', 'cancelled', { timeout: 15_000 });
  await expect(other.getByRole('button', { name: `Resume ${runId}` })).toBeVisible();
});
