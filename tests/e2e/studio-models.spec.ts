// Browser tests of the Models panel: the shipped models are inspected by the engine worker (params
// and GPU bytes equal the Node-side header count and memory plan); a user's folder (agent-tiny's
// files under another name, given through <input webkitdirectory>) is added, kept in OPFS, listed
// again after a reload, selected and loaded by the worker from OPFS; a folder without tokenizer.json
// and one with a broken safetensors header are refused with the file named; a user model is
// removed; a folder chosen with the folder picker (showDirectoryPicker, stubbed with an OPFS folder)
// is added under its name; axe and clipped text at 1280x800 and 1920x1080.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { parseModelConfig } from '../../src/model/hf-config';
import { planInference } from '../../src/train/memory-plan';
import { clippedText, openPanel, seriousViolations, shot } from './studio-helpers';

const TINY = 'public/models/agent-tiny';
const FILES = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'README.md'];

/** Values in agent-tiny's safetensors (tied: no lm_head), from its header read here in Node. */
function tinyParams(): number {
  const b = readFileSync(join(TINY, 'model.safetensors'));
  const n = Number(b.readBigUInt64LE(0));
  const h = JSON.parse(b.subarray(8, 8 + n).toString('utf8')) as Record<string, { shape?: number[] }>;
  return Object.entries(h).filter(([k]) => k !== '__metadata__').reduce((a, [, t]) => a + t.shape!.reduce((x, y) => x * y, 1), 0);
}

/** Drops files (fetched from the app's agent-tiny, or given bytes) on the Models panel's dropzone as loose files. */
async function dropFiles(page: Page, files: { name: string; from?: string; text?: string }[]): Promise<void> {
  const dt = await page.evaluateHandle(async (fs) => {
    const d = new DataTransfer();
    for (const f of fs) {
      const body = f.text !== undefined ? f.text : await (await fetch(f.from!)).arrayBuffer();
      d.items.add(new File([body], f.name));
    }
    return d;
  }, files);
  await page.getByTestId('model-dropzone').dispatchEvent('dragover', { dataTransfer: dt });
  await page.getByTestId('model-dropzone').dispatchEvent('drop', { dataTransfer: dt });
}

async function checkLayout(page: Page): Promise<void> {
  for (const [width, height] of [[1280, 800], [1920, 1080]]) {
    await page.setViewportSize({ width, height });
    expect(await clippedText(page), `clipped text at ${width}x${height}`).toEqual([]);
  }
}

