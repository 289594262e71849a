// Browser tests of the Datasets panel: a dropped JSONL with 3 bad lines lists the 3 errors by line
// and field (the CLI loader's messages) and previews the good lines; a shipped file is picked and
// split; a large shipped file is read in the worker while the page's long tasks are recorded;
// axe finds no serious/critical violations.
import { expect, test, type Page } from '@playwright/test';
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
