// Browser test of the studio's "bring your own" flow in one page, one screenshot per step: a tiny HF
// folder (agent-tiny's files) is dropped on the Models panel as "my-agent" and selected; a math task
// JSONL with 3 bad lines (bad JSON, a missing field, a wrong type) is dropped on the Datasets panel:
// the 3 errors by line and field, the good/skipped counts and the good lines previewed with their
// tokens under my-agent's chat template; the Config
// names both (model.path models/my-agent, data.dataset my_tasks.jsonl), shrunk to 2 steps, and its
// memory plan says "Fits" for my-agent; Start: the run's episodes are the dropped file's tasks, a
// chart point arrives, Stop; the run folder's source.json (OPFS) holds the dropped file.
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { clippedText, openPanel, seriousViolations, shot } from './studio-helpers';

const MODEL_FILES = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
const DATA_NAME = 'my_tasks.jsonl';
/** 6 lines, 3 good (drop-1, drop-3, drop-6) and 3 bad: a missing field, bad JSON, a wrong type. */
const DATA = [
  '{"task_id": "drop-1", "question": "Mia has 4 bags of 5 plums. How many plums?", "answer": "20"}',
  '{"task_id": "drop-2", "question": "What is 9 plus 3?"}',
  '{"task_id": "drop-3", "question": "Leo reads 6 pages a day for 7 days. How many pages?", "answer": 42}',
  '{"task_id": "drop-4", "question": "a line cut short", ',
  '{"task_id": "drop-5", "question": ["not", "a", "string"], "answer": "1"}',
  '{"task_id": "drop-6", "question": "Ada has 30 stamps and gives away 12. How many are left?", "answer": "18"}',
].join('\n');

/** configs/gsm8k_grpo.yaml on the dropped model and file, shrunk for test speed: steps of 2 tasks x 2 episodes of
 * 24 new tokens, truncated ones trained on (the model is tiny, its answers run long); stopped after the first steps. */
function config(): string {
  const c = parse(readFileSync('configs/gsm8k_grpo.yaml', 'utf8')) as Record<string, Record<string, unknown>>;
  c.model = { ...c.model, path: 'models/my-agent', quant: 'none' };
  c.data = { ...c.data, dataset: DATA_NAME };
  c.env = { ...c.env, python_tool: false };
  c.rollout = { ...c.rollout, batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 160, max_new_tokens: 24 };
  c.grpo = { ...c.grpo, micro_batch_size: 4, mask_truncated_completions: false };
  c.train = { ...c.train, steps: 30 };
  c.log = { ...c.log, out_dir: 'runs/drop_flow', checkpoint_every: 0 };
  return stringify(c);
}

async function drop(page: Page, target: string, files: { name: string; from?: string; text?: string }[]): Promise<void> {
  const dt = await page.evaluateHandle(async (fs) => {
    const d = new DataTransfer();
    for (const f of fs) d.items.add(new File([f.text !== undefined ? f.text : await (await fetch(f.from!)).arrayBuffer()], f.name));
    return d;
  }, files);
  await page.getByTestId(target).dispatchEvent('dragover', { dataTransfer: dt });
  await page.getByTestId(target).dispatchEvent('drop', { dataTransfer: dt });
}

/** A file of a run folder in OPFS (runs/<runId>/<file>), read in the page. */
const runFile = (page: Page, runId: string, file: string) => page.evaluate(async ([id, f]) => {
  const runs = await (await navigator.storage.getDirectory()).getDirectoryHandle('runs');
  return (await (await (await runs.getDirectoryHandle(id)).getFileHandle(f)).getFile()).text();
}, [runId, file] as const);

