// Shared by the engine-worker browser specs (run-worker.spec.ts, run-worker-grpo.spec.ts): the
// shrunk stories GRPO config, the harness call, the worker's event polling and metrics rows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { parse, stringify } from 'yaml';

/** Rows compared with the worker's (which is stopped mid-run, after step 4 or so). */
export const CLI_STEPS = 3;
/**
 * The CLI's uninterrupted run; the worker's folder is resumed in the CLI up to this step. The
 * worker is told to stop once step 4 or so has been reported, and takes steps of about half a
 * second meanwhile: a fresh-clone CI run saw it stop at step 7 (three steps after the request), so
 * the reference run goes well past that (each CLI step costs about 0.5 s).
 */
export const FULL_STEPS = 12;
/** Timings differ between runs by nature. */
export const TIMING = (k: string) => k === 'step_time' || k.startsWith('perf/') || k.startsWith('gpu/') || k.startsWith('timing/');

export type Row = Record<string, number | null>;
export interface Ev { runId: string; at: number; event: { kind: string; step?: number; path?: string; row?: Row; message?: string; lastCheckpoint?: string | null } }
type H = Record<string, (...a: unknown[]) => Promise<unknown>>;

/** The preset shrunk for time: 2 words x 4 stories, 16 new tokens, a length reward part, a constant learning rate (so
 * rows 1..N do not depend on train.steps and a 3-step CLI run matches a longer stopped run). */
export function config(steps: number, out: string): string {
  const c = parse(readFileSync('configs/stories_grpo.yaml', 'utf8')) as Record<string, Record<string, unknown>>;
  c.rollout = { ...c.rollout, batch_size: 2, group_size: 4, max_new_tokens: 16 };
  // A length part (target 8 words) gives every group reward variance, so every step updates the adapter.
  c.data = { ...c.data, story_target_words: 8 };
  c.env = { ...c.env, weights: { mentions: 1, length: 0.5 } };
  c.grpo = { ...c.grpo, micro_batch_size: 8 };
  c.optim = { ...c.optim, schedule: 'constant' };
  c.train = { ...c.train, steps, seed: 7 };
  c.log = { ...c.log, out_dir: out, checkpoint_every: 0, print_examples: 0 };
  return stringify(c);
}

export const call = <T>(page: Page, name: string, ...args: unknown[]) =>
  page.evaluate(([n, a]) => (window as unknown as { __harness: H }).__harness[n as string](...(a as unknown[])), [name, args] as const) as Promise<T>;

export async function waitFor(page: Page, what: string, pred: (evs: Ev[]) => boolean, timeoutMs = 600_000): Promise<Ev[]> {
  const t0 = Date.now();
  for (;;) {
    const evs = await call<Ev[]>(page, 'engineEvents');
    if (pred(evs)) return evs;
    const failed = evs.find((e) => e.event.kind === 'failed');
    if (failed) throw new Error(`run failed while waiting for ${what}: ${failed.event.message}`);
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}; events: ${evs.map((e) => `${e.event.kind}${e.event.step ?? ''}`).join(' ')}`);
    await page.waitForTimeout(250);
  }
}

export const readRows = (run: string) => readFileSync(join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
export const untimed = (r: Row) => Object.fromEntries(Object.entries(r).filter(([k]) => !TIMING(k)));

export const progressed = (evs: Ev[], step: number) => evs.some((e) => e.event.kind === 'progress' && e.event.step! >= step);
