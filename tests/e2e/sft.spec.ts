// SFT in the browser: stories260K handed to the page as dropped files, a fresh LoRA adapter
// (r=4) trained for 6 updates on a few story sentences by the same SftRun the CLI uses (WebGPU on
// SwiftShader in headless Chromium): the loss falls, checkpoints come out every 3 updates and
// load back, and the PEFT export produces non-empty adapter files (as Blobs) that read back.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { STORIES_DIR } from '../fixtures/io/stories260k';

const files = {
  'stories260K.bin': readFileSync(`${STORIES_DIR}/stories260K.bin`).toString('base64'),
  'tok512.bin': readFileSync(`${STORIES_DIR}/tok512.bin`).toString('base64'),
};

const jsonl = [
  'Lily saw a big red ball in the park.', 'Tom wanted to fly his blue kite with his dad.', 'The cat sat on the warm mat and fell asleep.',
].map((text) => JSON.stringify({ text })).join('\n') + '\n{"text": ""}\n';

interface SftResult {
  data: string; losses: number[]; gradNorms: number[]; seconds: number; folder: string; blobs: Record<string, number>;
  checkpointSteps: number[]; checkpoint: Record<string, number>; restoredStep: number; adapterPairs: number; planBytes: number; peakBytes: number | null;
}

test('stories260K: 6 LoRA SFT updates in the browser, loss falls, adapter files exported', async ({ page }) => {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('sftFromFiles');
  const r = await page.evaluate(([f, d]) => (window as unknown as { __harness: Record<string, (...a: unknown[]) => Promise<SftResult>> }).__harness.sftFromFiles(f, d, 6), [files, jsonl] as const);
  console.log(`browser SFT: ${r.data.split('\n')[0]}`);
  console.log(`losses ${r.losses.map((x) => x.toFixed(3)).join(' ')} in ${r.seconds.toFixed(1)} s; export ${r.folder}/ ${JSON.stringify(r.blobs)}; ` +
    `checkpoints at ${r.checkpointSteps.join(',')} ${JSON.stringify(r.checkpoint)}; GPU peak ${r.peakBytes} B, plan ${r.planBytes} B`);
  expect(r.data).toContain('1 skipped');
  expect(r.losses).toHaveLength(6);
  expect(r.losses.every(Number.isFinite)).toBe(true);
  expect(r.losses[5]).toBeLessThan(0.6 * r.losses[0]);
  expect(r.folder).toBe('adapter');
  expect(Object.keys(r.blobs).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
  for (const size of Object.values(r.blobs)) expect(size).toBeGreaterThan(0);
  expect(r.adapterPairs).toBe(5 * 7); // 5 layers x 7 projections
  expect(r.checkpointSteps).toEqual([3, 6]);
  expect(Object.keys(r.checkpoint).sort()).toEqual(['state.json', 'state.safetensors']);
  expect(r.restoredStep).toBe(6);
  if (r.peakBytes !== null) expect(Math.abs(r.planBytes - r.peakBytes) / r.peakBytes).toBeLessThan(0.05);
});
