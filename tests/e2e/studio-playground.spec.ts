// Browser tests of the Playground panel: the default agent (agent-tiny) answers a calculator
// question through the engine worker with its tools run there (the python call's JSON shown and its
// response equal to the printed expression's value: the sandbox ran it), then the same prompt and
// seed go to the base and to the adapter of a run folder put in the studio's OPFS
// (tests/e2e/adapter-run.ts: a synthetic LoRA), side by side; a config that does not
// validate is named in the panel. axe finds no serious or critical violations and no text is
// clipped at 1280x800 and 1920x1080.
import { expect, test, type Page } from '@playwright/test';
import { storeAdapterRun } from './adapter-run';
import { clippedText, openPanel, seriousViolations, shot } from './studio-helpers';

/** A training-set phrasing the under-trained agent answers with a python call when greedy. */
const PROMPT = 'Eva has 12 shelves of 30 coins and finds 5 more. How many coins does Eva have in total?';

/** The python calls shown in a column whose code prints an arithmetic expression, with what the tool answered. */
async function pythonPrints(col: ReturnType<Page['getByTestId']>): Promise<{ expr: string; got: string }[]> {
  const out: { expr: string; got: string }[] = [];
  for (const tool of await col.getByTestId('play-tool').all()) {
    const json = JSON.parse(await tool.getByTestId('play-tool-call').innerText()) as { name: string; arguments: { code?: string } | null };
    const m = /^print\(([\d\s+\-*().]+)\)\s*$/.exec(json.arguments?.code ?? '');
    if (json.name === 'python' && m) out.push({ expr: m[1], got: (await tool.getByTestId('play-tool-result').innerText()).trim() });
  }
  return out;
}

test('the default agent answers with a real tool call; base and adapter side by side', async ({ page }, testInfo) => {
  test.setTimeout(20 * 60_000);
  const runId = await storeAdapterRun(page, 'play');

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await openPanel(page, 'playground');
  await expect(page.getByTestId('play-adapter').locator('option', { hasText: runId })).toHaveCount(1);
  await page.getByTestId('play-prompt').fill(PROMPT);
  // Every text the first assistant turn shows on its way: streamed, it grows token by token.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __turnTexts: string[] }).__turnTexts = seen;
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid=play-turn] pre')?.textContent ?? '';
      if (t.trim() && seen.at(-1) !== t) seen.push(t);
    }).observe(document.querySelector('[data-testid=playground-panel]')!, { subtree: true, childList: true, characterData: true });
  });
  await page.getByTestId('play-send').click();
  const base = page.getByTestId('play-col-base');
  await expect(base.getByTestId('play-finish')).toBeVisible({ timeout: 5 * 60_000 });
  await expect(base.getByTestId('play-error')).toHaveCount(0);
  const texts = await page.evaluate(() => (window as unknown as { __turnTexts: string[] }).__turnTexts);
  console.log(`the first turn was shown in ${texts.length} growing steps: ${texts.slice(0, 4).map((t) => JSON.stringify(t)).join(', ')} ...`);
  expect(texts.length, 'the reply streams').toBeGreaterThan(3);
  texts.slice(1).forEach((t, i) => expect(t.startsWith(texts[i]), 'each shown text extends the one before').toBe(true));
  const prints = await pythonPrints(base);
  console.log(`base: ${await base.innerText()}`);
  expect(prints.length, 'a python call that prints an expression').toBeGreaterThan(0);
  for (const p of prints) expect(Number(p.got), `print(${p.expr})`).toBe(Function(`return (${p.expr})`)() as number);
  await shot(page, testInfo, 'base', 'playground.png');
  expect(await seriousViolations(page)).toEqual([]);
  expect(await clippedText(page)).toEqual([]);

  // Side by side: the same prompt and seed to the base and to the stored run's adapter.
  await page.getByTestId('play-adapter').selectOption(runId);
  await expect(page.getByTestId('play-send')).toHaveText('Send to base and adapter');
  await page.getByTestId('play-send').click();
  const adapter = page.getByTestId('play-col-adapter');
  await expect(adapter).toContainText(runId);
  await expect(adapter.getByTestId('play-finish')).toBeVisible({ timeout: 5 * 60_000 });
  await expect(adapter.getByTestId('play-error')).toHaveCount(0);
  await expect(base.getByTestId('play-finish')).toBeVisible();
  // Greedy with the same seed: the base answers exactly as before.
  expect(await pythonPrints(base)).toEqual(prints);
  console.log(`adapter ${runId}: ${await adapter.innerText()}`);
  expect(await adapter.getByTestId('play-turn').count()).toBeGreaterThan(0);
  await shot(page, testInfo, 'side-by-side-1280', 'playground-side-by-side.png');
  expect(await seriousViolations(page)).toEqual([]);
  expect(await clippedText(page)).toEqual([]);
  await page.setViewportSize({ width: 1920, height: 1080 });
  expect(await clippedText(page)).toEqual([]);
  await shot(page, testInfo, 'side-by-side-1920');

  // Keyboard: the prompt box sends with Ctrl+Enter.
  await page.getByTestId('play-prompt').focus();
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('play-send')).toHaveText('Generating...');
  await expect(adapter.getByTestId('play-finish')).toBeVisible({ timeout: 5 * 60_000 });
});

test('a config that does not validate is named where the prompt was sent, and nothing is started', async ({ page }) => {
  await page.goto('/');
  await openPanel(page, 'config');
  await page.getByTestId('config-yaml').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('trainr: grpo');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('config-problem')).toBeVisible();
  await openPanel(page, 'playground');
  await page.getByTestId('play-prompt').fill(PROMPT);
  await page.getByTestId('play-send').click();
  const error = page.getByTestId('play-panel-error');
  await expect(error).toContainText('trainr');
  await expect(error).toContainText('fix it there');
  await expect(page.getByTestId('play-col-base')).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);
});
