// Browser test of the Config panel's memory plan: the shipped agent preset on agent-tiny shows
// "Fits" with bytes by category and the total (the worker's plan-run); a rollout.max_tokens above
// the model's context is refused naming the field and disables Start with that reason; restoring it
// plans again. axe finds no serious violations and no text is clipped at 1280x800 and 1920x1080.
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