test('Models: shipped models inspected, a user folder added, kept after a reload, selected, loaded and removed; broken folders refused', async ({ page }, testInfo) => {
  test.setTimeout(10 * 60_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => void d.accept());
  // The <input webkitdirectory> path (the picker dialog cannot be driven headless).
  await page.addInitScript(() => Object.defineProperty(window, 'showDirectoryPicker', { value: undefined, configurable: true }));
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'models');

  // Shipped: agent-tiny (selected by default) with its figures.
  await expect(page.getByTestId('model-row-agent-tiny')).toHaveAttribute('data-usable', 'true');
  await expect(page.getByTestId('model-row-stories260K')).toHaveAttribute('data-usable', 'true');
  await expect(page.getByTestId('model-arch')).toContainText('Qwen2ForCausalLM');
  const params = tinyParams();
  await expect(page.getByTestId('model-params')).toHaveAttribute('data-params', String(params));
  const cfg = parseModelConfig(JSON.parse(readFileSync(join(TINY, 'config.json'), 'utf8')));
  for (const quant of ['none', 'nf4'] as const) {
    const plan = planInference(cfg, { quant, quantEmbeddings: false, B: 1, Tmax: Math.min(512, cfg.maxPositions) });
    await expect(page.getByTestId(`model-gpu-${quant}`)).toHaveAttribute('data-bytes', String(plan.weightsBytes));
    console.log(`agent-tiny ${quant}: ${plan.weightsBytes} weight bytes, ${plan.total} with a 512-token chat`);
  }
  await expect(page.getByTestId('model-context')).toContainText('512');
  await expect(page.getByTestId('model-vocab')).toContainText('1,024');
  await page.getByTestId('model-template').locator('summary').click();
  await expect(page.getByTestId('model-template').locator('pre')).toContainText('im_start');
  await shot(page, testInfo, 'shipped', 'models.png');
  expect(await seriousViolations(page)).toEqual([]);
  await checkLayout(page);
  await page.setViewportSize({ width: 1280, height: 800 });

  // A user's folder: agent-tiny's files in a folder named my-agent.
  const dir = join(mkdtempSync(join(tmpdir(), 'studio-models-')), 'my-agent');
  mkdirSync(dir);
  for (const f of FILES) copyFileSync(join(TINY, f), join(dir, f));
  await page.getByTestId('model-folder').setInputFiles(dir);
  await expect(page.getByTestId('model-add-status')).toContainText('my-agent added', { timeout: 60_000 });
  await expect(page.getByTestId('model-row-my-agent')).toHaveAttribute('data-usable', 'true');
  await expect(page.getByTestId('model-storage')).toContainText('used of');
  console.log(await page.getByTestId('model-storage').textContent());

  // A folder without tokenizer.json: refused, the file named.
  await page.getByTestId('model-name').fill('no-tokenizer');
  await dropFiles(page, [{ name: 'config.json', from: '/models/agent-tiny/config.json' }, { name: 'model.safetensors', from: '/models/agent-tiny/model.safetensors' }]);
  const rejected = page.getByTestId('model-rejected');
  await expect(rejected).toContainText('tokenizer.json');
  await expect(rejected).toContainText('missing');
  console.log(`no tokenizer: ${await rejected.textContent()}`);
  await shot(page, testInfo, 'no-tokenizer', 'models-rejected.png');
  expect(await seriousViolations(page)).toEqual([]);

  // A broken safetensors header: refused, model.safetensors named.
  await page.getByTestId('model-name').fill('bad-header');
  await dropFiles(page, [
    { name: 'config.json', from: '/models/agent-tiny/config.json' }, { name: 'tokenizer.json', from: '/models/agent-tiny/tokenizer.json' },
    { name: 'model.safetensors', text: '\u0010\u0000\u0000\u0000\u0000\u0000\u0000\u0000{"broken": tru' },
  ]);
  await expect(rejected).toContainText('model.safetensors');
  console.log(`bad header: ${await rejected.textContent()}`);
  await expect(page.getByTestId('model-row-no-tokenizer')).toHaveCount(0);
  await expect(page.getByTestId('model-row-bad-header')).toHaveCount(0);

  // After a reload: still listed (OPFS); select it; the worker loads it from OPFS.
  await page.reload();
  await openPanel(page, 'models');
  await expect(page.getByTestId('model-row-my-agent')).toHaveAttribute('data-usable', 'true');
  await page.getByTestId('model-radio-my-agent').check();
  const details = page.getByTestId('model-details');
  await expect(details.locator('h2')).toHaveText('my-agent');
  await expect(details).toContainText('opfs:/models/my-agent');
  await expect(page.getByTestId('model-params')).toHaveAttribute('data-params', String(params));
  await page.getByTestId('model-load-button').click();
  await expect(page.getByTestId('model-loaded')).toBeVisible({ timeout: 120_000 });
  console.log(`my-agent loaded from OPFS: ${await page.getByTestId('model-loaded').getAttribute('data-bytes')} weight bytes on the GPU`);
  await shot(page, testInfo, 'user-model', 'models-user.png');
  expect(await seriousViolations(page)).toEqual([]);
  await checkLayout(page);

  // Remove it: gone now and after a reload; the selection falls back to the default.
  await page.getByTestId('model-remove').click();
  await expect(page.getByTestId('model-row-my-agent')).toHaveCount(0);
  await expect(page.getByTestId('model-radio-agent-tiny')).toBeChecked();
  await page.reload();
  await openPanel(page, 'models');
  await expect(page.getByTestId('model-row-agent-tiny')).toHaveAttribute('data-usable', 'true');
  await expect(page.getByTestId('model-row-my-agent')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('Models: a folder chosen with the folder picker (showDirectoryPicker) is added under its own name', async ({ page }) => {
  test.setTimeout(5 * 60_000);
  // The picker returns a folder prepared in OPFS (the dialog itself cannot be driven headless).
  await page.addInitScript(() => {
    const w = window as unknown as { showDirectoryPicker: () => Promise<FileSystemDirectoryHandle> };
    w.showDirectoryPicker = async () => (await (await navigator.storage.getDirectory()).getDirectoryHandle('picked')).getDirectoryHandle('agent-copy');
  });
  await page.goto('/');
  await page.evaluate(async (files) => {
    const dir = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('picked', { create: true })).getDirectoryHandle('agent-copy', { create: true });
    for (const f of files) {
      const w = await (await dir.getFileHandle(f, { create: true })).createWritable();
      await w.write(await (await fetch(`/models/agent-tiny/${f}`)).arrayBuffer());
      await w.close();
    }
  }, FILES.filter((f) => f !== 'README.md'));
  await openPanel(page, 'models');
  await expect(page.getByTestId('model-folder')).toHaveCount(0);
  await page.getByTestId('model-pick').click();
  await expect(page.getByTestId('model-add-status')).toContainText('agent-copy added', { timeout: 60_000 });
  await page.getByTestId('model-radio-agent-copy').check();
  await expect(page.getByTestId('model-params')).toHaveAttribute('data-params', String(tinyParams()));
  expect(await seriousViolations(page)).toEqual([]);
});
