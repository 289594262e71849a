// Browser tests of the studio shell: every panel of the left navigation opens (by mouse and by
// keyboard), empty panels say what fills them, no text is clipped at 1280x800,
// 1400x900 (the GPU limits card) and 1920x1080, and axe finds no serious/critical violations on
// any panel at 1280x800 and 1920x1080.
import { expect, test } from '@playwright/test';
import { clippedText, openPanel, seriousViolations, shot } from './studio-helpers';

const PANELS = ['models', 'datasets', 'config', 'run', 'runs', 'export', 'playground', 'eval', 'tools', 'gpu'];

for (const [w, h] of [[1280, 800], [1400, 900], [1920, 1080]]) {
  test(`layout holds at ${w}x${h} on every panel${w === 1400 ? '' : ', axe is clean'}`, async ({ page }, testInfo) => {
    await page.setViewportSize({ width: w, height: h });
    await page.goto('/');
    await expect(page.getByTestId('gpu-limits')).toBeVisible();
    for (const id of PANELS) {
      await openPanel(page, id);
      const clipped = await clippedText(page);
      expect(clipped, `${id} at ${w}x${h}`).toEqual([]);
      if (w !== 1400) expect(await seriousViolations(page), `axe on ${id} at ${w}x${h}`).toEqual([]);
      await shot(page, testInfo, `${id}-${w}x${h}`, w === 1280 && id === 'gpu' ? 'gpu.png' : undefined);
    }
  });
}

test('the navigation works from the keyboard; an empty panel says what fills it', async ({ page }, testInfo) => {
  await page.goto('/#gpu');
  await expect(page.getByTestId('gpu-panel')).toBeVisible();
  await page.getByTestId('nav-models').focus();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('nav-datasets')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('datasets-panel')).toBeVisible();
  await expect(page).toHaveURL(/#datasets$/);
  await page.reload();
  await expect(page.getByTestId('datasets-panel')).toBeVisible();
  await openPanel(page, 'export');
  await expect(page.getByTestId('export-panel')).toContainText('No run to export yet');
  await shot(page, testInfo, 'export-empty');
  await openPanel(page, 'run');
  await expect(page.getByTestId('run-none')).toContainText('No run on this page yet');
});

test('populated Datasets (a file with bad lines): axe is clean and no text clipped at 1280x800 and 1920x1080', async ({ page }) => {
  await page.goto('/#datasets');
  const text = ['{"task_id": "a", "question": "What is 2 plus 2?", "answer": "4"}', '{"task_id": "b", "question": "no answer"}', '{broken'].join('\n');
  const dt = await page.evaluateHandle((t) => { const d = new DataTransfer(); d.items.add(new File([t], 'mixed.jsonl')); return d; }, text);
  await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer: dt });
  await expect(page.getByTestId('dataset-problems').getByRole('listitem')).toHaveCount(2);
  await expect(page.getByTestId('task-preview')).toHaveCount(1);
  for (const [w, h] of [[1280, 800], [1920, 1080]]) {
    await page.setViewportSize({ width: w, height: h });
    expect(await clippedText(page), `datasets at ${w}x${h}`).toEqual([]);
    expect(await seriousViolations(page), `axe on datasets at ${w}x${h}`).toEqual([]);
  }
});
