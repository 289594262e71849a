// Browser tests of the Tools & search panel: the sandbox limits are shown, a test query runs
// against the real offline corpus (BM25 over datasets/squad_corpus.jsonl), and in proxy mode the
// query goes to the real proxy mounted by `vite preview` (whose answer, results or an error
// naming the proxy, is shown); no field asks for an API key. axe finds no serious/critical issues.
// The sandbox card's Start row says what Pyodide image this browser keeps (none in a new browser;
// one stored; one of another version) and deletes it with its button.
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

test('the Pyodide image this browser keeps: none at first, listed once stored, deleted with the button', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'tools');
  const status = page.getByTestId('snapshot-status');
  await expect(status).toHaveText('none yet (workers load Pyodide)');
  await expect(page.getByTestId('snapshot-delete')).toHaveCount(0);

  // Entries as a page's pool would have saved them (the image itself is tools.spec.ts's business):
  // one under this browser's key, one of another Pyodide build as an older studio would have left.
  type H = Record<string, (...a: unknown[]) => Promise<unknown>>;
  const other = await page.context().newPage();
  await other.goto('/harness.html');
  await expect(other.locator('#status')).toContainText('toolsSnapshotCache');
  const { key } = await other.evaluate(() => (window as unknown as { __harness: H }).__harness.toolsSnapshotCache()) as { key: string };
  await other.evaluate(async (current) => {
    const cache = await caches.open('rl-studio-pyodide-snapshot');
    await cache.put(current, new Response(new Uint8Array(3 << 20)));
    await cache.put(new URL('/pyodide/snapshot-0.0.0-00000000.bin', location.href).href, new Response(new Uint8Array(2 << 20)));
  }, key);
  await other.close();

  await page.reload();
  await openPanel(page, 'tools');
  await expect(status).toHaveText(/^(?=(?:.*; )?3\.0 MiB(?:;|$))(?=.*2\.0 MiB, for another Pyodide or browser version)/);
  console.log(`Stored image row: ${await status.textContent()}`);
  await shot(page, testInfo, 'snapshot-stored');
  await page.screenshot({ path: testInfo.outputPath('snapshot-stored.png') });
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByTestId('snapshot-delete').click();
  await expect(status).toHaveText('none yet (workers load Pyodide)');
  expect(await page.evaluate(async () => (await (await caches.open('rl-studio-pyodide-snapshot')).keys()).length)).toBe(0);
});
