// Browser test of the attention-side kernels: qkv_rope + attention (both variants), the training
// attention's backward (16 x 16 tiles at heads of 64 from the forward's kept scores, and at 128
// recomputing them; at heads of 16 the kept-P/dS dQ kernel and the sixteen-key dK/dV tile; at heads
// of 8 the fused kernel on 4 x 4 matrix blocks), chunked log-probs and GPU sampling compile under
// Chromium's WebGPU and match their CPU twins.
// Drives src/harness/attention-kernels.harness.ts on /harness.html; prints the maxdiffs.
import { expect, test } from '@playwright/test';
import type { AttentionKernelsReport } from '../../src/harness/attention-kernels.harness';

test('attention, log-probs and sampling kernels match their twins in the browser', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('attentionKernelsCheck');
  const r = (await page.evaluate(() =>
    (window as unknown as { __harness: Record<string, () => Promise<unknown>> }).__harness.attentionKernelsCheck())) as AttentionKernelsReport;
  console.log(`attention kernels on ${r.adapter}: attention maxdiff ${JSON.stringify(r.attention)}, backward ${JSON.stringify(r.backward)}, logprobs ${r.logprobs.toExponential(2)}, ` +
    `entropy ${r.entropy.toExponential(2)}, sampling ids equal ${r.samplingIdsEqual}, logprob maxdiff ${r.samplingLogprobDiff.toExponential(2)}`);
  for (const d of Object.values(r.attention)) expect(d).toBeLessThan(1e-5);
  expect(Object.keys(r.backward).sort()).toEqual(['128 tiled', '16 kept', '64 tiled-scores', '8 fused']);
  for (const d of Object.values(r.backward)) expect(d).toBeLessThan(2e-5);
  expect(r.logprobs).toBeLessThan(1e-4);
  expect(r.entropy).toBeLessThan(1e-4);
  expect(r.samplingIdsEqual).toBe(true);
  expect(r.samplingLogprobDiff).toBeLessThan(1e-5);
  expect(errors).toEqual([]);
});
