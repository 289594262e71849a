// Browser test of the Config panel's memory plan: the shipped agent preset on agent-tiny shows
// "Fits" with bytes by category and the total (the worker's plan-run); a rollout.max_tokens above
// the model's context is refused naming the field and disables Start with that reason; restoring it
// plans again. axe finds no serious violations and no text is clipped at 1280x800 and 1920x1080.
// Measure step time on a shrunk config loads agent-tiny, times one GRPO step in the worker and shows
// "≈ N s per step" with its decode and train parts at the upper bound; editing the config clears it;
// with the env's task file open in the Datasets panel it is timed at the previewed prompts' length.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { clippedText, openPanel, seriousViolations, shot } from './studio-helpers';

const PRESET = readFileSync('configs/agent_grpo.yaml', 'utf8');

async function replaceYaml(page: import('@playwright/test').Page, text: string): Promise<void> {
  await page.getByTestId('config-yaml').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

test('the memory plan: fits for the preset, a too-long max_tokens is refused by field and blocks Start', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'config');
  const verdict = page.getByTestId('plan-verdict');
  await expect(verdict).toContainText('Fits:', { timeout: 60_000 });
  await expect(verdict).toContainText('agent-tiny');
  await page.getByText(/^Bytes by category/).click();
  await expect(page.getByTestId('plan-rows')).toContainText('weights: token embedding');
  await expect(page.getByTestId('plan-rows')).toContainText('AdamW m and v');
  await expect(page.getByTestId('plan-total')).toHaveText(/^\d+\.\d\d MiB$/);
  await expect(page.getByTestId('config-plan')).toContainText('32 episodes of up to 320 tokens');
  await expect(page.getByTestId('config-start')).toBeEnabled();
  await page.getByTestId('config-plan').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await shot(page, testInfo, 'plan', 'config-plan.png');
  expect(await seriousViolations(page)).toEqual([]);
  expect(await clippedText(page)).toEqual([]);
  await page.setViewportSize({ width: 1920, height: 1080 });
  expect(await clippedText(page)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 800 });

  await replaceYaml(page, PRESET.replace('max_tokens: 320', 'max_tokens: 900'));
  const err = page.getByTestId('plan-error');
  await expect(err).toContainText('rollout.max_tokens is 900', { timeout: 60_000 });
  await expect(err).toContainText('lower rollout.max_tokens to 512');
  await expect(page.getByTestId('config-start')).toBeDisabled();
  await expect(page.getByTestId('start-reason')).toContainText('rollout.max_tokens is 900');
  await shot(page, testInfo, 'plan-refused');

  const before = await page.getByTestId('plan-total').count();
  expect(before).toBe(0);
  await replaceYaml(page, PRESET.replace('max_tokens: 320', 'max_tokens: 480'));
  await expect(verdict).toContainText('Fits:', { timeout: 60_000 });
  await expect(page.getByTestId('config-plan')).toContainText('up to 480 tokens');
  await expect(page.getByTestId('config-start')).toBeEnabled();
});

/** The agent preset shrunk so one step measures in seconds on SwiftShader: 1 task x 2 episodes of up to 96 tokens. */
const SMALL = PRESET.replace('batch_size: 4 ', 'batch_size: 1 ').replace('group_size: 8 ', 'group_size: 2 ')
  .replace('max_tokens: 320', 'max_tokens: 96').replace('micro_batch_size: 32', 'micro_batch_size: 2');

test('Measure step time: a measured figure per step for a shrunk config, cleared when the config changes', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'config');
  await replaceYaml(page, SMALL);
  await expect(page.getByTestId('plan-verdict')).toContainText('Fits:', { timeout: 60_000 });
  await expect(page.getByTestId('config-plan')).toContainText('2 episodes of up to 96 tokens');
  const button = page.getByTestId('step-time-button');
  await button.focus();
  await page.keyboard.press('Enter');
  const total = page.getByTestId('step-time-total');
  await expect(total).toContainText(/≈ \d+(\.\d)? s per step/, { timeout: 180_000 });
  await expect(total).toContainText(/decode \d+\.\d ms\/token x up to 96 tokens/);
  await expect(total).toContainText(/prefill \d+ ms, decode .*, train \d+ ms/);
  await expect(page.getByTestId('step-time')).toContainText('Not included: tool calls (Python, search)');
  // No earlier run of agent-tiny and no dataset open: the upper bound, said so.
  await expect(page.getByTestId('step-time-lengths')).toHaveText('Timed upper bound at rollout.max_tokens 96.');
  await page.getByText(/^Parts \(/).click();
  await expect(page.getByTestId('step-time-parts')).toContainText('2 sequences sampling one token each');
  await page.getByTestId('step-time').evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await shot(page, testInfo, 'step-time', 'config-step-time.png');
  expect(await seriousViolations(page)).toEqual([]);
  expect(await clippedText(page)).toEqual([]);
  await page.setViewportSize({ width: 1920, height: 1080 });
  expect(await clippedText(page)).toEqual([]);

  await replaceYaml(page, SMALL.replace('max_tokens: 96', 'max_tokens: 128'));
  await expect(page.getByTestId('config-plan')).toContainText('up to 128 tokens', { timeout: 60_000 });
  await expect(total).toHaveCount(0);
  await expect(button).toHaveText('Measure step time');

  // The env's task file open in the Datasets panel: its previewed prompts' mean length is timed instead.
  await openPanel(page, 'datasets');
  await page.getByTestId('dataset-shipped').selectOption('agent_train.jsonl');
  await expect(page.getByTestId('preview-tools')).toHaveAttribute('data-tools', 'python, search', { timeout: 60_000 });
  await openPanel(page, 'config');
  await page.getByTestId('step-time-button').click();
  await expect(total).toContainText(/≈ \d+(\.\d)? s per step/, { timeout: 180_000 });
  const lengths = page.getByTestId('step-time-lengths');
  await expect(lengths).toContainText(/^Timed at \d+ prompt \+ up to \d+ completion tokens \(mean of the 3 previewed tasks of agent_train\.jsonl/);
  console.log(`${await lengths.textContent()} ${await total.textContent()}`);
});
