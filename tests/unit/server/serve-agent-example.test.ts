// The example agent (examples/openai-tool-agent.ts, the official `openai` client) completes full
// rollouts against startServe on the shipped default agent (public/models/agent-tiny, its
// tool-calling template, context 512): the first 4 held-out tasks of datasets/agent_eval.jsonl
// (both families) x 2 samples, two rollouts at a time, python run in the Pyodide sandbox process, search
// over the agent corpus, rewards graded as the agent env does and posted. Checks every reward
// reached rewards.jsonl and every captured call's mask is 1 exactly on tokens this server sampled
// (this call's completion and the earlier calls' completions of the rollout; 0 on tool output).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type RolloutOutcome } from '../../../examples/openai-tool-agent';
import type { AgentTask } from '../../../src/data/schemas';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { DEFAULT_HTTP, startServe, type RunningServer } from '../../../src/server/openai/server';
import type { CallRecord, RewardRecord } from '../../../src/server/openai/traces';
import { nodeRuntime } from '../helpers/gpu-helpers';

let model: GpuModel, srv: RunningServer, out: string, outcomes: RolloutOutcome[];
const tasks = readFileSync('datasets/agent_eval.jsonl', 'utf8').split('\n').filter((l) => l.trim()).slice(0, 4).map((l) => JSON.parse(l) as AgentTask);

beforeAll(async () => {
  const rt = await nodeRuntime();
  const loaded = await loadModelFiles(new NodeDirSource(resolve('public/models/agent-tiny')));
  model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
  out = mkdtempSync(join(tmpdir(), 'serve-agent-'));
  srv = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, { modelId: 'agent-tiny', host: '127.0.0.1', port: 0, outDir: out, maxBatch: 4, maxContext: 512, http: DEFAULT_HTTP });
  outcomes = await runAgent({
    baseURL: `${srv.url}/v1`, model: 'agent-tiny', tasks, samples: 2, maxTurns: 2, temperature: 0.5, maxTokens: 64,
    corpusFile: 'datasets/agent_corpus.jsonl', log: (l) => console.log(l), concurrency: 2,
  });
}, 300_000);

afterAll(async () => {
  await srv?.close();
  model?.dispose();
});

const readJsonl = <T>(file: string): T[] => readFileSync(join(out, 'traces', file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);

describe('examples/openai-tool-agent.ts against serve on agent-tiny', () => {
  it('completes every rollout and posts its reward', () => {
    expect(outcomes).toHaveLength(8);
    expect(new Set(outcomes.map((o) => o.taskId))).toEqual(new Set(tasks.map((t) => t.task_id)));
    const rewards = readJsonl<RewardRecord>('rewards.jsonl');
    // Two rollouts run at once, so rewards arrive in completion order.
    const byId = (a: [string, number], b: [string, number]) => a[0].localeCompare(b[0]);
    expect(rewards.map((r): [string, number] => [r.rollout_id, r.reward]).sort(byId)).toEqual(outcomes.map((o): [string, number] => [o.rolloutId, o.reward]).sort(byId));
    expect(new Set(outcomes.map((o) => o.rolloutId)).size).toBe(8);
    expect(outcomes.map((o) => o.family)).toEqual(tasks.flatMap((t) => [t.family, t.family]));
    const calls = outcomes.flatMap((o) => o.calls), ok = outcomes.flatMap((o) => o.okCalls);
    console.log(`rewards ${outcomes.map((o) => o.reward.toFixed(2)).join(' ')}; correct ${outcomes.filter((o) => o.correct).length}/8; tool calls [${calls.join(', ')}], ran without error [${ok.join(', ')}]`);
    for (const o of outcomes) expect(o.turns).toBeGreaterThanOrEqual(1);
  });

  it('captures every call with the mask exactly on the tokens this server sampled', () => {
    const records = readJsonl<CallRecord>('calls.jsonl');
    const byRollout = new Map<string, CallRecord[]>();
    for (const r of records) byRollout.set(r.rollout_id, [...(byRollout.get(r.rollout_id) ?? []), r]);
    expect([...byRollout.keys()].sort()).toEqual(outcomes.map((o) => o.rolloutId).sort());
    let multi = 0, faithful = 0;
    for (const recs of byRollout.values()) {
      if (recs.length > 1) multi++;
      recs.forEach((r, j) => {
        // Sampled spans: this call's completion, plus (when the prompt continued the stored tokens) the earlier calls'.
        const spans = [[r.prompt_length, r.tokens.length]];
        if (r.token_faithful) {
          faithful++;
          for (const e of recs.slice(0, j)) spans.push([e.prompt_length, e.tokens.length]);
        }
        const want = r.tokens.map((_, t) => (spans.some(([a, b]) => t >= a && t < b) ? 1 : 0));
        expect(r.mask).toEqual(want);
        r.mask.forEach((m, t) => expect(m === 1 ? Number.isFinite(r.logprobs[t]) : r.logprobs[t] === null).toBe(true));
        if (j > 0 && r.token_faithful) expect(r.tokens.slice(0, recs[j - 1].tokens.length)).toEqual(recs[j - 1].tokens);
      });
    }
    console.log(`${records.length} calls in ${byRollout.size} rollouts (${multi} multi-turn), ${faithful} token-faithful`);
  });
});
