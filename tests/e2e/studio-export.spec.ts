// Browser tests of the Export panel: a 1-step LoRA SFT of agent-tiny runs through the engine worker
// (the harness page, same origin, so the run folder lands in the studio's OPFS); the Export panel
// lists it and downloads the PEFT folder zip with config.yaml + metrics.jsonl inside, and the logs
// alone; the zip's adapter files are the bytes the engine wrote, adapter_config.json holds the
// run's r / lora_alpha / target_modules and the safetensors header the PEFT-named LoRA tensors.
// The Models panel lists the adapter under agent-tiny. Axe and clipped text at two sizes. A full
// fine-tune (lora.mode full) downloads as the model/ folder the engine wrote.
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { unzipSync } from 'fflate';
import { parse, stringify } from 'yaml';
import { peftKey } from '../../src/model/io/peft';
import { PROJECTIONS } from '../../src/model/types';
import { clippedText, openPanel, seriousViolations, shot } from './studio-helpers';

type H = Record<string, (...a: unknown[]) => Promise<unknown>>;
const call = <T>(page: Page, name: string, ...args: unknown[]) =>
  page.evaluate(([n, a]) => (window as unknown as { __harness: H }).__harness[n as string](...(a as unknown[])), [name, args] as const) as Promise<T>;

const RANK = 4, ALPHA = 8, LAYERS = 4;
const DATA = ['Tom asked for the sum of 2 and 3.', 'The answer is 5.', 'Lily wrote a short poem.', 'Search the web for the capital.']
  .map((text) => JSON.stringify({ text })).join('\n') + '\n';
const CONFIG = stringify({
  trainer: 'sft', model: { path: 'public/models/agent-tiny', quant: 'none' }, data: { dataset: 'data.jsonl', max_length: 32 },
  rollout: { batch_size: 2 }, grpo: { micro_batch_size: 2 }, lora: { rank: RANK, alpha: ALPHA }, optim: { lr: 0.01, warmup_steps: 0 },
  train: { steps: 1, seed: 3 }, log: { out_dir: 'runs/export', checkpoint_every: 0 },
});

