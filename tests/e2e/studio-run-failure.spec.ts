// Browser test of a run that dies under the Run panel: a small stories260K GRPO run (a checkpoint
// every step) started with Start loses its GPU device mid-run (the test build's
// self.__engineTest.loseDevice() in the engine worker); Restart engine (no reload) gives a new
// worker and device, Resume in the Runs panel continues the run from its checkpoint and its
// metrics.jsonl goes on past it with every step once (axe clean on the Run panel). Then, after a
// reload, a second run's engine worker crashes (an uncaught error in the worker); the Runs panel,
// with no Restart click, starts a new engine itself to list the runs and Resume continues it. Both times the Run panel shows
// the run failed with an error naming its last checkpoints/step-N and what to do (Restart engine
// or reload, Resume from it in the Runs panel); after a reload the Runs panel lists the first run.
// Screenshots of each stage.
import { expect, test, type Page, type Worker } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { readOpfs, seriousViolations, shot } from './studio-helpers';

/** configs/stories_grpo.yaml made small (as studio-run.spec.ts), a checkpoint after every step. */
function config(): string {
  const c = parse(readFileSync('configs/stories_grpo.yaml', 'utf8')) as Record<string, Record<string, unknown>>;
  c.model = { ...c.model, path: 'public/models/stories260K' };
  c.rollout = { ...c.rollout, batch_size: 2, group_size: 2, max_new_tokens: 8 };
  c.data = { ...c.data, story_target_words: 8 };
  c.grpo = { ...c.grpo, micro_batch_size: 4 };
  c.train = { ...c.train, steps: 200, seed: 7 };
  c.log = { ...c.log, out_dir: 'runs/studio', checkpoint_every: 1, print_examples: 0 };
  return stringify(c);
}

/** In a freshly loaded studio (a new engine worker), starts the config from the Config panel and
 * waits in the Run panel for its first checkpoint; returns the run's id. */
async function startUntilCheckpoint(page: Page): Promise<string> {
  await page.goto('/#config');
  await page.reload();
  await page.getByTestId('config-preset').selectOption('stories_grpo.yaml');
  await page.getByTestId('config-yaml').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(config());
  await expect(page.getByTestId('config-valid')).toContainText('grpo on story, 200 steps');
  await page.getByTestId('config-start').click();
  await expect(page.getByTestId('run-panel')).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId('run-checkpoint-path')).toHaveText(/^checkpoints\/step-\d+$/, { timeout: 600_000 });
  return ((await page.getByRole('heading', { name: /^Run / }).textContent()) ?? '').replace(/^Run /, '');
}

/** The studio's engine worker (its script is engine.worker*.js in the build). */
async function engineWorker(page: Page): Promise<Worker> {
  await expect.poll(() => page.workers().some((w) => /engine/.test(w.url()))).toBe(true);
  return page.workers().find((w) => /engine/.test(w.url()))!;
}


/** The newest step in a run's metrics.jsonl; 0 while the file is being replaced (the resume cuts it through a rename). */
const newestStep = async (page: Page, runId: string): Promise<number> => {
  const text = await readOpfs(page, runId, 'metrics.jsonl').catch(() => '');
  return Math.max(0, ...stepsOf(text));
};

const stepsOf = (jsonl: string): number[] => jsonl.trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { step: number }).step);

/** The failed run's error and the checkpoint the panel names. */
async function failure(page: Page): Promise<{ error: string; checkpoint: string }> {
  await expect(page.getByTestId('run-status')).toHaveText('Failed', { timeout: 120_000 });
  const error = (await page.getByTestId('run-error').textContent()) ?? '';
  const checkpoint = (await page.getByTestId('run-checkpoint-path').textContent()) ?? '';
  return { error, checkpoint };
}

