// Helpers of the studio's browser tests: open a panel through the navigation, run axe on the
// page (serious/critical violations listed by rule and target), find clipped text, and keep a
// screenshot per step (test artifact, and under docs/studio/ for the README when asked). The main
// thread's long tasks: main-thread-trace.ts.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type TestInfo } from '@playwright/test';

export async function openPanel(page: Page, id: string): Promise<void> {
  await page.getByTestId(`nav-${id}`).click();
  await expect(page.getByTestId(`${id}-panel`)).toBeVisible();
}

/**
 * Serious and critical axe violations of the page, as readable lines. Legacy mode (axe.run in the
 * page itself): the default mode also opens a blank page per call to merge per-frame results,
 * which the studio (no iframes) does not need; measured 27.4 vs 13.7 s for 16 calls, the same
 * findings.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).setLegacyMode().analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Elements whose content is wider than their box (cut off or forcing a scrollbar), and page overflow. */
export async function clippedText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth) out.push(`page is ${document.documentElement.scrollWidth}px wide for a ${window.innerWidth}px window`);
    for (const el of document.querySelectorAll<HTMLElement>('.main *, .nav *, .header *')) {
      if (el.closest('.cm-editor, .problem-list, pre')) continue;   // scrollable by design
      if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && getComputedStyle(el).display !== 'inline') {
        out.push(`${el.tagName.toLowerCase()}.${el.className || '-'} "${(el.textContent ?? '').slice(0, 40)}": content ${el.scrollWidth}px in ${el.clientWidth}px`);
      }
    }
    return out;
  });
}

/**
 * Resizes the window and waits until nothing is clipped (up to 10 s): the charts re-measure on a
 * resize observation, which a loaded machine delivers late; clipping that stays fails the test.
 */
export async function expectNoClippingAt(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await expect.poll(() => clippedText(page), { message: `clipped at ${size.width}x${size.height}`, timeout: 10_000 }).toEqual([]);
}

export async function shot(page: Page, testInfo: TestInfo, name: string, docsFile?: string): Promise<void> {
  const body = await page.screenshot({ fullPage: false });
  await testInfo.attach(name, { body, contentType: 'image/png' });
  if (docsFile && process.env.STUDIO_DOC_SHOTS) await page.screenshot({ path: `docs/studio/${docsFile}` });
}

/** A file of a run folder in the page's OPFS (runs/ID/path), read by the page directly (not through the worker under test). */
export const readOpfs = (page: Page, runId: string, path: string): Promise<string> => page.evaluate(async ([id, p]) => {
  let d = await (await navigator.storage.getDirectory()).getDirectoryHandle('runs');
  d = await d.getDirectoryHandle(id);
  const parts = p.split('/');
  for (const x of parts.slice(0, -1)) d = await d.getDirectoryHandle(x);
  return (await (await d.getFileHandle(parts.at(-1)!)).getFile()).text();
}, [runId, path] as const);
