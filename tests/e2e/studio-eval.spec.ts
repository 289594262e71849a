// Browser tests of the Eval panel: the agent preset's held-out split (4 tasks) scored for agent-tiny
// and for the adapter of a run folder put in OPFS (tests/e2e/adapter-run.ts: a synthetic LoRA),
// through the engine worker with the tools run there; the base figures equal `npm run cli -- eval`
// on the same tasks (greedy, run here in a child process, not a fixture); progress is shown; the report is saved as the run's eval.json and
// listed again after a reload; a picked task file is scored instead of the split (base only, not saved). axe clean,
// nothing clipped at 1280x800 and 1920x1080.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { storeAdapterRun } from './adapter-run';
import { clippedText, openPanel, seriousViolations, shot } from './studio-helpers';
import { cliCommand } from '../fixtures/cli-command';

const TASKS = 4;

test('base and adapter on the held-out split: the CLI\'s figures, progress, saved in the run and listed after reload; a picked task file scored instead', async ({ page }, testInfo) => {
  test.setTimeout(25 * 60_000);
  const cli = spawnSync(...cliCommand('eval', '--tasks', String(TASKS), '--tune', 'false'), { encoding: 'utf8', timeout: 900_000 });
  expect(cli.status, cli.stderr).toBe(0);
  const want = JSON.parse(cli.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  console.log(`CLI eval: ${JSON.stringify(want)}`);
  const runId = await storeAdapterRun(page, 'eval');

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'eval');
  await expect(page.getByTestId('eval-adapter').locator('option', { hasText: runId })).toHaveCount(1);
  await page.getByTestId('eval-adapter').selectOption(runId);
  await page.getByTestId('eval-tasks').fill(String(TASKS));
  await page.getByTestId('eval-run').click();
  await expect(page.getByTestId('eval-progress')).toBeVisible();
  await shot(page, testInfo, 'progress');
  const report = page.getByTestId('eval-report');
  await expect(report.or(page.getByTestId('eval-error'))).toBeVisible({ timeout: 10 * 60_000 });
  await expect(page.getByTestId('eval-error')).toHaveCount(0);
  console.log(`panel: ${(await report.innerText()).replace(/\n/g, ' | ')}`);

  // The base column equals the CLI's figures (same tasks, greedy, same engine).
  const shown = async (metric: string, col: number) => (await report.getByTestId(`eval-row-${metric}`).locator('td').nth(col).innerText()).trim();
  const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
  for (const k of ['eval/accuracy', 'eval/pass@1', 'eval/accuracy/calculator', 'eval/accuracy/lookup', 'tools/failure_frequency', 'eval/malformed_call_rate']) {
    expect(await shown(k, 0), k).toBe(pct(want[k]));
  }
  for (const k of ['eval/reward', 'tools/call_frequency', 'num_turns/mean']) expect(await shown(k, 0), k).toBe(want[k].toFixed(3));
  expect(await shown('eval/accuracy', 1)).toMatch(/%$/);
  await expect(page.getByTestId('eval-saved')).toContainText(`runs/${runId}/eval.json`);
  await shot(page, testInfo, 'report', 'eval.png');
  expect(await seriousViolations(page)).toEqual([]);
  expect(await clippedText(page)).toEqual([]);

  // A picked task file is scored instead of the split, base only (adapter set back to none),
  // nothing saved; on the same page, so the engine worker and its Python workers are warm.
  const lines = readFileSync('datasets/agent_eval.jsonl', 'utf8').trim().split('\n');
  const picked = [lines.find((l) => l.includes('"lookup"'))!, lines.find((l) => l.includes('"calculator"'))!].join('\n') + '\n';
  await page.getByTestId('eval-adapter').selectOption('');
  await page.getByTestId('eval-file').setInputFiles({ name: 'two-tasks.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(picked) });
  await expect(page.getByTestId('eval-split')).toBeDisabled();
  await page.getByTestId('eval-run').click();
  await expect(report.or(page.getByTestId('eval-error'))).toContainText('two-tasks.jsonl: 2 tasks x 1 sample(s)', { timeout: 5 * 60_000 });
  await expect(page.getByTestId('eval-error')).toHaveCount(0);
  await expect(report.getByTestId('eval-row-eval/accuracy/lookup')).toBeVisible();
  await expect(report.getByTestId('eval-row-eval/accuracy/calculator')).toBeVisible();
  await expect(report.locator('th', { hasText: 'adapter' })).toHaveCount(0);
  await expect(page.getByTestId('eval-saved')).toHaveCount(0);

  // After a reload the saved evaluation is listed from the run folder.
  await page.reload();
  await expect(page.getByTestId('eval-panel')).toBeVisible();
  const saved = page.getByTestId('eval-saved-run').filter({ hasText: runId });
  await expect(saved).toHaveCount(1);
  await expect(saved).toContainText(`accuracy base ${pct(want['eval/accuracy'])}`);
  await saved.locator('summary').click();
  await expect(saved.getByTestId('eval-row-tools/call_frequency')).toBeVisible();
  await page.setViewportSize({ width: 1920, height: 1080 });
  expect(await clippedText(page)).toEqual([]);
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, testInfo, 'saved-1920');
});
