// Helper of the Playground and Eval browser tests: a 1-step GRPO run of the agent preset on
// agent-tiny through the test page (harness.html, same origin as the studio, so its OPFS run folder
// runs/<id>/ with adapter/ is the studio's). Used by studio-playground.spec.ts and studio-eval.spec.ts.
import { readFileSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';
import { parse, stringify } from 'yaml';

type H = Record<string, (...a: unknown[]) => Promise<unknown>>;
export const callHarness = <T>(page: Page, name: string, ...args: unknown[]) =>
  page.evaluate(([n, a]) => (window as unknown as { __harness: H }).__harness[n as string](...(a as unknown[])), [name, args] as const) as Promise<T>;

/** One GRPO step of the agent preset (2 tasks x 4 episodes): enough to write an adapter. */
function oneStep(): string {
  const c = parse(readFileSync('configs/agent_grpo.yaml', 'utf8')) as Record<string, Record<string, unknown>>;
  c.rollout = { ...c.rollout, batch_size: 2, group_size: 4, temperature: 0.3 };
  c.train = { ...c.train, steps: 1, seed: 3 };
  c.log = { ...c.log, checkpoint_every: 0, print_examples: 0 };
  return stringify(c);
}

/** Trains the run and returns its id once its adapter is in OPFS. */
export async function makeAdapterRun(page: Page, prefix: string): Promise<string> {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await callHarness<{ modelId: string }>(page, 'engineLoad', '/models/agent-tiny');
  const runId = `${prefix}-${Date.now()}`;
  await callHarness(page, 'engineStart', info.modelId, oneStep(), runId);
  await expect.poll(async () => (await callHarness<{ phase: string }>(page, 'engineState', runId)).phase, { timeout: 10 * 60_000, intervals: [1000] }).toBe('finished');
  expect(await callHarness<string[]>(page, 'engineList', runId)).toContain('adapter/adapter_model.safetensors');
  return runId;
}
