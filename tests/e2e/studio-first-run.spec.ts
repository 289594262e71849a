// Browser test of the studio's first run as a new user walks it, one screenshot per step: open /,
// the default agent (agent-tiny) and its GRPO preset are selected; the preset is shrunk in the Config
// panel's YAML editor FOR TEST SPEED ONLY (2 tasks x 4 episodes of at most 40 new tokens, no periodic
// checkpoint), as a user could; Start; the first chart points and the episodes with their tool calls
// appear, with no main-thread task over 100 ms of CPU time (nor 300 ms wall) from Start to the first
// points (a Chrome trace, main-thread-trace.ts: on SwiftShader the GPU's work shares the cores and
// lengthens wall times; the requirement is no task over 100 ms); Stop; Export downloads the PEFT zip; the Playground's "Score text" gives, with that
// adapter, the per-token log-probs `npm run cli -- logprobs --adapter DIR` writes (max abs diff printed, <= 1e-6: both merge the adapter into the weights and run the same
// kernels; the separate LoRA path on one side differs by up to about 1e-4).
import { expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import { parse, stringify } from 'yaml';
import { BLOCKED_MS, checkProbe, describeTasks, LONG_TASK_MS, startMainThreadTrace, stopMainThreadTrace } from './main-thread-trace';
import { expectNoClippingAt, openPanel, seriousViolations, shot } from './studio-helpers';
import { cliCommand } from '../fixtures/cli-command';

/** configs/agent_grpo.yaml, smaller for test speed (what a user could type in the YAML editor). */
function shrunkPreset(): string {
  const c = parse(readFileSync('configs/agent_grpo.yaml', 'utf8')) as Record<string, Record<string, unknown>>;
  c.rollout = { ...c.rollout, batch_size: 2, group_size: 4, max_new_tokens: 40 };
  c.grpo = { ...c.grpo, micro_batch_size: 8 };
  c.train = { ...c.train, steps: 20 };
  c.log = { ...c.log, checkpoint_every: 0 };
  return stringify(c);
}

/** A fixed text in the agent's format (chat turn, tool call) that both the Playground and the CLI score. */
const SCORED = '<|im_start|>user\nEva has 12 shelves of 30 coins. How many coins?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{"name": "python", "arguments": {"code": "print(12 * 30)"}}\n</tool_call><|im_end|>';


/** `npm run cli -- logprobs` on one {"text"} line with the adapter folder; its log-probs. */
function cliLogprobs(dir: string, adapterDir: string, text: string): number[] {
  const input = join(dir, 'score.jsonl'), out = join(dir, 'score-out.jsonl');
  writeFileSync(input, JSON.stringify({ text }) + '\n');
  // The studio loads agent-tiny as its preset says (quant none) with the default kernels (no tuning).
  const r = spawnSync(...cliCommand('logprobs', '--model', 'public/models/agent-tiny', '--adapter', adapterDir,
    '--quant', 'none', '--tune', 'false', '--input', input, '--out', out, '--overwrite'), { encoding: 'utf8', timeout: 120_000 });
  expect(r.status, `cli logprobs failed:\n${r.stderr}`).toBe(0);
  console.log(`cli: ${r.stderr.trim().split('\n').at(-1)}`);
  return (JSON.parse(readFileSync(out, 'utf8').trim()) as { logprobs: number[] }).logprobs;
}

test('first run: default agent, Start, live charts and tool-call episodes, Stop, Export, same log-probs as the CLI', async ({ page }, testInfo) => {
  test.setTimeout(8 * 60_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const t0 = Date.now();
  const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  await page.setViewportSize({ width: 1280, height: 800 });

  // 1. Open /: agent-tiny is the selected model, configs/agent_grpo.yaml the preset.
  await page.goto('/');
  await openPanel(page, 'models');
  await expect(page.getByTestId('model-radio-agent-tiny')).toBeChecked();
  await openPanel(page, 'config');
  await expect(page.getByTestId('config-preset')).toHaveValue('agent_grpo.yaml');
  await expect(page.getByTestId('config-valid')).toContainText('grpo on agent, 40 steps');
  await shot(page, testInfo, '1-default-agent-preset');

  // 2. Smaller batches for test speed, through the YAML editor; Start.
  await page.getByTestId('config-yaml').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(shrunkPreset());
  await expect(page.getByTestId('config-valid')).toContainText('grpo on agent, 20 steps');
  await shot(page, testInfo, '2-shrunk-config');
  await startMainThreadTrace(page);
  const clicked = Date.now();
  await page.getByTestId('config-start').click();
  await expect(page.getByTestId('run-panel')).toBeVisible({ timeout: 120_000 });
  const panelShown = Date.now();
  const runId = ((await page.getByRole('heading', { name: /^Run run-/ }).textContent()) ?? '').replace(/^Run /, '');
  console.log(`${at()}: Run panel for ${runId}`);

  // 3. The first step's chart points and its episodes, with the agent's tool calls.
  await expect(page.getByTestId('chart-reward')).toHaveAttribute('data-points', /^[1-9]/, { timeout: 300_000 });
  await expect(page.getByTestId('chart-tools')).toHaveAttribute('data-points', /^[1-9]/);
  const seen = Date.now();
  const startWindow = await stopMainThreadTrace(page);
  console.log(`${at()}: first chart points; from Start: ${describeTasks(startWindow)} (Run panel at +${((panelShown - clicked) / 1000).toFixed(1)} s, points seen at +${((seen - clicked) / 1000).toFixed(1)} s)`);
  checkProbe(startWindow);
  const rows = page.getByTestId('rollout-row');
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeGreaterThanOrEqual(8);
  const calls = (await rows.locator('[role="cell"]:nth-child(6)').allTextContents()).map((t) => Number.parseInt(t, 10));
  console.log(`tool calls per episode: ${calls.join(' ')}`);
  expect(calls.filter((n) => n > 0).length, 'episodes with a tool call').toBeGreaterThan(0);
  await shot(page, testInfo, '3-first-points');
  await page.getByTestId('rollout-scroll').scrollIntoViewIfNeeded();
  await shot(page, testInfo, '3-first-episodes');
  expect.soft(startWindow.longestCpu, `no main-thread task over ${LONG_TASK_MS} ms CPU from Start to the first chart points`).toBeLessThanOrEqual(LONG_TASK_MS);
  expect.soft(startWindow.longestWall, `no main-thread task over ${BLOCKED_MS} ms wall (blocked) from Start to the first chart points`).toBeLessThanOrEqual(BLOCKED_MS);

  // 4. Stop: the current step ends, a checkpoint and the adapter so far are written.
  await page.getByTestId('run-stop').click();
  await expect(page.getByTestId('run-status')).toHaveText('Stopped', { timeout: 300_000 });
  await expect(page.getByTestId('run-checkpoint-path')).toHaveText(/checkpoints\/step-\d+/);
  console.log(`${at()}: stopped at ${await page.getByTestId('run-checkpoint-path').textContent()}`);
  await shot(page, testInfo, '4-stopped');

  // 5. Export: the PEFT folder zip of this run.
  await openPanel(page, 'export');
  await page.getByTestId('export-run').selectOption(runId);
  await page.getByTestId('export-with-logs').uncheck();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()]);
  expect(download.suggestedFilename()).toBe(`${runId}-adapter.zip`);
  const zip = unzipSync(new Uint8Array(readFileSync(await download.path())));
  expect(Object.keys(zip).sort()).toEqual([`${runId}-adapter/adapter_config.json`, `${runId}-adapter/adapter_model.safetensors`]);
  const dir = testInfo.outputPath('export');
  for (const [path, bytes] of Object.entries(zip)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  }
  const adapterConfig = JSON.parse(readFileSync(join(dir, runId + '-adapter', 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
  expect(adapterConfig).toMatchObject({ peft_type: 'LORA', r: 8, lora_alpha: 16 });
  await shot(page, testInfo, '5-exported');

  // 6. The Playground scores a fixed text with the base and the run's adapter; the CLI with the zip's adapter agrees.
  await openPanel(page, 'playground');
  await page.getByTestId('play-refresh').click();
  await page.getByTestId('play-adapter').selectOption(runId);
  await page.getByTestId('score-input').fill(SCORED);
  await page.getByTestId('score-run').click();
  const adapterCol = page.getByTestId('score-col-adapter');
  await expect(adapterCol).toHaveAttribute('data-logprobs', /^\[/, { timeout: 120_000 });
  const studio = JSON.parse((await adapterCol.getAttribute('data-logprobs'))!) as number[];
  const base = JSON.parse((await page.getByTestId('score-col-base').getAttribute('data-logprobs'))!) as number[];
  await expect(adapterCol.getByTestId('score-sum')).toContainText(`Sum of ${studio.length} log-probs`);
  await expect(adapterCol.getByTestId('score-tokens').locator('span').nth(1)).toHaveAttribute('title', /log-prob -?\d+\.\d{4}/);
  await adapterCol.scrollIntoViewIfNeeded();
  await shot(page, testInfo, '6-score-text', 'playground-score.png');

  const cli = cliLogprobs(dir, join(dir, `${runId}-adapter`), SCORED);
  expect(cli.length).toBe(studio.length);
  const maxdiff = Math.max(...cli.map((v, i) => Math.abs(v - studio[i])));
  const moved = Math.max(...base.map((v, i) => Math.abs(v - studio[i])));
  console.log(`${at()}: ${studio.length} log-probs; studio vs CLI (adapter) maxdiff ${maxdiff.toExponential(2)}; adapter vs base in the studio max |diff| ${moved.toExponential(2)}`);
  expect(maxdiff).toBeLessThanOrEqual(1e-6);

  expect(await seriousViolations(page)).toEqual([]);
  for (const size of [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
    await expectNoClippingAt(page, size);
  }
  expect(errors).toEqual([]);
  console.log(`first run walked in ${at()}`);
});
