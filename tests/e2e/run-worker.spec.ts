// The engine Web Worker (src/workers/engine/) driven from the page in headless Chromium: SFT
// through the worker equals the CLI's run (metrics, the run folder with checkpoint and adapter in
// OPFS); a crashed worker fails the live run naming its last checkpoint; the default agent's preset
// (agent-tiny, python + search) trains 2 steps with its tools run inside the worker; kernel tuning
// in a worker is remembered in OPFS for the next worker. The GRPO run with the long-task watch is
// run-worker-grpo.spec.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { parse, stringify } from 'yaml';
import { call, config, readRows, untimed, waitFor, type Ev } from './run-worker-helpers';
import { cliCommand } from '../fixtures/cli-command';

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
  const cli = spawnSync(...cliCommand('train', '--config', join(dir, 'cli.yaml'), '--tune', 'false'), { encoding: 'utf8', timeout: 600_000 });
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
