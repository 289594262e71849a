// Browser test of the Run panel: the stories260K GRPO preset, shrunk in the Config panel's YAML
// editor, is started with Start (model upload, run in the engine worker); the Run panel shows the
// status, progress, live chart points and live rollouts, one episode's detail (turns, reward parts,
// tokens coloured by the loss mask with their log-probs); Pause holds the loop, Resume continues it,
// Checkpoint now and Stop write checkpoints. No main-thread task over 100 ms of CPU time (nor 300 ms
// wall) during training steps once the charts are up (a Chrome trace, main-thread-trace.ts, probed
// with a 150 ms task first; the requirement is no task over 100 ms, and on SwiftShader the GPU's work
// lengthens wall times; the charts' first mount is reported); axe and clipped text at two sizes.
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { BLOCKED_MS, checkProbe, describeTasks, LONG_TASK_MS, startMainThreadTrace, stopMainThreadTrace } from './main-thread-trace';
import { expectNoClippingAt, openPanel, seriousViolations, shot } from './studio-helpers';

/** configs/stories_grpo.yaml made small: 2 words x 4 stories of 16 new tokens, a length part so groups have reward variance. */
function config(modelPath = 'public/models/stories260K'): string {
  const c = parse(readFileSync('configs/stories_grpo.yaml', 'utf8')) as Record<string, Record<string, unknown>>;
  c.model = { ...c.model, path: modelPath };
  c.rollout = { ...c.rollout, batch_size: 2, group_size: 4, max_new_tokens: 16 };
  c.data = { ...c.data, story_target_words: 8 };
  c.env = { ...c.env, weights: { mentions: 1, length: 0.5 } };
  c.grpo = { ...c.grpo, micro_batch_size: 8 };
  c.train = { ...c.train, steps: 200, seed: 7 };
  c.log = { ...c.log, out_dir: 'runs/studio', checkpoint_every: 0, print_examples: 0 };
  return stringify(c);
}