test('drop a model folder and a JSONL with 3 bad lines: errors by line and field, preview, plan, a run on them', async ({ page }, testInfo) => {
  test.setTimeout(5 * 60_000);
  const t0 = Date.now(), at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');

  // 1. Models: the folder's files dropped under the name my-agent; listed, usable, selected.
  await openPanel(page, 'models');
  await page.getByTestId('model-name').fill('my-agent');
  await drop(page, 'model-dropzone', MODEL_FILES.map((f) => ({ name: f, from: `/models/agent-tiny/${f}` })));
  await expect(page.getByTestId('model-add-status')).toContainText('my-agent added', { timeout: 60_000 });
  await expect(page.getByTestId('model-row-my-agent')).toHaveAttribute('data-usable', 'true');
  await page.getByTestId('model-radio-my-agent').check();
  await expect(page.getByTestId('model-details').locator('h2')).toHaveText('my-agent');
  console.log(`${at()}: my-agent added and selected`);
  await shot(page, testInfo, '1-model-dropped');

  // 2. Datasets: the 3 bad lines listed by line and field; 3 good, 3 skipped; the good lines previewed.
  await openPanel(page, 'datasets');
  await drop(page, 'dropzone', [{ name: DATA_NAME, text: DATA }]);
  await expect(page.getByTestId('dataset-schema')).toHaveAttribute('data-schema', 'math');
  await expect(page.getByTestId('dataset-good')).toHaveText('3');
  await expect(page.getByTestId('dataset-skipped')).toHaveText('3');
  const problems = page.getByTestId('dataset-problems').getByRole('listitem');
  await expect(problems).toHaveCount(3);
  const got = await problems.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-line')}|${e.getAttribute('data-field')}|${e.textContent}`));
  console.log(got.join('\n'));
  expect(got[0]).toMatch(/^2\|answer\|my_tasks\.jsonl:2: "answer" is missing/);
  expect(got[1]).toMatch(/^4\|\|my_tasks\.jsonl:4: not valid JSON/);
  expect(got[2]).toMatch(/^5\|question\|my_tasks\.jsonl:5: "question" must be a non-empty string/);
  const previews = page.getByTestId('task-preview');
  await expect(previews).toHaveCount(3);
  for (const [i, line, text] of [[0, 1, 'Mia has 4 bags'], [1, 3, 'Leo reads 6 pages'], [2, 6, 'Ada has 30 stamps']] as const) {
    await expect(previews.nth(i)).toContainText(`line ${line}`);
    await expect(previews.nth(i)).toContainText(text);
  }
  await expect(previews.nth(0)).toContainText('system');
  // Each previewed task's tokens under my-agent's chat template: the question inside, the assistant turn opened last.
  for (let i = 0; i < 3; i++) await expect(previews.nth(i).getByTestId('preview-tokens')).toHaveAttribute('data-count', /^[1-9]\d+$/);
  const first = previews.nth(0).getByTestId('preview-tokens');
  await expect(first.locator('summary')).toHaveText(/^\d+ tokens for my-agent: 0 trained$/);
  await expect(first).toHaveAttribute('data-trained', '0');
  const pieces = await first.locator('.tok').allTextContents();
  console.log(`line 1: ${pieces.length} tokens: ${JSON.stringify(pieces.slice(0, 8))} ... ${JSON.stringify(pieces.slice(-3))}`);
  expect(pieces[0]).toBe('<|im_start|>');
  expect(pieces.join('')).toContain('Mia has 4 bags of 5 plums.');
  expect(pieces.join('').endsWith('<|im_start|>assistant\n')).toBe(true);
  await previews.nth(0).scrollIntoViewIfNeeded();
  await shot(page, testInfo, '2-dataset-dropped', 'datasets-tokens.png');
  expect(await seriousViolations(page)).toEqual([]);
  for (const [width, height] of [[1920, 1080], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    expect(await clippedText(page), `clipped text at ${width}x${height}`).toEqual([]);
  }

  // 3. Config: the model and the file named; the memory plan fits on my-agent.
  await openPanel(page, 'config');
  await page.getByTestId('config-preset').selectOption('gsm8k_grpo.yaml');
  await page.getByTestId('config-yaml').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(config());
  await expect(page.getByTestId('config-valid')).toContainText('grpo on math, 30 steps');
  await expect(page.getByTestId('plan-verdict')).toHaveText(/^Fits: .* for my-agent;/, { timeout: 60_000 });
  console.log(`${at()}: ${await page.getByTestId('plan-verdict').textContent()}`);
  await page.getByTestId('config-plan').scrollIntoViewIfNeeded();
  await shot(page, testInfo, '3-config-plan');

  // 4. Start: the Run panel, episodes of the dropped tasks, a chart point; then Stop.
  await page.getByTestId('config-start').click();
  await expect(page.getByTestId('run-panel')).toBeVisible({ timeout: 120_000 });
  const runId = ((await page.getByRole('heading', { name: /^Run run-/ }).textContent()) ?? '').replace(/^Run /, '');
  console.log(`${at()}: Run panel for ${runId}`);
  await expect(page.getByTestId('chart-reward')).toHaveAttribute('data-points', /^[1-9]/, { timeout: 180_000 });
  console.log(`${at()}: first chart point`);
  const rows = page.getByTestId('rollout-row');
  await expect(rows.first()).toBeVisible();
  const tasks = await rows.evaluateAll((els) => els.map((e) => e.querySelectorAll('[role=cell]')[1]?.textContent ?? ''));
  console.log(`episodes of tasks: ${tasks.join(', ')}`);
  expect(tasks.length).toBeGreaterThanOrEqual(4);
  for (const t of tasks) expect(['drop-1', 'drop-3', 'drop-6']).toContain(t);
  await shot(page, testInfo, '4-running');
  await page.getByTestId('run-stop').click();
  await expect(page.getByTestId('run-status')).toHaveText('Stopped', { timeout: 120_000 });

  // The run folder names the dropped file and holds its text; its config names the dropped model.
  const source = JSON.parse(await runFile(page, runId, 'source.json')) as { dataset?: { name?: string; text?: string } };
  expect(source.dataset?.name).toBe(DATA_NAME);
  expect(source.dataset?.text).toBe(DATA);
  expect(await runFile(page, runId, 'config.yaml')).toContain('models/my-agent');
  console.log(`${at()}: ${await page.getByTestId('run-status').textContent()}; source.json names ${source.dataset?.name}`);
  // The dropped model is the shipped agent, which calls its python tool, off in this config: a
  // group's two episodes often score alike, and the panel says so. No other warning is expected.
  const warnings = await page.getByTestId('run-warnings').locator('li').allTextContents();
  console.log(`${warnings.length} warnings: ${warnings.map((w) => w.slice(0, 60)).join(' | ')}`);
  expect(warnings.filter((w) => !w.includes('zero reward variance'))).toEqual([]);
  await shot(page, testInfo, '5-stopped');
  expect(errors).toEqual([]);
});
