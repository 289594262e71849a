// Without WebGPU (Chromium started without --enable-unsafe-webgpu on this GPU-less machine)
// the studio says so plainly and tells the user how to enable it, instead of a blank page.
import { chromium, expect, test } from '@playwright/test';
import { chromeFlags, findChrome } from '../../scripts/find-chrome.mjs';

test('the studio explains how to enable WebGPU when it is unavailable', async ({ baseURL }, testInfo) => {
  const browser = await chromium.launch({
    executablePath: findChrome() ?? undefined,
    args: chromeFlags.filter((f) => f !== '--enable-unsafe-webgpu'),
  });
  try {
    const page = await browser.newPage();
    await page.goto(baseURL ?? '/');
    const box = page.getByTestId('gpu-unavailable');
    await expect(box).toBeVisible();
    await expect(box).toContainText('WebGPU is not available');
    await expect(box).toContainText('chrome://gpu');
    await expect(page.getByTestId('gpu-badge')).toHaveText('WebGPU unavailable');
    await testInfo.attach('no-webgpu', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
  } finally {
    await browser.close();
  }
});
