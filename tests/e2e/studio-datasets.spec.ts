// Browser tests of the Datasets panel: a dropped JSONL with 3 bad lines lists the 3 errors by line
// and field (the CLI loader's messages) and previews the good lines; a shipped file is picked and
// split; a large shipped file is read in the worker while the page's long tasks are recorded; the
// token previews show an SFT file's trained (assistant) tokens apart from its context (and its
// tool-call turns their call's JSON), the SFT
// loader's truncated / skipped counts, and an agent task's tool list in its prompt;
// axe finds no serious/critical violations.
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { openPanel, seriousViolations, shot } from './studio-helpers';

const BAD_FILE = [
  '{"task_id": "t1", "question": "Tom has 3 apples and buys 4 more. How many apples does he have?", "answer": "7"}',
  '{"task_id": "t2", "question": "What is 6 times 7?"}',
  '{"task_id": "t3", "question": "A train goes 60 km in 1 hour. How far in 3 hours?", "answer": 180}',
  '{"task_id": "t4", "question": "broken line", ',
  '{"task_id": "t5", "question": 12, "answer": "1"}',
  '{"task_id": "t6", "question": "Half of 50?", "answer": "25"}',
].join('\n');

async function dropFile(page: Page, name: string, text: string): Promise<void> {
  const dt = await page.evaluateHandle(([n, t]) => {
    const d = new DataTransfer();
    d.items.add(new File([t], n, { type: 'application/jsonl' }));
    return d;
  }, [name, text]);
  await page.getByTestId('dropzone').dispatchEvent('dragover', { dataTransfer: dt });
  await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer: dt });
}

test('a dropped JSONL with 3 bad lines: 3 errors by line and field, the good lines previewed', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'datasets');
  await shot(page, testInfo, 'empty');
  await dropFile(page, 'my_math.jsonl', BAD_FILE);
  await expect(page.getByTestId('dataset-schema')).toHaveAttribute('data-schema', 'math');
  await expect(page.getByTestId('dataset-good')).toHaveText('3');
  await expect(page.getByTestId('dataset-skipped')).toHaveText('3');
  const rows = page.getByTestId('dataset-problems').getByRole('listitem');
  await expect(rows).toHaveCount(3);
  const got = await rows.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-line')}|${e.getAttribute('data-field')}|${e.textContent}`));
  console.log(got.join('\n'));
  expect(got[0]).toMatch(/^2\|answer\|my_math\.jsonl:2: "answer" is missing/);
  expect(got[1]).toMatch(/^4\|\|my_math\.jsonl:4: not valid JSON/);
  expect(got[2]).toMatch(/^5\|question\|my_math\.jsonl:5: "question" must be a non-empty string/);
  const previews = page.getByTestId('task-preview');
  await expect(previews).toHaveCount(3);
  await expect(previews.nth(0)).toContainText('line 1');
  await expect(previews.nth(0)).toContainText('Tom has 3 apples');
  await expect(previews.nth(0)).toContainText('system');
  await expect(previews.nth(1)).toContainText('line 3');
  await expect(previews.nth(2)).toContainText('line 6');
  await expect(page.getByTestId('dataset-split-counts')).toContainText('train');
  await shot(page, testInfo, 'three-bad-lines', 'datasets.png');
  expect(await seriousViolations(page)).toEqual([]);
});

test('a shipped file is picked, read in the worker, and split', async ({ page }, testInfo) => {
  await page.goto('/#datasets');
  // Opening the GPU device at start has long tasks of its own: observe after it is done.
  await expect(page.getByTestId('gpu-badge')).not.toHaveText(/opening|idle/);
  await page.evaluate(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => w.__longTasks.push(e.duration))).observe({ type: 'longtask', buffered: false });
  });
  await page.getByTestId('dataset-shipped').selectOption('gsm8k_train.jsonl');
  await expect(page.getByTestId('dataset-good')).toHaveText('7,473', { timeout: 60_000 });
  await expect(page.getByTestId('dataset-skipped')).toHaveText('0');
  const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
  console.log(`gsm8k_train.jsonl (4.9 MB): main-thread long tasks while reading: ${longTasks.length}, longest ${Math.max(0, ...longTasks).toFixed(0)} ms`);
  await page.getByTestId('dataset-shipped').selectOption('mbpp_prompt.jsonl');
  await expect(page.getByTestId('dataset-schema')).toHaveAttribute('data-schema', 'code_exec');
  await expect(page.getByTestId('dataset-good')).toHaveText('10');
  await expect(page.getByTestId('dataset-split-counts')).toHaveText(/^9 train, 1 eval tasks/);
  await page.getByLabel(/Eval share/).fill('0.3');
  await expect(page.getByTestId('dataset-split-counts')).toHaveText(/^7 train, 3 eval tasks/);
  await shot(page, testInfo, 'shipped-mbpp');
  expect(await seriousViolations(page)).toEqual([]);
});