test('device loss and an engine worker crash mid-run reach the Run panel naming the last checkpoint', async ({ page }, testInfo) => {
  test.setTimeout(30 * 60_000);
  await page.setViewportSize({ width: 1280, height: 800 });

  // 1. The GPU device is lost between steps.
  const first = await startUntilCheckpoint(page);
  const lost = await (await engineWorker(page)).evaluate(() => (self as unknown as { __engineTest: { loseDevice(): boolean } }).__engineTest.loseDevice());
  expect(lost, 'the engine worker had a device to lose').toBe(true);
  const a = await failure(page);
  console.log(`device lost: "${a.error}"`);
  expect(a.checkpoint).toMatch(/^checkpoints\/step-\d+$/);
  expect(a.error).toContain('The GPU device was lost');
  expect(a.error).toContain('Reload the page or press Restart engine');
  expect(a.error).toContain(`Resume from ${a.checkpoint} in the Runs panel.`);
  await shot(page, testInfo, 'device-lost');
  await page.screenshot({ path: testInfo.outputPath('device-lost.png') });

  // Restart engine, in this page: a new worker and device, no reload.
  await expect(page.getByTestId('engine-down')).toBeVisible();
  expect(await seriousViolations(page), 'axe, Run panel after the device loss').toEqual([]);
  const oldWorker = await engineWorker(page);
  await page.getByTestId('engine-restart').click();
  await expect(page.getByTestId('engine-restarted')).toBeVisible({ timeout: 60_000 });
  await expect.poll(() => page.workers().includes(oldWorker), { message: 'the old engine worker is ended' }).toBe(false);
  await shot(page, testInfo, 'engine-restarted');

  // The run folder says the run failed at that checkpoint; Resume continues it on the new engine.
  await page.evaluate(() => { window.location.hash = '#runs'; });
  const row = page.getByTestId(`run-row-${first}`);
  await expect(row).toHaveAttribute('data-state', 'failed', { timeout: 60_000 });
  // The row names the newest complete checkpoint: the one the failure named, or a later one whose
  // files were read back before the loss and finished writing after the failure was reported.
  await expect(row).toContainText(/checkpoints\/step-\d+/);
  await expect(row).toContainText('The GPU device was lost');
  const ckStep = Number(/checkpoints\/step-(\d+)/.exec((await row.textContent()) ?? '')![1]);
  expect(ckStep, `the row's checkpoint vs the failure's ${a.checkpoint}`).toBeGreaterThanOrEqual(Number(/(\d+)$/.exec(a.checkpoint)![1]));
  await page.getByRole('button', { name: `Resume ${first}` }).click();
  await expect(page.getByTestId('runs-status')).toContainText(`${first}: resumed from`, { timeout: 300_000 });
  // Two steps past the checkpoint: the failed attempt can have logged at most one.
  await expect.poll(() => newestStep(page, first), { timeout: 600_000, message: 'a metrics row past the checkpoint' }).toBeGreaterThanOrEqual(ckStep + 2);
  const steps = stepsOf(await readOpfs(page, first, 'metrics.jsonl'));
  console.log(`restarted and resumed from step ${ckStep} (the failure named ${a.checkpoint}): metrics.jsonl steps ${steps.join(',')}`);
  expect(steps, 'every step once, no duplicate rows').toEqual(steps.map((_, i) => i + 1));
  await page.evaluate(() => { window.location.hash = '#run'; });
  await expect(page.getByRole('heading', { name: `Run ${first}` })).toBeVisible();
  await expect(page.getByTestId('run-status')).toHaveText('Running');
  await expect(page.getByTestId('run-error')).toHaveCount(0);
  expect(await seriousViolations(page), 'axe, Run panel of the resumed run').toEqual([]);
  await shot(page, testInfo, 'resumed-after-restart');
  await page.screenshot({ path: testInfo.outputPath('resumed-after-restart.png') });
  await page.getByTestId('run-stop').click();
  await expect(page.getByTestId('run-status')).toHaveText('Stopped', { timeout: 300_000 });

  // After a reload the Runs panel lists it stopped, with its newest checkpoint.
  await page.goto('/#runs');
  await page.reload();
  await expect(page.getByTestId(`run-row-${first}`)).toHaveAttribute('data-state', 'cancelled', { timeout: 60_000 });

  // 2. The engine worker itself dies mid-run (an uncaught error reaches the page's worker `error` event).
  const second = await startUntilCheckpoint(page);
  await (await engineWorker(page)).evaluate(() => { setTimeout(() => { throw new Error('test: the engine worker broke'); }, 0); });
  const b = await failure(page);
  console.log(`worker crashed: "${b.error}"`);
  expect(b.checkpoint).toMatch(/^checkpoints\/step-\d+$/);
  expect(b.error).toContain('the engine worker crashed');
  expect(b.error).toContain('test: the engine worker broke');
  expect(b.error).toContain('Restart engine (Run or Runs panel) starts a new one, or reload the page');
  await expect(page.getByTestId('engine-restart')).toBeVisible();
  expect(b.error).toContain(`the last checkpoint is ${b.checkpoint}`);
  expect(b.error).toContain(`Resume from ${b.checkpoint} in the Runs panel.`);
  await shot(page, testInfo, 'worker-crashed');
  await page.screenshot({ path: testInfo.outputPath('worker-crashed.png') });

  // The Runs panel (no Restart engine click, no reload) starts a new engine itself to list the
  // runs, and Resume continues the crashed one.
  await page.evaluate(() => { window.location.hash = '#runs'; });
  await expect(page.getByTestId('engine-restarted')).toBeVisible({ timeout: 60_000 });
  // The dead worker wrote no status.json: the folder is listed cut off, resumable all the same.
  await expect(page.getByTestId(`run-row-${second}`)).toHaveAttribute('data-state', 'cut-off', { timeout: 60_000 });
  const ck2 = Number(/(\d+)$/.exec(b.checkpoint)![1]);
  await page.getByRole('button', { name: `Resume ${second}` }).click();
  await expect(page.getByTestId('runs-status')).toContainText(`${second}: resumed from`, { timeout: 300_000 });
  await expect.poll(() => newestStep(page, second), { timeout: 600_000, message: 'a metrics row past the checkpoint' }).toBeGreaterThanOrEqual(ck2 + 2);
  const steps2 = stepsOf(await readOpfs(page, second, 'metrics.jsonl'));
  console.log(`crashed, resumed from ${b.checkpoint} without a restart click: metrics.jsonl steps ${steps2.join(',')}`);
  expect(steps2, 'every step once, no duplicate rows').toEqual(steps2.map((_, i) => i + 1));
  await page.evaluate(() => { window.location.hash = '#run'; });
  await expect(page.getByRole('heading', { name: `Run ${second}` })).toBeVisible();
  await page.getByTestId('run-stop').click();
  await expect(page.getByTestId('run-status')).toHaveText('Stopped', { timeout: 300_000 });
});
