// A GRPO run on stories260K driven through the engine Web Worker (src/workers/engine/) from the page, in
// headless Chromium: the metrics rows equal the CLI's for the same config and seed (within 1e-4
// relative, timings excluded), the page's main thread has no task over 100 ms while it trains,
// pause holds the loop and resume continues it, checkpoint-now adds a checkpoint, stop writes one,
// and the run folder lands in OPFS (read back through the worker); that folder, copied into a Node
// folder, resumes in the CLI and ends equal to the CLI's uninterrupted run (metrics, checkpoint
// and adapter bytes). The CLI reference is run here
// in a child process (not a fixture) so it always uses today's kernels; it runs first, alone, so
// it does not load the CPU while the page is watched for long tasks. The default agent's preset
// (agent-tiny, python + search) trains 2 steps with its tools run inside the worker. Kernel tuning
// in a worker is remembered in OPFS for the next worker.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { parse, stringify } from 'yaml';

/** Rows compared with the worker's (which is stopped mid-run, after step 4 or so). */
const CLI_STEPS = 3;
/** The CLI's uninterrupted run; the worker's folder is resumed in the CLI up to this step. */
const FULL_STEPS = 7;
/** Timings differ between runs by nature. */
const TIMING = (k: string) => k === 'step_time' || k.startsWith('perf/') || k.startsWith('gpu/') || k.startsWith('timing/');

type Row = Record<string, number | null>;
interface Ev { runId: string; at: number; event: { kind: string; step?: number; path?: string; row?: Row; message?: string; lastCheckpoint?: string | null } }
type H = Record<string, (...a: unknown[]) => Promise<unknown>>;

/** The preset shrunk for time: 2 words x 4 stories, 16 new tokens, a length reward part, a constant learning rate (so
 * rows 1..N do not depend on train.steps and a 3-step CLI run matches a longer stopped run). */
