// Browser test of the decode linears: every decode variant Chromium's device offers (sg with
// subgroups, which Debian's Chromium exposes on SwiftShader) compiles under Chromium's WebGPU and
// matches the CPU twins with f32 and NF4 weights, bias, LoRA and SwiGLU. Drives
// src/harness/linear-kernels.harness.ts on /harness.html; prints the maxdiffs.
import { expect, test } from '@playwright/test';
import type { LinearKernelsReport } from '../../src/harness/linear-kernels.harness';

test('decode linear variants (sg with subgroups) match their twins in the browser', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('linearKernelsCheck');
  const r = (await page.evaluate(() =>
    (window as unknown as { __harness: Record<string, () => Promise<unknown>> }).__harness.linearKernelsCheck())) as LinearKernelsReport;
  console.log(`decode linears on ${r.adapter} (subgroups ${r.subgroups}): ${Object.entries(r.maxdiff).map(([k, d]) => `${k} rel maxdiff=${d.toExponential(2)}`).join(', ')}`);
  for (const format of ['f32', 'nf4']) {
    expect(Object.keys(r.maxdiff)).toContain(`${format} dec`);
    if (r.subgroups) expect(Object.keys(r.maxdiff)).toContain(`${format} sg`);
  }
  for (const d of Object.values(r.maxdiff)) expect(d).toBeLessThan(1e-5);
  expect(errors).toEqual([]);
});
