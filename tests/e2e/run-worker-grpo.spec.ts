// A GRPO run on stories260K driven through the engine Web Worker (src/workers/engine/) from the page, in
// headless Chromium: the metrics rows equal the CLI's for the same config and seed (within 1e-4
// relative, timings excluded), the page's main thread has no task over 100 ms of CPU time (nor 300 ms
// wall; a Chrome trace, main-thread-trace.ts: the requirement is 100 ms) while it trains,
// pause holds the loop and resume continues it, checkpoint-now adds a checkpoint, stop writes one,
// and the run folder lands in OPFS (read back through the worker); that folder, copied into a Node
// folder, resumes in the CLI and ends equal to the CLI's uninterrupted run (metrics, checkpoint
// and adapter bytes). The CLI reference is run here in a child process (not a fixture) so it
// always uses today's kernels; it runs first, before the page is watched for long tasks, and the
// spec runs in the 'alone' project (playwright.config.ts: no other browser beside it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { BLOCKED_MS, checkProbe, describeTasks, LONG_TASK_MS, startMainThreadTrace, stopMainThreadTrace } from './main-thread-trace';
import { CLI_STEPS, FULL_STEPS, TIMING, call, config, progressed, readRows, untimed, waitFor, type Ev, type Row } from './run-worker-helpers';
import { cliCommand } from '../fixtures/cli-command';

