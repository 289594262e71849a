// serve --online for real: the shipped default agent (public/models/agent-tiny, f32) behind
// startServe with an OnlineTrainer (GRPO, batch of 4 rewarded rollouts), driven by the official
// `openai` client on 127.0.0.1: 2 tasks x 2 rollouts with a toy reward (the rollout's index in its
// group, so every group has a spread), then the server's update. Checks /v1/train/status, the run
// folder (metrics.jsonl, adapter/, checkpoints/step-1/, only the newest kept with keepCheckpoints 1) and the hot swap: the log-probs served
// for a fixed completion after the update differ from the base's and equal a fresh forward with
// the written adapter (maxdiff printed, <= 1e-4: see SERVED_TOL), served on the adapter merged
// into the weights between updates (merged again after the update).
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTraceTrainer, type TraceTrainerSetup } from '../../../src/cli/commands/train-traces';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles, type LoadedModel } from '../../../src/model/io/loader';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import type { LoraWeights } from '../../../src/model/types';
import { OnlineTrainer, type OnlineStatus } from '../../../src/server/openai/online';
import { DEFAULT_HTTP, startServe, type RunningServer } from '../../../src/server/openai/server';
import type { CallRecord } from '../../../src/server/openai/traces';
import { parseArgs } from '../../../src/util/args';
import { nodeRuntime } from '../helpers/gpu-helpers';

const DIR = resolve('public/models/agent-tiny');
const MODEL = 'agent-tiny';
let rt: GpuRuntime, loaded: LoadedModel, model: GpuModel, setup: TraceTrainerSetup, online: OnlineTrainer, srv: RunningServer, client: OpenAI, out: string;

const loadModel = (lora?: LoraWeights) => GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) },
  { quant: 'none', quantEmbeddings: false, tune: false, ...(lora ? { lora } : {}) });

beforeAll(async () => {
  rt = await nodeRuntime();
  loaded = await loadModelFiles(new NodeDirSource(DIR));
  model = await loadModel();
  out = mkdtempSync(join(tmpdir(), 'serve-online-'));
  const args = parseArgs(['--trainer', 'grpo', '--lr', '3e-2', '--rank', '4', '--alpha', '8', '--micro-batch', '4', '--steps', '1']);
  setup = await openTraceTrainer(args, rt, model, loaded.config, (l) => console.log(l));
  online = new OnlineTrainer(rt, setup.trainer, setup.loss, { batch: 4, outDir: out, baseModelName: DIR, modelCfg: loaded.config, checkpointEvery: 1, keepCheckpoints: 1, train: setup.options, served: model }, (l) => console.log(l));
  expect(await online.mergeServed(), 'the served adapter merged into the f32 weights').toBe(true);
  srv = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, { modelId: MODEL, host: '127.0.0.1', port: 0, outDir: out, maxBatch: 4, maxContext: 256, http: DEFAULT_HTTP, online });
  client = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: 'unused', maxRetries: 0 });
});

afterAll(async () => {
  await srv?.close();
  await setup?.dispose();
  model?.dispose();
});

const status = async () => (await (await fetch(`${srv.url}/v1/train/status`)).json()) as OnlineStatus;

/** The fixed probe: same prompt, seed and settings; its trace record (tokens, mask, sampling log-probs). */
async function probe(rollout: string): Promise<CallRecord> {
  await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is 12 + 30?' }], max_tokens: 12, temperature: 1, seed: 5, logprobs: true },
    { headers: { 'x-rollout-id': rollout } });
  const rec = srv.deps.traces.calls(rollout);
  expect(rec).toHaveLength(1);
  return rec[0];
}

/**
 * Served log-probs come from the decode path (the LM head fused with sampling, one row at a time),
 * the fresh forward's from the chunked log-prob path (other head kernels, another summation order):
 * a few 1e-6 apart as a rule, 1.0e-5 seen once; an adapter that is not the served one is nats away.
 */
const SERVED_TOL = 1e-4;

/** max |served log-prob - fresh forward| over the sampled tokens of `rec`, under `m`. */
async function servedVsForward(m: GpuModel, rec: CallRecord): Promise<number> {
  const lp = (await m.logprobs([rec.tokens])).logprobs[0];
  let d = 0;
  rec.mask.forEach((on, t) => { if (on) d = Math.max(d, Math.abs(lp[t - 1] - rec.logprobs[t]!)); });
  return d;
}

