// Browser test of the run storage (src/run/opfs-storage.ts): files read while a live run appends to
// one and replaces another. In Chromium a File snapshot taken before such a write fails to read
// (NotFoundError, as if the file were gone, or NotReadableError); OpfsStorage.read takes a new
// snapshot, so a listing of a live run never fails and never reports its files missing.
import { expect, test } from '@playwright/test';

type H = Record<string, (...a: unknown[]) => Promise<unknown>>;
interface Counts { raw: { reads: number; failed: number; first: string; kinds: string }; storage: { reads: number; failed: number; missing: number; first: string }; lines: number }

test('files read while they are appended to or replaced: stale snapshots fail, OpfsStorage.read never does', async ({ page }) => {
  await page.goto('/harness.html');
  const APPENDS = 300;
  const r = await page.evaluate((n) => (window as unknown as { __harness: H }).__harness.opfsReadWhileAppending(n), APPENDS) as Counts;
  console.log(`${APPENDS} appends: raw File snapshots ${r.raw.failed}/${r.raw.reads} reads failed (${r.raw.kinds}; first ${r.raw.first || 'none'}); ` +
    `OpfsStorage.read ${r.storage.failed}/${r.storage.reads} failed, ${r.storage.missing} found no file${r.storage.first ? ` (${r.storage.first})` : ''}`);
  expect(r.raw.failed, 'the hazard the retry guards against still exists in this Chromium').toBeGreaterThan(0);
  expect(r.storage.failed).toBe(0);
  expect(r.storage.missing).toBe(0);
  expect(r.lines).toBe(APPENDS + 1);
});