/** 120 lines of the shipped agent SFT traces, one whose answer runs past 512 tokens, one with no assistant turn. */
function sftFile(): string {
  const lines = readFileSync('datasets/agent_sft.jsonl', 'utf8').split('\n').filter((l) => l.trim()).slice(0, 120);
  const long = { messages: [{ role: 'user', content: 'Count to three hundred.' }, { role: 'assistant', content: Array.from({ length: 300 }, (_, i) => String(i + 1)).join(' ') }] };
  const noAssistant = { messages: [{ role: 'user', content: 'Nobody answers.' }] };
  return [...lines.slice(0, 5), JSON.stringify(long), ...lines.slice(5), JSON.stringify(noAssistant)].join('\n');
}

test('token previews: SFT lines trained on their assistant turns with the loader\'s length check; agent tasks list their tools', async ({ page }, testInfo) => {
  test.setTimeout(3 * 60_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'datasets');
  await dropFile(page, 'my_sft.jsonl', sftFile());
  await expect(page.getByTestId('dataset-schema')).toHaveAttribute('data-schema', 'sft');
  // The assistant's tool-call turn (empty content) shows its call, not an empty box.
  const call = page.getByTestId('task-preview').nth(0).getByTestId('tool-call-json').first();
  await expect(call).toContainText('"name": "python"');
  await expect(call).toContainText('print(');
  const first = page.getByTestId('task-preview').nth(0).getByTestId('preview-tokens');
  await expect(first).toHaveAttribute('data-trained', /^[1-9]\d*$/, { timeout: 60_000 });
  const trained = (await first.locator('.tok-policy').allTextContents()).join('');
  const context = (await first.locator('.tok-prompt').allTextContents()).join('');
  console.log(`SFT line 1: ${await first.getAttribute('data-count')} tokens, trained ${JSON.stringify(trained)}`);
  expect(trained).toContain('<tool_call>');
  expect(trained).toContain('<answer>');
  expect(trained).not.toContain('How many coins');
  expect(context).toContain('How many coins');
  expect(context).toContain('<tool_response>');
  await expect(page.getByTestId('preview-legend')).toContainText('trained (mask 1)');
  await expect(page.getByTestId('preview-legend')).toContainText('context (mask 0)');
  const check = page.getByTestId('sft-check');
  await expect(check).toHaveAttribute('data-max-length', '512', { timeout: 120_000 });
  await expect(check).toHaveAttribute('data-truncated', '1');
  await expect(check).toHaveAttribute('data-skipped', '1');
  await expect(check).toContainText('my_sft.jsonl:122: "messages" has no assistant message');
  console.log(`SFT check: ${await check.locator('p').first().textContent()}`);
  // The shot shows the first line's trained tokens (its token box and the page scrolled to them).
  await first.locator('.tok-policy').first().scrollIntoViewIfNeeded();
  await shot(page, testInfo, 'sft-preview', 'datasets-sft.png');
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByTestId('dataset-shipped').selectOption('agent_train.jsonl');
  await expect(page.getByTestId('dataset-schema')).toHaveAttribute('data-schema', 'agent');
  const tools = page.getByTestId('preview-tools');
  await expect(tools).toHaveAttribute('data-tools', 'python, search', { timeout: 60_000 });
  await expect(tools).toHaveAttribute('data-listed', 'yes');
  const task = page.getByTestId('task-preview').nth(0).getByTestId('preview-tokens');
  await expect(task).toHaveAttribute('data-trained', '0');
  const text = (await task.locator('.tok').allTextContents()).join('');
  console.log(`agent task: ${await task.getAttribute('data-count')} tokens: ${JSON.stringify(text.slice(0, 240))}`);
  expect(text).toContain('# Tools');
  expect(text).toMatch(/python\(code\): Run Python code/);
  expect(text).toMatch(/search\(query.*\): Search the fact corpus/);
  expect(text.endsWith('<|im_start|>assistant\n')).toBe(true);
  await page.getByTestId('dataset-previews').scrollIntoViewIfNeeded();
  await shot(page, testInfo, 'task-tools', 'datasets-agent-tools.png');
  expect(await seriousViolations(page)).toEqual([]);
});