/** Runs a config to its end in the engine worker from the harness page (same origin: same OPFS as the studio). */
async function runSft(page: Page, config: string, runId: string): Promise<void> {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await call<{ modelId: string }>(page, 'engineLoad', '/models/agent-tiny');
  await call(page, 'engineStart', info.modelId, config, runId, { text: DATA, name: 'data.jsonl' });
  const t0 = Date.now();
  for (;;) {
    const evs = await call<{ event: { kind: string; message?: string } }[]>(page, 'engineEvents');
    const end = evs.find((e) => ['finished', 'failed', 'cancelled'].includes(e.event.kind));
    if (end) {
      expect(end.event.kind, end.event.message).toBe('finished');
      break;
    }
    if (Date.now() - t0 > 300_000) throw new Error('the SFT run did not finish in 300 s');
    await page.waitForTimeout(250);
  }
  console.log(`${runId}: 1-step SFT of agent-tiny in the worker, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function download(page: Page, testId: string): Promise<{ name: string; files: Record<string, Uint8Array> }> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return { name: d.suggestedFilename(), files: unzipSync(new Uint8Array(readFileSync(await d.path()))) };
}

function safetensorsNames(b: Uint8Array): string[] {
  const n = Number(new DataView(b.buffer, b.byteOffset).getBigUint64(0, true));
  return Object.keys(JSON.parse(new TextDecoder().decode(b.subarray(8, 8 + n))) as object).filter((k) => k !== '__metadata__').sort();
}

test('Export: a 1-step SFT run through the worker downloads as a PEFT folder zip with its config and metrics', async ({ page }, testInfo) => {
  test.setTimeout(10 * 60_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const runId = `export-${Date.now()}`;
  await runSft(page, CONFIG, runId);
  const written = await call<Record<string, string>>(page, 'engineExport', runId);
  const engineBytes = (p: string) => new Uint8Array(Buffer.from(written[p], 'base64'));

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'export');
  await page.getByTestId('export-run').selectOption(runId);
  await expect(page.getByTestId('export-summary')).toContainText(`r=${RANK}, lora_alpha=${ALPHA}`);

  // The adapter with the run's logs inside.
  const both = await download(page, 'export-download');
  const base = `${runId}-adapter`;
  expect(both.name).toBe(`${base}.zip`);
  expect(Object.keys(both.files).sort()).toEqual([`${base}/adapter_config.json`, `${base}/adapter_model.safetensors`, `${base}/run/config.yaml`, `${base}/run/metrics.jsonl`]);
  for (const f of ['adapter_config.json', 'adapter_model.safetensors']) {
    expect(Buffer.from(both.files[`${base}/${f}`]).equals(Buffer.from(engineBytes(`adapter/${f}`))), `${f}: the engine's bytes`).toBe(true);
  }
  const cfg = JSON.parse(new TextDecoder().decode(both.files[`${base}/adapter_config.json`])) as { r: number; lora_alpha: number; target_modules: string[]; peft_type: string };
  expect(cfg.peft_type).toBe('LORA');
  expect(cfg.r).toBe(RANK);
  expect(cfg.lora_alpha).toBe(ALPHA);
  expect([...cfg.target_modules].sort()).toEqual(PROJECTIONS.map((p) => `${p}_proj`).sort());
  const names = safetensorsNames(both.files[`${base}/adapter_model.safetensors`]);
  const want = Array.from({ length: LAYERS }, (_, i) => PROJECTIONS.flatMap((p) => [peftKey(i, p, 'A'), peftKey(i, p, 'B')])).flat().sort();
  expect(names).toEqual(want);
  console.log(`zip ${both.name}: ${Object.keys(both.files).join(', ')}; ${names.length} LoRA tensors, e.g. ${names[0]}`);
  const rows = new TextDecoder().decode(both.files[`${base}/run/metrics.jsonl`]).trim().split('\n');
  expect(rows).toHaveLength(1);
  expect((parse(new TextDecoder().decode(both.files[`${base}/run/config.yaml`])) as { trainer: string }).trainer).toBe('sft');
  await expect(page.getByTestId('export-last')).toContainText(`${base}.zip`);
  await shot(page, testInfo, 'export', 'export.png');
  expect(await seriousViolations(page)).toEqual([]);

  // The adapter alone, and the logs alone.
  await page.getByTestId('export-with-logs').uncheck();
  const weights = await download(page, 'export-download');
  expect(Object.keys(weights.files).sort()).toEqual([`${base}/adapter_config.json`, `${base}/adapter_model.safetensors`]);
  const logs = await download(page, 'export-logs');
  expect(logs.name).toBe(`${runId}-run.zip`);
  expect(Object.keys(logs.files).sort()).toEqual([`${runId}-run/config.yaml`, `${runId}-run/metrics.jsonl`]);
  expect(Buffer.from(logs.files[`${runId}-run/metrics.jsonl`]).equals(Buffer.from(engineBytes('metrics.jsonl')))).toBe(true);
  for (const [width, height] of [[1280, 800], [1920, 1080]]) {
    await page.setViewportSize({ width, height });
    expect(await clippedText(page), `clipped text at ${width}x${height}`).toEqual([]);
  }

  // The Models panel lists the adapter under the model the run names.
  await openPanel(page, 'models');
  await expect(page.getByTestId('model-adapters')).toContainText(runId);
  await expect(page.getByTestId('model-adapters')).toContainText(`r=${RANK}, alpha=${ALPHA}`);
  expect(errors).toEqual([]);
});

test('Export: a full fine-tune downloads as a Hugging Face model folder zip', async ({ page }) => {
  test.setTimeout(10 * 60_000);
  const runId = `full-${Date.now()}`;
  const full = parse(CONFIG) as Record<string, Record<string, unknown>>;
  full.lora = { mode: 'full' };
  await runSft(page, stringify(full), runId);
  const written = await call<Record<string, string>>(page, 'engineExport', runId);
  await page.goto('/');
  await openPanel(page, 'export');
  await page.getByTestId('export-run').selectOption(runId);
  await expect(page.getByTestId('export-summary')).toContainText('model/ (full Hugging Face model)');
  await page.getByTestId('export-with-logs').uncheck();
  const z = await download(page, 'export-download');
  const base = `${runId}-model`;
  expect(z.name).toBe(`${base}.zip`);
  const want = Object.keys(written).filter((p) => p.startsWith('model/')).map((p) => `${base}/${p.slice('model/'.length)}`).sort();
  expect(Object.keys(z.files).sort()).toEqual(want);
  expect(want).toContain(`${base}/config.json`);
  expect(want).toContain(`${base}/model.safetensors`);
  for (const p of want) expect(Buffer.from(z.files[p]).equals(Buffer.from(written[`model/${p.slice(base.length + 1)}`], 'base64')), p).toBe(true);
  console.log(`zip ${z.name}: ${Object.keys(z.files).join(', ')}`);
});
