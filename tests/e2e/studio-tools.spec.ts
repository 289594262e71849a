// Browser tests of the Tools & search panel: the sandbox limits are shown, a test query runs
// against the real offline corpus (BM25 over datasets/squad_corpus.jsonl), and in proxy mode the
// query goes to the real proxy mounted by `vite preview` (whose answer, results or an error
// naming the proxy, is shown); no field asks for an API key. axe finds no serious/critical issues.
// The sandbox card's Start row says what Pyodide image this browser keeps (none in a new browser;
// the one a page made; one of another version) and deletes it with its button.
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

test('the Pyodide image this browser keeps: none at first, listed once a page made one, deleted with the button', async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'tools');
  const status = page.getByTestId('snapshot-status');
  await expect(status).toHaveText('none yet (workers load Pyodide)');
  await expect(page.getByTestId('snapshot-delete')).toHaveCount(0);

  // Another page of this browser starts a pool that makes its image first (the test harness's).
  type H = Record<string, (...a: unknown[]) => Promise<unknown>>;
  const other = await page.context().newPage();
  await other.goto('/harness.html');
  await expect(other.locator('#status')).toContainText('toolsStartPool');
  const started = await other.evaluate(() => (window as unknown as { __harness: H }).__harness.toolsStartPool(true, true)) as { fromSnapshot: boolean };
  expect(started.fromSnapshot).toBe(true);
  await expect.poll(() => other.evaluate(async () => ((await (window as unknown as { __harness: H }).__harness.toolsSnapshotCache()) as { entries: unknown[] }).entries.length), { timeout: 60_000 }).toBe(1);
  // And an image of another Pyodide build, as an older studio would have left.
  await other.evaluate(async () => {
    await (await caches.open('rl-studio-pyodide-snapshot')).put(new URL('/pyodide/snapshot-0.0.0-00000000.bin', location.href).href, new Response(new Uint8Array(2 << 20)));
  });
  await other.close();

  await page.reload();
  await openPanel(page, 'tools');
  await expect(status).toHaveText(/^(?=(?:.*; )?30\.\d MiB(?:;|$))(?=.*2\.0 MiB, for another Pyodide or browser version)/);
  console.log(`Stored image row: ${await status.textContent()}`);
  await shot(page, testInfo, 'snapshot-stored');
  await page.screenshot({ path: testInfo.outputPath('snapshot-stored.png') });
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByTestId('snapshot-delete').click();
  await expect(status).toHaveText('none yet (workers load Pyodide)');
  expect(await page.evaluate(async () => (await (await caches.open('rl-studio-pyodide-snapshot')).keys()).length)).toBe(0);
});