/** Replaces the Config panel's YAML with `text` through the editor. */
async function setYaml(page: Page, text: string): Promise<void> {
  await page.getByTestId('config-yaml').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

const stepOf = async (page: Page) => Number(/Step (\d+)/.exec((await page.getByTestId('run-progress-text').textContent()) ?? '')?.[1] ?? -1);

test('Start from Config: live status, charts and rollouts; episode detail; pause / resume / checkpoint / stop; no long tasks', async ({ page }, testInfo) => {
  test.setTimeout(20 * 60_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/#run');
  await expect(page.getByTestId('run-none')).toBeVisible();
  await openPanel(page, 'config');
  await page.getByTestId('config-preset').selectOption('stories_grpo.yaml');
  await setYaml(page, config());
  await expect(page.getByTestId('config-valid')).toContainText('grpo on story, 200 steps');

  await startMainThreadTrace(page);

  const t0 = Date.now();
  await page.getByTestId('config-start').click();
  await expect(page.getByTestId('start-progress')).toBeVisible();
  await expect(page.getByTestId('run-panel')).toBeVisible({ timeout: 120_000 });
  console.log(`Start to the Run panel: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await expect(page.getByTestId('run-status')).toHaveText(/Running|Starting/);

  // Live charts: the reward chart (with the per-function means) and the others whose metrics the step wrote.
  const reward = page.getByTestId('chart-reward');
  await expect(reward).toHaveAttribute('data-points', /^[1-9]/, { timeout: 600_000 });
  console.log(`first chart point after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await expect(reward).toContainText('rewards/mentions/mean');
  await expect(reward.locator('.recharts-line')).not.toHaveCount(0);
  for (const id of ['entropy', 'grad', 'lr', 'length']) await expect(page.getByTestId(`chart-${id}`)).toBeVisible();
  await expect(page.getByTestId('chart-loss')).not.toContainText('value_loss');   // a PPO metric: GRPO does not write it
  await expect(page.getByTestId('run-progress-text')).toContainText(/left/);

  // Live rollouts: 2 x 4 episodes per step.
  const rows = page.getByTestId('rollout-row');
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeGreaterThanOrEqual(8);
  // Window 1: Start, model upload, the first steps and the charts' first mount (each chart its own task; reported, see below).
  const startWindow = await stopMainThreadTrace(page);
  checkProbe(startWindow);
  await shot(page, testInfo, 'running');

  // Pause holds the loop after the current step; no step while held.
  await page.getByTestId('run-pause').click();
  await expect(page.getByTestId('run-status')).toHaveText(/Paus/);
  await expect(page.getByTestId('run-status')).toHaveText('Paused', { timeout: 600_000 });
  const held = await stepOf(page);
  await page.waitForTimeout(4000);
  expect(await stepOf(page), 'no step while paused').toBe(held);
  console.log(`paused at step ${held}; held for 4 s`);
  await shot(page, testInfo, 'paused');

  // The episode detail, opened from the table while paused (the page is quiet for the picture).
  await page.getByTestId('rollout-filter').fill('');
  await rows.first().getByRole('button').click();
  const detail = page.getByTestId('rollout-detail');
  await expect(detail).toBeVisible();
  await expect(detail.getByTestId('reward-breakdown')).toContainText('mentions');
  await expect(detail.getByTestId('reward-breakdown')).toContainText('length');
  await expect(detail.getByTestId('episode-messages')).toContainText('Write a story about');
  const tokens = detail.getByTestId('token-seq');
  await expect(tokens).toHaveAttribute('data-decoded', 'yes');
  const policy = tokens.locator('[data-source="policy"]');
  expect(await policy.count()).toBeGreaterThan(0);
  expect(await tokens.locator('[data-source="prompt"]').count()).toBeGreaterThan(0);
  await expect(policy.first()).toHaveAttribute('title', /log-prob -?\d+\.\d{3}/);
  const joined = (await tokens.textContent()) ?? '';
  expect(joined).toContain('Once upon a time');
  await detail.scrollIntoViewIfNeeded();
  await shot(page, testInfo, 'episode', 'run-episode.png');

  // The filter narrows the table (a task id that matches nothing leaves no row).
  await page.getByTestId('rollout-filter').fill('no-such-task-xyz');
  await expect(rows).toHaveCount(0);
  await page.getByTestId('rollout-filter').fill('');
  await expect(rows.first()).toBeVisible();

  expect(await seriousViolations(page)).toEqual([]);
  for (const size of [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
    await expectNoClippingAt(page, size);
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // Resume continues; Checkpoint now writes one after the current step; Stop writes the last.
  await startMainThreadTrace(page);   // after axe, screenshots and layout checks (not the page's own work), while paused
  await page.getByTestId('run-resume').click();
  await expect(page.getByTestId('run-status')).toHaveText('Running');
  await expect.poll(() => stepOf(page), { timeout: 600_000 }).toBeGreaterThan(held);
  await page.getByTestId('run-checkpoint').click();
  await expect(page.getByTestId('run-checkpoint-path')).toHaveText(/checkpoints\/step-\d+/, { timeout: 600_000 });
  await expect.poll(() => stepOf(page), { timeout: 600_000 }).toBeGreaterThan(held + 1);
  // Window 2: training steps with every chart, the table and the episode detail live (the check).
  const stepWindow = await stopMainThreadTrace(page);
  await page.getByTestId('axis-time').check();
  const summary = reward.locator('.chart-box');
  await expect(summary).toHaveAttribute('aria-label', /at second \d/);
  // Smoothing changes the last (plotted) value of a curve with more than one distinct point.
  await page.getByTestId('run-pause').click();
  await expect(page.getByTestId('run-status')).toHaveText('Paused', { timeout: 600_000 });
  const raw = await summary.getAttribute('aria-label');
  await page.getByTestId('chart-smoothing').fill('0.9');
  await expect(summary).not.toHaveAttribute('aria-label', raw!);
  console.log(`reward chart raw: ${raw}; EMA 0.9: ${await summary.getAttribute('aria-label')}`);
  await page.getByTestId('run-resume').click();
  await page.getByTestId('run-stop').click();
  await expect(page.getByTestId('run-status')).toHaveText('Stopped', { timeout: 600_000 });
  const stopped = await stepOf(page);
  await expect(page.getByTestId('run-checkpoint-path')).toHaveText(`checkpoints/step-${stopped}`);
  await expect(page.getByTestId('run-pause')).toBeDisabled();
  await page.locator('.main').evaluate((e) => e.scrollTo(0, 0));
  await shot(page, testInfo, 'stopped', 'run.png');

  console.log(`main thread from Start to step ${held} (first mount of the charts): ${describeTasks(startWindow)}`);
  console.log(`main thread in the steps after resume: ${describeTasks(stepWindow)}; stopped at step ${stopped}`);
  // The charts' first mount is reported (each chart its own task, checked in studio-first-run.spec.ts);
  // every later step's update must stay short.
  checkProbe(stepWindow);
  expect(stepWindow.longestCpu, `no main-thread task over ${LONG_TASK_MS} ms CPU in the steps`).toBeLessThanOrEqual(LONG_TASK_MS);
  expect(stepWindow.longestWall, `no main-thread task over ${BLOCKED_MS} ms wall (blocked) in the steps`).toBeLessThanOrEqual(BLOCKED_MS);
});

test('Start errors show beside Start with what to do', async ({ page }) => {
  await page.goto('/#config');
  await page.getByTestId('config-preset').selectOption('stories_grpo.yaml');
  // A model the studio does not have: the memory plan (400 ms after the edit) refuses it, so Start is
  // disabled with the reason beside it (clicking before the plan settles gives the same message as a
  // start error; waiting for the plan keeps the test independent of the machine's speed).
  await setYaml(page, config('public/models/nope'));
  await expect(page.getByTestId('config-valid')).toBeVisible();
  const modelMessage = 'model.path public/models/nope names no model the studio has (shipped: agent-tiny, stories260K)';
  await expect(page.getByTestId('start-reason')).toContainText(modelMessage);
  await expect(page.getByTestId('config-start')).toBeDisabled();
  // A data file that is not open is found only by Start (after the model loads): the error names the
  // field and what to do, and the Config panel stays.
  const withData = parse(config()) as Record<string, Record<string, unknown>>;
  withData.data = { ...withData.data, dataset: 'datasets/my_stories.jsonl' };
  await setYaml(page, stringify(withData));
  await expect(page.getByTestId('start-reason')).toHaveText('Ready to start.', { timeout: 60_000 });
  await page.getByTestId('config-start').click();
  await expect(page.getByTestId('start-error')).toContainText(
    'Start failed while reading the data: config.yaml: data.dataset is datasets/my_stories.jsonl; open my_stories.jsonl in the Datasets panel', { timeout: 120_000 });
  await expect(page.getByTestId('config-panel')).toBeVisible();
  await expect(page.getByTestId('config-start')).toBeEnabled();
});
