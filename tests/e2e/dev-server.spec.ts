// The README's start command serves the studio through Vite's dev server (`npm start` is
// `vite --open`): the page is cross-origin isolated and the GPU panel's self-test passes there.
import { expect, test } from '@playwright/test';

test('npm start serves a cross-origin isolated studio whose GPU self-test passes', async ({ page }, testInfo) => {
  await page.goto(`http://localhost:${process.env.PW_DEV_PORT}/`);
  await expect(page.getByTestId('gpu-panel')).toBeVisible();
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await page.getByTestId('selftest-run').click();
  await expect(page.getByTestId('selftest-result')).toHaveAttribute('data-passed', 'true', { timeout: 120_000 });
  console.log(`dev server self-test: ${await page.getByTestId('selftest-gflops').textContent()} GFLOPS`);
  await testInfo.attach('dev-gpu-panel', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
});
