// Browser tests of the Config panel: a typo key shows the CLI's did-you-mean inline and disables
// Start with the reason; fixing it enables Start. The form writes into the YAML and the diff
// against the preset lists the change; axe finds no serious/critical violations.
import { expect, test } from '@playwright/test';
import { openPanel, seriousViolations, shot } from './studio-helpers';

test('a typo key: did-you-mean inline, Start disabled; fixing it enables Start', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'config');
  await expect(page.getByTestId('config-preset')).toHaveValue('agent_grpo.yaml');   // the shipped default agent's preset
  await expect(page.getByTestId('config-valid')).toBeVisible();
  const start = page.getByTestId('config-start');
  await expect(start).toBeEnabled();
  await shot(page, testInfo, 'preset', 'config.png');

  const editor = page.getByTestId('config-yaml');
  await editor.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('trainr: grpo');
  await page.keyboard.press('Enter');
  const problem = page.getByTestId('config-problem');
  await expect(problem).toHaveText('config.yaml: unknown field trainr; did you mean trainer?');
  await expect(start).toBeDisabled();
  await expect(page.getByTestId('start-reason')).toContainText('did you mean trainer?');
  // The editor underlines the key itself (once the linter has run on the whole edit).
  await expect(page.locator('.cm-lintRange-error')).toHaveCount(1);
  await expect(page.locator('.cm-lintRange-error')).toHaveText('trainr');
  await expect(page.getByLabel('train.steps')).toBeDisabled();
  await expect(page.getByLabel('train.steps')).toHaveValue('40');
  await page.setViewportSize({ width: 1280, height: 1250 });   // the whole panel in one picture
  await page.locator('.main').evaluate((e) => e.scrollTo(0, 0));
  await shot(page, testInfo, 'typo', 'config-typo.png');
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.keyboard.press('Control+Home');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.type('e');
  await expect(page.getByTestId('config-valid')).toBeVisible();
  await expect(start).toBeEnabled();
  await shot(page, testInfo, 'fixed');
  expect(await seriousViolations(page)).toEqual([]);
});

test('the form writes into the YAML, the diff lists the change, invalid values disable Start', async ({ page }, testInfo) => {
  await page.goto('/#config');
  await page.getByLabel('train.steps').fill('12');
  await expect(page.getByTestId('config-yaml')).toContainText('steps: 12');
  await expect(page.getByTestId('config-diff')).toContainText('train.steps');
  await expect(page.getByTestId('config-diff')).toContainText('40');
  await page.getByLabel('rollout.group_size').fill('1');
  await expect(page.getByTestId('config-problem')).toHaveText('config.yaml: rollout.group_size is 1; GRPO compares episodes within a group: use 2 or more');
  await expect(page.getByTestId('config-start')).toBeDisabled();
  await page.getByTestId('config-preset').selectOption('gsm8k_grpo.yaml');
  await expect(page.getByTestId('config-diff')).toContainText('None');
  await shot(page, testInfo, 'form-diff');
});
