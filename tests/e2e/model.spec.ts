// The GPU engine in the browser: stories260K (llama2.c .bin + tokenizer, handed to the page as
// dropped files) is loaded, uploaded to WebGPU and generates from BOS; greedy output must be the
// documented text (f32), and the NF4 model must produce fluent text too.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { greedySample, STORIES_DIR } from '../fixtures/io/stories260k';

const files = {
  'stories260K.bin': readFileSync(`${STORIES_DIR}/stories260K.bin`).toString('base64'),
  'tok512.bin': readFileSync(`${STORIES_DIR}/tok512.bin`).toString('base64'),
};

type Gen = { text: string; tokens: number; tokensPerSecond: number; peakBytes: number };

test('stories260K generates the documented greedy text on WebGPU in the browser', async ({ page }) => {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('ready');
  const r = await page.evaluate(([f]) => (window as unknown as { __harness: Record<string, (...a: unknown[]) => Promise<Gen>> }).__harness.gpuGenerateFromFiles(f, 256, 'none'), [files] as const);
  console.log(`browser stories260K f32: ${r.tokens} tokens, ${r.tokensPerSecond.toFixed(1)} tok/s, peak ${(r.peakBytes / 1024).toFixed(0)} KiB`);
  expect(r.text.trim()).toBe(greedySample().trim());

  const q = await page.evaluate(([f]) => (window as unknown as { __harness: Record<string, (...a: unknown[]) => Promise<Gen>> }).__harness.gpuGenerateFromFiles(f, 40, 'nf4'), [files] as const);
  console.log(`browser stories260K nf4: ${JSON.stringify(q.text.slice(0, 80))}`);
  expect(q.text.startsWith('Once upon a time')).toBe(true);
});

test('a model folder opened as a directory handle (File System Access / OPFS) loads through the same path', async ({ page }) => {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('ready');
  type Summary = { text: string; tensors: number; tokenizerVocab: number; stages: string[] };
  const call = (name: string) => page.evaluate(([n, f]) =>
    (window as unknown as { __harness: Record<string, (...a: unknown[]) => Promise<Summary>> }).__harness[n](f, 30), [name, files] as const);
  const fromHandle = await call('ioLoadFromOpfs');
  const fromFiles = await call('ioLoadFromFiles');
  console.log(`directory handle: ${fromHandle.tensors} tensors, vocab ${fromHandle.tokenizerVocab}, stages ${fromHandle.stages.join(',')}`);
  expect(fromHandle.tokenizerVocab).toBe(512);
  expect(fromHandle.stages).toContain('tensors');
  expect(fromHandle.text).toBe(fromFiles.text);
  expect(greedySample().startsWith(fromHandle.text.trim())).toBe(true);
});