test('GRPO through the engine worker: CLI-equal metrics, no long tasks, pause / resume / checkpoint-now / stop', async ({ page }, testInfo) => {
  test.setTimeout(30 * 60_000);
  const dir = mkdtempSync(join(tmpdir(), 'run-worker-'));
  writeFileSync(join(dir, 'cli.yaml'), config(FULL_STEPS, join(dir, 'cli')));
  const t0 = Date.now();
  const cli = spawnSync(...cliCommand('train', '--config', join(dir, 'cli.yaml'), '--tune', 'false'), { encoding: 'utf8', timeout: 900_000 });
  expect(cli.status, cli.stderr).toBe(0);
  const cliRows = readRows(join(dir, 'cli'));
  console.log(`CLI: ${FULL_STEPS} steps in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  await startMainThreadTrace(page);   // before the load: the page is quiet, the probe gets its core
  const info = await call<{ modelId: string; architecture: string }>(page, 'engineLoad', '/models/stories260K');
  const runId = `e2e-${Date.now()}`;
  await call(page, 'engineStart', info.modelId, config(50, 'runs/worker'), runId);
  // Pause at once: the loop holds before its next step (step 1, or step 2 when step 1 was already under way).
  await call(page, 'engineCommand', runId, 'pause');
  for (let i = 0; !(await call<{ holding: boolean }>(page, 'engineState', runId)).holding; i++) {
    expect(i, 'the loop holds within 10 min of pause').toBeLessThan(2400);
    await page.waitForTimeout(250);
  }
  const heldAt = (await call<Ev[]>(page, 'engineEvents')).filter((e) => e.event.kind === 'progress').length;
  await page.waitForTimeout(4000);
  let evs = await call<Ev[]>(page, 'engineEvents');
  expect(evs.filter((e) => e.event.kind === 'progress').length, 'no step while paused').toBe(heldAt);
  expect((await call<{ phase: string }>(page, 'engineState', runId)).phase).toBe('paused');
  await page.screenshot({ path: testInfo.outputPath('paused.png') });
  const resumedAt = await page.evaluate(() => performance.now());
  await call(page, 'engineCommand', runId, 'resume');
  evs = await waitFor(page, 'a step after resume', (x) => progressed(x, heldAt + 1));
  expect(evs.find((e) => e.event.kind === 'progress' && e.event.step === heldAt + 1)!.at).toBeGreaterThan(resumedAt);
  console.log(`pause held the loop after ${heldAt} step(s) for 4 s; resume continued it`);
  await waitFor(page, 'step 2', (x) => progressed(x, 2));

  await call(page, 'engineCommand', runId, 'checkpoint');
  evs = await waitFor(page, 'the checkpoint-now checkpoint', (x) => x.some((e) => e.event.kind === 'checkpoint'));
  const asked = evs.find((e) => e.event.kind === 'checkpoint')!.event;
  await waitFor(page, `step ${Math.max(CLI_STEPS, asked.step! + 1)}`, (x) => progressed(x, Math.max(CLI_STEPS, asked.step! + 1)));
  await page.screenshot({ path: testInfo.outputPath('running.png') });
  await call(page, 'engineCommand', runId, 'stop');
  evs = await waitFor(page, 'cancelled', (x) => x.some((e) => e.event.kind === 'cancelled'));
  const cancelled = evs.find((e) => e.event.kind === 'cancelled')!.event;
  const checkpoints = evs.filter((e) => e.event.kind === 'checkpoint').map((e) => e.event);
  console.log(`worker: checkpoint-now at step ${asked.step}, stopped at step ${cancelled.step}; checkpoints ${checkpoints.map((c) => c.path).join(', ')}`);
  expect(checkpoints.map((c) => c.step)).toEqual([asked.step, cancelled.step]);
  expect(cancelled.path ?? checkpoints.at(-1)!.path).toBe(`checkpoints/step-${cancelled.step}`);

  // Metrics: the same keys as the CLI, the same values (timings excluded).
  const rows = evs.filter((e) => e.event.kind === 'metrics').map((e) => e.event.row!);
  let maxRel = 0, worst = '';
  for (let i = 0; i < CLI_STEPS; i++) {
    expect(Object.keys(rows[i]).sort()).toEqual(Object.keys(cliRows[i]).sort());
    for (const [k, v] of Object.entries(cliRows[i])) {
      if (TIMING(k)) continue;
      const w = rows[i][k];
      if (v === null || w === null) { expect(w, `${k} at step ${i + 1}`).toBe(v); continue; }
      const rel = Math.abs(w - v) / Math.max(Math.abs(v), 1e-12);
      if (Math.abs(w - v) > 1e-9 && rel > maxRel) { maxRel = rel; worst = `${k} step ${i + 1}: cli ${v} worker ${w}`; }
    }
  }
  console.log(`metrics CLI vs worker over ${CLI_STEPS} steps: max relative diff ${maxRel.toExponential(2)} (${worst || 'all equal'}); ` +
    `loss ${rows.slice(0, CLI_STEPS).map((r) => r.loss).join(' ')}, grad_norm ${rows.slice(0, CLI_STEPS).map((r) => r.grad_norm).join(' ')}`);
  // The compared steps trained (a zero-variance run would compare nothing but sampling).
  expect(cliRows.slice(0, CLI_STEPS).every((r) => (r.grad_norm ?? 0) > 0)).toBe(true);
  expect(maxRel).toBeLessThanOrEqual(1e-4);

  // The run folder in OPFS, read back through the worker.
  const files = await call<string[]>(page, 'engineList', runId);
  console.log(`OPFS run folder: ${files.join(', ')}`);
  for (const c of checkpoints) for (const f of ['state.json', 'state.safetensors']) expect(files).toContain(`${c.path}/${f}`);
  expect(files).toEqual(expect.arrayContaining(['config.yaml', 'metrics.jsonl', 'rollouts.jsonl']));
  expect(files.some((f) => f.includes('.tmp') || f.includes('.old'))).toBe(false);
  const metricsText = await call<string>(page, 'engineReadText', runId, 'metrics.jsonl');
  expect(metricsText.trim().split('\n').map((l) => JSON.parse(l) as Row)).toEqual(rows);
  const rollouts = (await call<string>(page, 'engineReadText', runId, 'rollouts.jsonl')).trim().split('\n');
  expect(rollouts).toHaveLength(rows.length * 2 * 4);

  const run = await stopMainThreadTrace(page);
  console.log(`main thread during the load and the run: ${describeTasks(run)}`);
  await page.screenshot({ path: testInfo.outputPath('stopped.png') });
  checkProbe(run);
  expect(run.longestCpu, `no main-thread task over ${LONG_TASK_MS} ms CPU during the load and the run`).toBeLessThanOrEqual(LONG_TASK_MS);
  expect(run.longestWall, `no main-thread task over ${BLOCKED_MS} ms wall (blocked) during the load and the run`).toBeLessThanOrEqual(BLOCKED_MS);

  // The OPFS folder, copied out through the worker, resumes in the CLI and ends like the CLI's own run.
  expect(cancelled.step!).toBeLessThan(FULL_STEPS);
  const resumed = join(dir, 'from-worker');
  for (const [path, b64] of Object.entries(await call<Record<string, string>>(page, 'engineExport', runId))) {
    mkdirSync(dirname(join(resumed, path)), { recursive: true });
    writeFileSync(join(resumed, path), Buffer.from(b64, 'base64'));
  }
  const t1 = Date.now();
  const r = spawnSync(...cliCommand('train', '--config', join(resumed, 'config.yaml'), '--set', `train.steps=${FULL_STEPS}`, '--resume', resumed, '--tune', 'false'), { encoding: 'utf8', timeout: 900_000 });
  expect(r.status, r.stderr).toBe(0);
  console.log(`CLI resume of the worker's folder from step ${cancelled.step} to ${FULL_STEPS} in ${((Date.now() - t1) / 1000).toFixed(0)} s: ${r.stderr.split('\n').find((l) => l.startsWith('resumed from'))}`);
  expect(readRows(resumed).map(untimed)).toEqual(cliRows.map(untimed));
  for (const f of ['adapter/adapter_model.safetensors', 'adapter/adapter_config.json', `checkpoints/step-${FULL_STEPS}/state.safetensors`]) {
    expect(readFileSync(join(resumed, f)).equals(readFileSync(join(dir, 'cli', f))), `${f} bit-identical`).toBe(true);
  }
  expect(readFileSync(join(resumed, 'rollouts.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'cli', 'rollouts.jsonl'), 'utf8'));
});
