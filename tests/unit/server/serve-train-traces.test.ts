// Training from served traces, end to end: stories260K behind startServe, the official openai
// client samples 4 rollouts for each of 2 tasks (x-task-id groups), a toy reward (share of the
// letter "e" in the answer) is posted per rollout, then `train-traces` (trainTracesRun) takes one
// GRPO step and one reward-weighted step. Checks the direction: under the trained adapter the
// log-probs of the sampled tokens rise for episodes with a positive advantage / reward, relative
// to the others (sum of advantage x change > 0), figures printed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/util/args';
import { trainTracesRun } from '../../../src/cli/commands/train-traces';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles, type LoadedModel } from '../../../src/model/io/loader';
import { NodeDirSource, openNodeModelSource } from '../../../src/model/io/node-source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { DEFAULT_HTTP, startServe } from '../../../src/server/openai/server';
import { groupAdvantages, readTraces, type TraceEpisode } from '../../../src/server/openai/trace-episodes';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { nodeRuntime } from '../helpers/gpu-helpers';

const BIN = join(STORIES_DIR, 'stories260K.bin');
let rt: GpuRuntime, loaded: LoadedModel, runDir: string, episodes: TraceEpisode[], base: GpuModel, grpoOut = '';

const toyReward = (text: string) => (text.length ? (text.match(/e/g) ?? []).length / text.length : 0);

beforeAll(async () => {
  rt = await nodeRuntime();
  loaded = await loadModelFiles(await openNodeModelSource(BIN));
  const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
  runDir = mkdtempSync(join(tmpdir(), 'serve-train-'));
  const srv = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, { modelId: 'stories260K', host: '127.0.0.1', port: 0, outDir: runDir, maxBatch: 8, maxContext: 128, http: DEFAULT_HTTP });
  try {
    const client = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const tasks = ['Lily went to the park.', 'Tom had a red ball.'];
    await Promise.all(tasks.flatMap((prompt, t) => [0, 1, 2, 3].map(async (k) => {
      const rollout = `task${t}-try${k}`;
      const r = await client.chat.completions.create({ model: 'stories260K', messages: [{ role: 'user', content: prompt }], max_tokens: 16 },
        { headers: { 'x-rollout-id': rollout, 'x-task-id': `task${t}` } });
      const res = await fetch(`${srv.url}/v1/rollouts/${rollout}/reward`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reward: toyReward(r.choices[0].message.content ?? '') }) });
      expect(res.status).toBe(200);
    })));
  } finally {
    await srv.close();
  }
  base = model; // served from, then trained (the adapter is attached and removed by the trainer)
  episodes = readTraces(runDir).episodes;
});

afterAll(() => base?.dispose());

/** Per episode: sum over its sampled tokens of (log-prob under the trained adapter - sampling log-prob). */
async function logprobChange(adapterDir: string): Promise<number[]> {
  const lora = await readPeftAdapter(new NodeDirSource(adapterDir), loaded.config);
  const m = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false, lora });
  try {
    const lp = await m.logprobs(episodes.map((e) => e.tokens));
    return episodes.map((e, i) => e.mask.reduce((s, m1, t) => (m1 ? s + lp.logprobs[i][t - 1] - e.logprobs[t] : s), 0));
  } finally {
    m.dispose();
  }
}

const train = (trainer: string, out: string, extra: string[] = []) => trainTracesRun(parseArgs([
  '--model', BIN, '--quant', 'none', '--traces', runDir, '--out', out, '--trainer', trainer, '--steps', '1', '--lr', '5e-3', '--rank', '4', '--alpha', '8', '--micro-batch', '8', ...extra,
]), (l) => console.log(l), { rt, loaded, model: base });

describe('train-traces on served traces (stories260K, toy reward)', () => {
  it('reads 8 rewarded episodes in 2 task groups with masks on the sampled tokens', () => {
    expect(episodes).toHaveLength(8);
    expect(new Set(episodes.map((e) => e.group))).toEqual(new Set(['task0', 'task1']));
    for (const e of episodes) expect(e.mask.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    console.log(`rewards: ${episodes.map((e) => `${e.group}:${e.reward.toFixed(3)}`).join(' ')}`);
  });

  it('one GRPO step raises the log-probs of better-than-group episodes relative to worse ones', async () => {
    const { advantages } = groupAdvantages(episodes, true);
    const out = mkdtempSync(join(tmpdir(), 'tt-grpo-'));
    grpoOut = out;
    const { history } = await train('grpo', out);
    expect(history).toHaveLength(1);
    const delta = await logprobChange(join(out, 'adapter'));
    const score = advantages.reduce((s, a, i) => s + a * delta[i], 0);
    const up = delta.filter((_, i) => advantages[i] > 0), down = delta.filter((_, i) => advantages[i] < 0);
    const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / Math.max(1, x.length);
    console.log(`grpo: sum(adv x dlogp) = ${score.toFixed(4)}; mean dlogp of positive-advantage episodes ${mean(up).toFixed(4)}, negative ${mean(down).toFixed(4)}`);
    expect(score).toBeGreaterThan(0);
    expect(mean(up)).toBeGreaterThan(mean(down));
  });

  it('--adapter with beta > 0: the KL reference is the adapter continued, not the bare base (kl 0 at the first step)', async () => {
    expect(grpoOut).not.toBe('');
    const out = mkdtempSync(join(tmpdir(), 'tt-kl-'));
    const { history } = await train('grpo', out, ['--adapter', join(grpoOut, 'adapter'), '--beta', '0.5']);
    // The first step's metrics come from the forward before the update: policy = starting adapter = reference.
    const kl = history[0].kl;
    // What the old reference (the adapter switched off) would have measured: the adapter's distance from the base.
    const lora = await readPeftAdapter(new NodeDirSource(join(grpoOut, 'adapter')), loaded.config);
    const m = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false, lora });
    let gap = 0;
    try {
      const [withA, without] = [(await m.logprobs(episodes.map((e) => e.tokens))).logprobs, (await base.logprobs(episodes.map((e) => e.tokens))).logprobs];
      episodes.forEach((e, i) => e.mask.forEach((on, t) => { if (on) gap = Math.max(gap, Math.abs(withA[i][t - 1] - without[i][t - 1])); }));
    } finally {
      m.dispose();
    }
    console.log(`continued adapter, beta 0.5: kl at step 1 = ${kl.toExponential(2)}; max |logp(adapter) - logp(base)| on the episodes = ${gap.toExponential(2)}`);
    expect(Number.isFinite(kl)).toBe(true);
    expect(Math.abs(kl)).toBeLessThan(1e-6);
    expect(gap).toBeGreaterThan(1e-3);
  });

  it('one reward-weighted step raises the log-probs of the best-rewarded episode', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tt-rw-'));
    await train('reward_weighted', out);
    const delta = await logprobChange(join(out, 'adapter'));
    const best = episodes.reduce((b, e, i) => (e.reward > episodes[b].reward ? i : b), 0);
    console.log(`reward-weighted: dlogp per episode ${delta.map((d) => d.toFixed(3)).join(' ')}; best episode ${best}`);
    expect(delta[best]).toBeGreaterThan(0);
  });
});