describe('serve --online: GRPO updates of the served adapter from rewarded rollouts (agent-tiny)', () => {
  it('collects 4 rewarded rollouts, runs one update, writes the run folder and hot-swaps the adapter', async () => {
    const before = await probe('probe-before');
    const merges0 = model.loraMerges;
    const s0 = await status();
    expect(s0).toMatchObject({ object: 'train.status', updates: 0, rollouts_pending: 0, batch: 4 });

    const tasks = ['What is 7 * 6?', 'Who wrote the lighthouse log?'];
    const rewardReplies: unknown[] = [];
    for (const [t, q] of tasks.entries()) {
      await Promise.all([0, 1].map(async (k) => {
        const id = `t${t}-r${k}`;
        await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: q }], max_tokens: 16, temperature: 1 },
          { headers: { 'x-rollout-id': id, 'x-task-id': `task${t}` } });
        const res = await fetch(`${srv.url}/v1/rollouts/${id}/reward`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reward: k }) });
        rewardReplies.push(await res.json());
      }));
    }
    expect(rewardReplies.every((r) => (r as { online: string }).online === 'pending')).toBe(true);
    await online.idle();
    const s1 = await status();
    console.log(`status after the update: ${JSON.stringify(s1)}`);
    expect(s1).toMatchObject({ updates: 1, optimizer_steps: 1, rollouts_pending: 0, rollouts_trained: 4, batches_skipped: 0, training: false });
    expect(s1.last_metrics!.reward).toBeCloseTo(0.5, 6);
    // Served merged again after the update (the merge of the updated adapter: checked by dAfter below).
    expect(model.loraMerged).toBe(true);
    expect(model.loraMerges).toBe(merges0 + 1);

    const rows = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ step: 1, update: 1, rollouts: 4 });
    expect(Number.isFinite(rows[0].grad_norm) && rows[0].grad_norm > 0).toBe(true);
    expect(existsSync(join(out, 'checkpoints', 'step-1', 'state.json'))).toBe(true);
    // A reward for an already trained rollout is recorded but not trained twice.
    const again = await (await fetch(`${srv.url}/v1/rollouts/t0-r1/reward`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reward: 1 }) })).json() as { online: string };
    expect(again.online).toBe('already_trained');

    const after = await probe('probe-after');
    const adapter = await readPeftAdapter(new NodeDirSource(join(out, 'adapter')), loaded.config);
    const trained = await loadModel(adapter), base = await loadModel();
    try {
      const dBefore = await servedVsForward(base, before);     // a fresh adapter is a no-op: the base served before
      const dAfter = await servedVsForward(trained, after);    // the written adapter is what serves now
      const dBase = await servedVsForward(base, after);        // ... and it is not the base any more
      console.log(`served vs fresh forward: before/base ${dBefore.toExponential(2)}, after/written adapter ${dAfter.toExponential(2)}; after vs base ${dBase.toExponential(2)}`);
      expect(dBefore).toBeLessThanOrEqual(SERVED_TOL);
      expect(dAfter).toBeLessThanOrEqual(SERVED_TOL);
      expect(dBase).toBeGreaterThan(1e-3);
    } finally {
      trained.dispose();
      base.dispose();
    }
  });

  it('an update waits for requests in flight and holds new ones until the swap', async () => {
    const s0 = await status();
    // A request in flight (its lease, as the HTTP handler holds one from scheduling to its last log-prob).
    await online.acquire();
    const order: string[] = [];
    for (const k of [0, 1, 2, 3]) {
      const id = `gate-${k}`;
      await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is 3 + 4?' }], max_tokens: 8, temperature: 1 },
        { headers: { 'x-rollout-id': id, 'x-task-id': `gate${k % 2}` } });
      await fetch(`${srv.url}/v1/rollouts/${id}/reward`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reward: k >> 1 }) });
    }
    let held = true;
    try {
      // The 4th reward started an update: it drains (the batch still pending) while the lease is held.
      await new Promise((r) => setTimeout(r, 300));
      expect(await status()).toMatchObject({ updates: s0.updates, training: true, rollouts_pending: 4 });
      // A new request now waits for the swap.
      const late = client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is 1 + 1?' }], max_tokens: 4, temperature: 1 },
        { headers: { 'x-rollout-id': 'gate-late' } }).then(() => order.push(`late served after ${online.status().updates} updates`));
      await new Promise((r) => setTimeout(r, 300));
      expect(order).toEqual([]);
      expect(srv.deps.traces.calls('gate-late')).toHaveLength(0);
      order.push('lease released');
      held = false;
      online.release();
      await late;
    } finally {
      if (held) online.release();
    }
    await online.idle();
    console.log(`gate: ${order.join(' -> ')}`);
    expect(order).toEqual(['lease released', `late served after ${s0.updates + 1} updates`]);
    expect((await status()).updates).toBe(s0.updates + 1);
    // keepCheckpoints 1: the second update's checkpoint replaced the first one.
    const t = (await status()).optimizer_steps;
    expect(readdirSync(join(out, 'checkpoints'))).toEqual([`step-${t}`]);
  });

  it('reports 404 on /v1/train/status of a server that does not train', async () => {
    const plain = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, { modelId: MODEL, host: '127.0.0.1', port: 0, outDir: null, maxBatch: 2, maxContext: 128, http: DEFAULT_HTTP });
    try {
      const r = await fetch(`${plain.url}/v1/train/status`);
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('online_off');
    } finally {
      await plain.close();
    }
  });
});