function config(steps: number, out: string): string {
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

const call = <T>(page: Page, name: string, ...args: unknown[]) =>
  page.evaluate(([n, a]) => (window as unknown as { __harness: H }).__harness[n as string](...(a as unknown[])), [name, args] as const) as Promise<T>;

async function waitFor(page: Page, what: string, pred: (evs: Ev[]) => boolean, timeoutMs = 600_000): Promise<Ev[]> {
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

const readRows = (run: string) => readFileSync(join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
const untimed = (r: Row) => Object.fromEntries(Object.entries(r).filter(([k]) => !TIMING(k)));

const progressed = (evs: Ev[], step: number) => evs.some((e) => e.event.kind === 'progress' && e.event.step! >= step);

test('GRPO through the engine worker: CLI-equal metrics, no long tasks, pause / resume / checkpoint-now / stop', async ({ page }, testInfo) => {
  test.setTimeout(30 * 60_000);
  const dir = mkdtempSync(join(tmpdir(), 'run-worker-'));
  writeFileSync(join(dir, 'cli.yaml'), config(FULL_STEPS, join(dir, 'cli')));
  const t0 = Date.now();
  const cli = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'train', '--config', join(dir, 'cli.yaml'), '--tune', 'false'], { encoding: 'utf8', timeout: 900_000 });
  expect(cli.status, cli.stderr).toBe(0);
  const cliRows = readRows(join(dir, 'cli'));
  console.log(`CLI: ${FULL_STEPS} steps in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await call<{ modelId: string; architecture: string; probe: number }>(page, 'engineLoad', '/models/stories260K');
  console.log(`long-task probe: a 150 ms busy loop was recorded as ${info.probe.toFixed(0)} ms`);
  expect(info.probe, 'the longtask observer sees a 150 ms task').toBeGreaterThanOrEqual(140);
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

  const long = await call<{ duration: number }[]>(page, 'engineLongTasks');
  const longest = Math.max(0, ...long.map((t) => t.duration));
  console.log(`main thread: ${long.length} long tasks (> 50 ms) during the run, longest ${longest.toFixed(0)} ms`);
  await page.screenshot({ path: testInfo.outputPath('stopped.png') });
  expect(longest).toBeLessThanOrEqual(100);

  // The OPFS folder, copied out through the worker, resumes in the CLI and ends like the CLI's own run.
  expect(cancelled.step!).toBeLessThan(FULL_STEPS);
  const resumed = join(dir, 'from-worker');
  for (const [path, b64] of Object.entries(await call<Record<string, string>>(page, 'engineExport', runId))) {
    mkdirSync(dirname(join(resumed, path)), { recursive: true });
    writeFileSync(join(resumed, path), Buffer.from(b64, 'base64'));
  }
  const t1 = Date.now();
  const r = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'train', '--config', join(resumed, 'config.yaml'), '--set', `train.steps=${FULL_STEPS}`, '--resume', resumed, '--tune', 'false'], { encoding: 'utf8', timeout: 900_000 });
  expect(r.status, r.stderr).toBe(0);
  console.log(`CLI resume of the worker's folder from step ${cancelled.step} to ${FULL_STEPS} in ${((Date.now() - t1) / 1000).toFixed(0)} s: ${r.stderr.split('\n').find((l) => l.startsWith('resumed from'))}`);
  expect(readRows(resumed).map(untimed)).toEqual(cliRows.map(untimed));
  for (const f of ['adapter/adapter_model.safetensors', 'adapter/adapter_config.json', `checkpoints/step-${FULL_STEPS}/state.safetensors`]) {
    expect(readFileSync(join(resumed, f)).equals(readFileSync(join(dir, 'cli', f))), `${f} bit-identical`).toBe(true);
  }
  expect(readFileSync(join(resumed, 'rollouts.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'cli', 'rollouts.jsonl'), 'utf8'));
});

test('SFT through the engine worker: the CLI\'s metrics, the run folder with checkpoint and adapter in OPFS', async ({ page }) => {
  test.setTimeout(15 * 60_000);
  const dir = mkdtempSync(join(tmpdir(), 'run-worker-sft-'));
  const data = ['Lily saw a big red ball in the park.', 'Tom wanted to fly his blue kite.', 'The cat sat on the warm mat.', 'Sue found a little bird.']
    .map((text) => JSON.stringify({ text })).join('\n') + '\n';
  writeFileSync(join(dir, 'data.jsonl'), data);
  const yaml = (out: string) => stringify({
    trainer: 'sft', model: { path: 'public/models/stories260K', quant: 'none' }, data: { dataset: join(dir, 'data.jsonl'), max_length: 32 },
    rollout: { batch_size: 2 }, grpo: { micro_batch_size: 2 }, lora: { rank: 4, alpha: 8 }, optim: { lr: 0.01, schedule: 'cosine', warmup_steps: 0 },
    train: { steps: 4, seed: 3 }, log: { out_dir: out, checkpoint_every: 2 },
  });
  writeFileSync(join(dir, 'cli.yaml'), yaml(join(dir, 'cli')));
  const cli = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'train', '--config', join(dir, 'cli.yaml'), '--tune', 'false'], { encoding: 'utf8', timeout: 600_000 });
  expect(cli.status, cli.stderr).toBe(0);
  const cliRows = readRows(join(dir, 'cli'));

  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await call<{ modelId: string }>(page, 'engineLoad', '/models/stories260K');
  const runId = `sft-${Date.now()}`;
  await call(page, 'engineStart', info.modelId, yaml('runs/sft'), runId, { text: data, name: 'data.jsonl' });
  const evs = await waitFor(page, 'finished', (x) => x.some((e) => e.event.kind === 'finished'));
  const kinds = evs.map((e) => e.event.kind);
  expect(kinds[0]).toBe('started');
  expect(evs.filter((e) => e.event.kind === 'checkpoint').map((e) => e.event.step)).toEqual([2, 4]);
  const rows = evs.filter((e) => e.event.kind === 'metrics').map((e) => e.event.row!);
  expect(rows.map(untimed)).toEqual(cliRows.map(untimed));
  console.log(`SFT worker vs CLI: ${rows.length} rows equal (timings excluded); losses ${rows.map((r) => r.loss!.toFixed(4)).join(' ')}`);
  const files = await call<string[]>(page, 'engineList', runId);
  console.log(`OPFS SFT run folder: ${files.join(', ')}`);
  expect(files.sort()).toEqual(['adapter/adapter_config.json', 'adapter/adapter_model.safetensors', 'checkpoints/step-2/state.json', 'checkpoints/step-2/state.safetensors', 'checkpoints/step-4/state.json', 'checkpoints/step-4/state.safetensors', 'config.yaml', 'metrics.jsonl', 'source.json', 'status.json']);
  const exported = await call<Record<string, string>>(page, 'engineExport', runId);
  expect(Buffer.from(exported['adapter/adapter_model.safetensors'], 'base64').equals(readFileSync(join(dir, 'cli', 'adapter', 'adapter_model.safetensors')))).toBe(true);
});

test('a crashed engine worker fails the live run naming its last checkpoint', async ({ page }) => {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await call<{ modelId: string }>(page, 'engineLoad', '/models/stories260K');
  const runId = `crash-${Date.now()}`;
  await call(page, 'engineStart', info.modelId, config(50, 'runs/crash'), runId);
  await call(page, 'engineCommand', runId, 'checkpoint');
  await waitFor(page, 'a checkpoint', (x) => x.some((e) => e.event.kind === 'checkpoint'));
  const after = await call<string>(page, 'engineTerminate', runId);
  const evs = await call<Ev[]>(page, 'engineEvents');
  const failed = evs.find((e) => e.event.kind === 'failed')!.event;
  const saved = evs.filter((e) => e.event.kind === 'checkpoint').at(-1)!.event.path!;
  console.log(`after the crash: "${failed.message}"; a later call: "${after}"`);
  expect(failed.lastCheckpoint).toBe(saved);
  expect(failed.message).toContain(`the last checkpoint is ${saved}`);
  expect(after).toMatch(/engine worker was terminated/);
});

/** The shipped agent preset shrunk for time: 2 steps of 4 tasks x 4 episodes, no checkpoint. */
function agentConfig(): string {
  const c = parse(readFileSync('configs/agent_grpo.yaml', 'utf8')) as Record<string, Record<string, unknown>>;
  // The under-trained agent writes well-formed calls far more often at a low temperature.
  c.rollout = { ...c.rollout, batch_size: 4, group_size: 4, temperature: 0.3 };
  c.train = { ...c.train, steps: 2, seed: 5 };
  c.log = { ...c.log, checkpoint_every: 0, print_examples: 0 };
  return stringify(c);
}

interface Rollout {
  task_id: string;
  tool_calls: { name: string; ok: boolean; args: Record<string, unknown> | null }[];
  messages: { role: string; name?: string; content: string }[];
}

/** Each tool call of the record with the tool message that answered it: the loop answers every call of a
 * turn (malformed ones too) in order, and a call in the last turn gets no answer. */
function answeredCalls(r: Rollout): { name: string; ok: boolean; args: Record<string, unknown> | null; reply: string }[] {
  const replies = r.messages.filter((m) => m.role === 'tool');
  return r.tool_calls.slice(0, replies.length).map((c, i) => ({ ...c, reply: replies[i].content }));
}

test('the default agent trains in the engine worker with its tools run there: Python pool and search corpus', async ({ page }) => {
  test.setTimeout(20 * 60_000);
  // Nested workers the engine worker starts (the Python sandboxes), and when they end.
  const workers: { url: string; closed: boolean }[] = [];
  page.on('worker', (w) => {
    const rec = { url: w.url(), closed: false };
    workers.push(rec);
    w.on('close', () => { rec.closed = true; });
  });
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineLoad');
  const info = await call<{ modelId: string }>(page, 'engineLoad', '/models/agent-tiny');
  const runId = `agent-${Date.now()}`;
  const t0 = Date.now();
  // No dataset sent: the worker fetches the shipped datasets/agent_train.jsonl and agent_corpus.jsonl.
  await call(page, 'engineStart', info.modelId, agentConfig(), runId);
  const evs = await waitFor(page, 'finished', (x) => x.some((e) => e.event.kind === 'finished'), 15 * 60_000);
  const rows = evs.filter((e) => e.event.kind === 'metrics').map((e) => e.event.row!);
  console.log(`agent GRPO in the worker: ${rows.length} steps in ${((Date.now() - t0) / 1000).toFixed(0)} s; reward ${rows.map((r) => r.reward?.toFixed(3)).join(' ')}, ` +
    `tool calls/episode ${rows.map((r) => r['tools/call_frequency']?.toFixed(2)).join(' ')}`);
  expect(rows).toHaveLength(2);

  const rollouts = (await call<string>(page, 'engineReadText', runId, 'rollouts.jsonl')).trim().split('\n').map((l) => JSON.parse(l) as Rollout);
  expect(rollouts).toHaveLength(2 * 4 * 4);
  // A python call whose code prints an arithmetic expression answered with that expression's value:
  // the sandbox ran it (no stub could know it).
  const calls = rollouts.flatMap(answeredCalls);
  const checked = calls.filter((c) => c.name === 'python').flatMap((c) => {
    const m = /^print\(([\d\s+\-*/().]+)\)\s*$/.exec(String(c.args?.code ?? ''));
    return m && !m[1].includes('//') ? [{ code: m[1], value: Function(`return (${m[1]})`)() as number, got: c.reply.trim() }] : [];
  });
  console.log(`answered tool calls: ${calls.length}, arithmetic prints checked: ${checked.length}, e.g. ${checked.slice(0, 3).map((x) => `${x.code} -> ${x.got}`).join('; ')}`);
  expect(checked.length).toBeGreaterThan(0);
  for (const x of checked) expect(Number(x.got), `print(${x.code})`).toBeCloseTo(x.value, 6);
  // A search call answered with a document of the shipped corpus.
  const corpus = readFileSync('datasets/agent_corpus.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { title: string });
  const searches = calls.filter((c) => c.name === 'search').map((c) => ({ content: c.reply }));
  const hits = searches.filter((m) => corpus.some((d) => m.content.includes(d.title)));
  console.log(`search replies: ${searches.length}, naming a corpus document: ${hits.length}; e.g. ${hits[0]?.content.slice(0, 120).replace(/\n/g, ' | ')}`);
  expect(hits.length).toBeGreaterThan(0);

  // The Python sandboxes ran as workers nested in the engine worker and were closed with the run.
  const sandboxes = workers.filter((w) => /python-sandbox/.test(w.url));
  await expect.poll(() => sandboxes.length > 0 && sandboxes.every((w) => w.closed), { timeout: 30_000 }).toBe(true);
  console.log(`workers seen: ${workers.map((w) => `${w.url.split('/').pop()}${w.closed ? ' (closed)' : ''}`).join(', ')}`);
});

test('kernel tuning in the engine worker is timed once and remembered in OPFS for the next worker', async ({ page }) => {
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('engineTuneLoad');
  type Tuned = { stages: string[]; tuning: string | null };
  const first = await call<Tuned>(page, 'engineTuneLoad', '/models/agent-tiny');
  const timing = (t: Tuned) => t.stages.filter((s) => s.startsWith('timing kernel variants'));
  console.log(`first worker: ${timing(first).length} shape classes timed (${timing(first).join('; ')})`);
  expect(timing(first).length).toBeGreaterThan(0);
  // The default agent's five shape classes (q|k|v, o, gate|up with the fused SwiGLU, down, LM head:
  // in and out features rounded up to powers of two), four row buckets each.
  const keys = Object.keys(JSON.parse(first.tuning ?? '{}') as Record<string, string>);
  for (const cls of ['k64n128', 'k64n64', 'k64n512s', 'k256n64', 'k64n1024']) {
    for (const bucket of ['decode1', 'decode8', 'prefill', 'large']) expect(keys.some((k) => k.includes(`:linear:f32:${bucket}:${cls}@`))).toBe(true);
  }
  // A new worker (as after a page reload) finds every choice in the file and times nothing.
  const second = await call<Tuned>(page, 'engineTuneLoad', '/models/agent-tiny');
  expect(timing(second)).toEqual([]);
  expect(second.tuning).toBe(first.tuning);
});
