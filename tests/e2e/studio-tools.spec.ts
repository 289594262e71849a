// Browser tests of the Tools & search panel: the sandbox limits are shown, a test query runs
// against the real offline corpus (BM25 over datasets/squad_corpus.jsonl), and in proxy mode the
// query goes to the real proxy mounted by `vite preview` (whose answer, results or an error
// naming the proxy, is shown); no field asks for an API key. axe finds no serious/critical issues.
import { expect, test } from '@playwright/test';
import { openPanel, seriousViolations, shot } from './studio-helpers';

test('sandbox limits, a corpus query and a proxy query', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'tools');
  await expect(page.getByTestId('sandbox-limits')).toContainText('512.0 MiB');
  await page.getByTestId('search-query').fill('Which team won Super Bowl 50?');
  await page.getByTestId('search-run').click();
  const results = page.getByTestId('search-results');
  await expect(results).toBeVisible({ timeout: 60_000 });
  await expect(results.getByRole('listitem')).toHaveCount(5);
  await expect(results).toContainText('corpus://Super_Bowl_50');
  await shot(page, testInfo, 'corpus', 'tools.png');
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByLabel(/Web, through the search proxy/).check();
  await expect(page.getByTestId('proxy-url')).toHaveValue('/api');
  await expect(page.locator('input[type=password]')).toHaveCount(0);
  const answer = page.waitForResponse((r) => r.url().includes('/api/search'));
  await page.getByTestId('search-run').click();
  const res = await answer;
  console.log(`proxy answered ${res.status()}: ${(await res.text()).slice(0, 200)}`);
  await expect(page.getByTestId('search-error').or(page.getByTestId('search-results'))).toBeVisible();
  if (!res.ok()) await expect(page.getByTestId('search-error')).toContainText('proxy /api');
  await shot(page, testInfo, 'proxy');
  expect(await seriousViolations(page)).toEqual([]);
});
