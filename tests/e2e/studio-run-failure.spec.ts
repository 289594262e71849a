// Browser test of a run that dies under the Run panel: a small stories260K GRPO run (a checkpoint
// every step) started with Start loses its GPU device mid-run (the test build's
// self.__engineTest.loseDevice() in the engine worker), then, after a reload, a second run's engine
// worker crashes (an uncaught error in the worker). Both times the Run panel shows the run failed
// with an error naming its last checkpoints/step-N and what to do (reload, Resume from it in the
// Runs panel); after the reload the Runs panel lists the run with that checkpoint. Screenshots of both.
import { expect, test, type Page, type Worker } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { shot } from './studio-helpers';

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
  expect(a.error).toContain('Reload the page');
  expect(a.error).toContain(`Resume from ${a.checkpoint} in the Runs panel.`);
  await shot(page, testInfo, 'device-lost');
  await page.screenshot({ path: testInfo.outputPath('device-lost.png') });

  // The run folder says so too: after a reload the Runs panel lists it failed, with that checkpoint.
  await page.goto('/#runs');
  await page.reload();
  const row = page.getByTestId(`run-row-${first}`);
  await expect(row).toHaveAttribute('data-state', 'failed', { timeout: 60_000 });
  await expect(row).toContainText(a.checkpoint);
  await expect(row).toContainText('The GPU device was lost');

  // 2. The engine worker itself dies mid-run (an uncaught error reaches the page's worker `error` event).
  await startUntilCheckpoint(page);
  await (await engineWorker(page)).evaluate(() => { setTimeout(() => { throw new Error('test: the engine worker broke'); }, 0); });
  const b = await failure(page);
  console.log(`worker crashed: "${b.error}"`);
  expect(b.checkpoint).toMatch(/^checkpoints\/step-\d+$/);
  expect(b.error).toContain('the engine worker crashed');
  expect(b.error).toContain('test: the engine worker broke');
  expect(b.error).toContain('reload the page');
  expect(b.error).toContain(`the last checkpoint is ${b.checkpoint}`);
  expect(b.error).toContain(`Resume from ${b.checkpoint} in the Runs panel.`);
  await shot(page, testInfo, 'worker-crashed');
  await page.screenshot({ path: testInfo.outputPath('worker-crashed.png') });
});
