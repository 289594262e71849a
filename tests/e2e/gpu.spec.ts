// Browser tests of the foundation: the studio shell loads, the GPU panel shows real adapter
// figures, its self-test passes on WebGPU (SwiftShader here), and the same kernel runs in a
// dedicated Web Worker; on SwiftShader it names the Chrome switch for faster kernel compiles; no
// text is clipped at three window sizes. Keeps screenshots of the panel
// as test artifacts.
import { expect, test } from '@playwright/test';
import { clippedText, shot } from './studio-helpers';

test('GPU panel shows the adapter and its self-test passes', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('gpu-panel')).toBeVisible();
  await expect(page.getByTestId('gpu-vendor')).not.toHaveText('');
  const arch = await page.getByTestId('gpu-arch').textContent();
  console.log(`adapter architecture: ${arch}`);
  // On SwiftShader (these machines) the panel names the Chrome switch that shortens kernel compiles.
  if (/swiftshader/i.test(arch ?? '')) {
    await expect(page.getByTestId('gpu-swiftshader-hint')).toContainText('--disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension');
  }
  await expect(page.getByTestId('gpu-limits')).toContainText('maxStorageBufferBindingSize');
  await page.getByTestId('selftest-run').click();
  const result = page.getByTestId('selftest-result');
  await expect(result).toBeVisible({ timeout: 120_000 });
  await expect(result).toHaveAttribute('data-passed', 'true');
  const gflops = Number(await page.getByTestId('selftest-gflops').textContent());
  const maxdiff = await page.getByTestId('selftest-maxdiff').textContent();
  console.log(`browser self-test: ${gflops} GFLOPS, maxdiff ${maxdiff}`);
  expect(gflops).toBeGreaterThan(0);
  await testInfo.attach('gpu-panel', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
  expect(errors).toEqual([]);
});

test('GPU panel: no clipped text at 1280x800, 1400x900 and 1920x1080 (the limits card)', async ({ page }, testInfo) => {
  await page.goto('/');
  await expect(page.getByTestId('gpu-limits')).toContainText('maxStorageBufferBindingSize');
  for (const [width, height] of [[1280, 800], [1400, 900], [1920, 1080]]) {
    await page.setViewportSize({ width, height });
    await shot(page, testInfo, `gpu-${width}x${height}`);
    expect(await clippedText(page), `clipped text at ${width}x${height}`).toEqual([]);
  }
});

test('the matmul kernel runs inside a dedicated Web Worker', async ({ page }) => {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('ready');
  const reply = await page.evaluate(() => (window as unknown as { __harness: Record<string, () => Promise<unknown>> }).__harness.gpuSelfTestInWorker());
  const r = reply as { result: { passed: boolean; best: { maxDiff: number; gflops: number } }; adapter: string };
  console.log(`worker self-test on ${r.adapter}: maxdiff ${r.result.best.maxDiff}, ${r.result.best.gflops.toFixed(2)} GFLOPS`);
  expect(r.result.passed).toBe(true);
});
