// The agent loop on the GPU for real: stories260K (llama2.c) in a DecodeSession, a registry whose
// `echo` tool answers after a chosen delay, tool calls forced by a teacher-forced first turn.
// Checks: the tool response is in the live sequence as mask-0 tokens, the sampled log-probs
// match a fresh forward over the final sequence (maxdiff printed), async mode steps the other
// slots while one waits on a slow tool, and the GPU-idle fraction lies in (0, 1).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_TEMPLATE } from '../../../src/agents/chat-template';
import { runAgentRollout } from '../../../src/agents/gpu-rollout';
import type { EpisodeSpec, StepInfo } from '../../../src/agents/loop';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import type { Tokenizer } from '../../../src/model/tokenizer';
import { ToolRegistry } from '../../../src/tools/registry';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { nodeRuntime } from '../helpers/gpu-helpers';

let rt: GpuRuntime;
let model: GpuModel;
let tok: Tokenizer;

beforeAll(async () => {
  rt = await nodeRuntime();
  const loaded = await loadModelFiles(await openNodeModelSource(join(STORIES_DIR, 'stories260K.bin')));
  tok = loaded.tokenizer;
  model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
});

afterAll(() => model?.dispose());

// Rollout steps seen so far; a call with afterSteps resolves once the OTHER episodes have taken
// that many more steps (a slow tool whose slowness does not depend on this machine's speed).
let stepCount = 0;
const stepWaiters: { at: number; go: () => void }[] = [];
function onStepCount(): void {
  stepCount++;
  for (const w of stepWaiters.filter((x) => stepCount >= x.at)) {
    stepWaiters.splice(stepWaiters.indexOf(w), 1);
    w.go();
  }
}

const echo = new ToolRegistry().register({
  name: 'echo', description: 'Echo a name back after a delay',
  parameters: { type: 'object', properties: { text: { type: 'string' }, delayMs: { type: 'number' }, afterSteps: { type: 'number' } }, required: ['text'] },
  call: async (args) => {
    await new Promise((r) => setTimeout(r, Number(args.delayMs ?? 0)));
    if (args.afterSteps) await new Promise<void>((go) => stepWaiters.push({ at: stepCount + Number(args.afterSteps), go }));
    return { text: `${String(args.text)} was happy.`, ok: true };
  },
});

// `wait`: answers once the others have taken delays[text] more steps (set by the test between runs,
// so the prompts stay the same and only the tools' timing changes).
const delays: Record<string, number> = {};
const waitTool = new ToolRegistry().register({
  name: 'wait', description: 'Answer after a number of rollout steps',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  call: async (args) => {
    const n = delays[String(args.text)] ?? 0;
    if (n > 0) await new Promise<void>((go) => stepWaiters.push({ at: stepCount + n, go }));
    return { text: `${String(args.text)} is here.`, ok: true };
  },
});

const forcedCall = (text: string, wait: string) => `<tool_call>\n{"name": "echo", "arguments": {"text": "${text}", ${wait}}}\n</tool_call></s>`;

describe('agent loop on the GPU (stories260K)', () => {
  it('appends tool responses to live sequences, interleaves slots around a slow tool, and keeps log-probs exact', async () => {
    const prompts: EpisodeSpec[] = [
      { messages: [{ role: 'user', content: 'Tell a story about Lily.' }], prefill: forcedCall('Lily', '"afterSteps": 10') },
      { messages: [{ role: 'user', content: 'Tell a story about Tom.' }], prefill: forcedCall('Tom', '"delayMs": 30') },
      { messages: [{ role: 'user', content: 'Tell a story about Sue.' }], prefill: forcedCall('Sue', '"delayMs": 60') },
    ];
    const steps: StepInfo[] = [];
    const t0 = performance.now();
    // A custom template (the plain one passed explicitly) keeps the tools block, too long for a 512-position model, out of the prompt.
    const batch = await runAgentRollout({
      rt, model, tokenizer: tok, registry: echo, prompts, template: PLAIN_TEMPLATE, listTools: false,
      config: { temperature: 1, seed: 3, maxTokensPerTurn: 24, maxTurns: 3, maxTokens: 400, stopTokenIds: [2] },
      hooks: {
        onStep: (st) => {
          steps.push(st);
          onStepCount();
        },
      },
    });
    const ms = performance.now() - t0;
    const s = batch.stats;
    console.log(`rollout: ${ms.toFixed(0)} ms, ${s['perf/steps']} steps, ${s['perf/tokens_generated']} tokens generated, idle fraction ${s['perf/gpu_idle_fraction'].toFixed(3)}, calls/episode ${s['tools/call_frequency'].toFixed(2)}`);
    for (const e of batch.episodes) console.log(`episode ${e.index}: ${e.finishReason}, ${e.turns} turns, ${e.tokens.length} tokens: ${JSON.stringify(tok.decode(e.tokens.slice(e.promptLength)).slice(0, 160))}`);

    for (const [i, name] of [[0, 'Lily'], [1, 'Tom'], [2, 'Sue']] as const) {
      const e = batch.episodes[i];
      expect(e.toolCalls).toMatchObject([{ turn: 1, name: 'echo', args: { text: name }, ok: true }]);
      // Right after the forced turn's </s>: the tool response as the template renders it, tokenized alone.
      const stop = e.tokens.indexOf(2);
      const response = tok.encode(`\ntool: ${name} was happy.\nassistant:`, { addSpecialTokens: false });
      expect(e.tokens.slice(stop + 1, stop + 1 + response.length)).toEqual(response);
      // Mask 0 on the prompt, the forced turn and the response; 1 from the first sampled token on.
      expect(e.mask.indexOf(1)).toBe(stop + 1 + response.length);
      expect(e.mask.slice(stop + 1 + response.length).every((m) => m === 1)).toBe(true);
      expect(e.turns).toBeGreaterThanOrEqual(2);
    }
    for (const e of batch.episodes) {
      expect(['answer', 'max_tokens']).toContain(e.finishReason);
      e.mask.forEach((m, j) => {
        if (m) expect(e.logprobs[j]).toBeLessThanOrEqual(0);
        else expect(e.logprobs[j]).toBeNaN();
      });
    }
    // The live sequence (prompt, forced turn, appended tool response, samples) scored in one fresh
    // forward gives the log-probs the sampler reported token by token (temperature 1).
    const fresh = await model.logprobs(batch.episodes.map((e) => e.tokens));
    batch.episodes.forEach((e, i) => {
      const got: number[] = [], want: number[] = [];
      e.mask.forEach((m, j) => {
        if (m) {
          got.push(e.logprobs[j]);
          want.push(fresh.logprobs[i][j - 1]);
        }
      });
      const d = Math.max(...got.map((g, k) => Math.abs(g - want[k])));
      console.log(`episode ${i}: sampled log-probs vs a fresh forward over the final sequence: maxdiff=${d.toExponential(2)} over ${got.length} tokens`);
      expect(d).toBeLessThan(1e-4);
    });
    // Async: while episode 0 waited on its tool (10 steps of the others), the other slots kept stepping.
    const others = steps.filter((st) => st.waiting.includes(0) && st.stepping.some((x) => x !== 0));
    console.log(`${others.length} of ${steps.length} steps ran other episodes while episode 0 waited on its tool`);
    expect(others.length).toBeGreaterThanOrEqual(10);
    // At the start every episode waits on its tool: the GPU idles (about the 30 ms of the fastest).
    expect(s['perf/gpu_idle_s']).toBeGreaterThan(0.01);
    expect(s['perf/gpu_idle_fraction']).toBeGreaterThan(0);
    expect(s['perf/gpu_idle_fraction']).toBeLessThan(1);
  });
  // Each episode draws from its own noise stream (its index), keyed by token position: the same
  // seed gives the same episodes whichever episodes step together, i.e. whatever the tools' timing
  // (two orders of tool delays), and in sync mode (one reused slot) as in async mode.
  it('seeded episodes do not depend on the tools\' timing: two timings and sync mode draw the same episodes', async () => {
    const names = ['Lily', 'Tom', 'Sue'];
    const prompts: EpisodeSpec[] = names.map((n) => ({
      messages: [{ role: 'user', content: `Tell a story about ${n}.` }],
      prefill: `<tool_call>\n{"name": "wait", "arguments": {"text": "${n}"}}\n</tool_call></s>`,
    }));
    const rollout = async (mode: 'async' | 'sync', timing: number[]) => {
      names.forEach((n, i) => { delays[n] = timing[i]; });
      const stepping: number[][] = [];
      const batch = await runAgentRollout({
        rt, model, tokenizer: tok, registry: waitTool, prompts, template: PLAIN_TEMPLATE, listTools: false,
        config: { mode, samplesPerPrompt: 2, temperature: 1, seed: 11, maxTokensPerTurn: 16, maxTurns: 2, maxTokens: 300, stopTokenIds: [2] },
        hooks: { onStep: (st) => { stepping.push(st.stepping); onStepCount(); } },
      });
      return { tokens: batch.episodes.map((e) => e.tokens), stepping };
    };
    const a = await rollout('async', [9, 0, 3]), b = await rollout('async', [0, 12, 1]), c = await rollout('sync', [0, 0, 0]);
    const sameSteps = a.stepping.length === b.stepping.length && a.stepping.every((s, i) => s.join() === b.stepping[i].join());
    console.log(`timing: ${a.stepping.length} / ${b.stepping.length} / ${c.stepping.length} steps (async, async, sync); episode lengths ${a.tokens.map((t) => t.length).join(',')}`);
    expect(sameSteps).toBe(false); // the timings did change which episodes stepped together
    expect(b.tokens).toEqual(a.tokens);
    expect(c.tokens).toEqual(a.tokens);
    // The two samples of a prompt draw apart (their own streams).
    expect(a.tokens[0]).not.toEqual(a.tokens[1]);
  });

  it('sync mode runs one episode at a time in one reused slot, with the same exact log-probs', async () => {
    const steps: StepInfo[] = [];
    const prompts: EpisodeSpec[] = [
      { messages: [{ role: 'user', content: 'Tell a story about Ben.' }], prefill: forcedCall('Ben', '"delayMs": 20') },
      { messages: [{ role: 'user', content: 'Once upon a time' }] },
    ];
    const batch = await runAgentRollout({
      rt, model, tokenizer: tok, registry: echo, prompts, template: PLAIN_TEMPLATE, listTools: false,
      config: { mode: 'sync', temperature: 1, seed: 5, maxTokensPerTurn: 6, maxTokens: 300, stopTokenIds: [2] },
      hooks: { onStep: (st) => steps.push(st) },
    });
    const s = batch.stats;
    console.log(`sync: ${s['perf/steps']} steps, idle fraction ${s['perf/gpu_idle_fraction'].toFixed(3)}, episodes ${batch.episodes.map((e) => `${e.finishReason}/${e.turns} turns`).join(', ')}`);
    expect(steps.every((st) => st.stepping.length === 1)).toBe(true);
    expect(steps.findIndex((st) => st.stepping[0] === 1)).toBeGreaterThan(steps.findLastIndex((st) => st.stepping[0] === 0));
    expect(batch.episodes[0].toolCalls).toMatchObject([{ name: 'echo', ok: true }]);
    expect(s['perf/gpu_idle_fraction']).toBeGreaterThan(0);
    const fresh = await model.logprobs(batch.episodes.map((e) => e.tokens));
    batch.episodes.forEach((e, i) => {
      const d = Math.max(...e.mask.flatMap((m, j) => (m ? [Math.abs(e.logprobs[j] - fresh.logprobs[i][j - 1])] : [])));
      console.log(`sync episode ${i}: log-probs maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThan(1e-4);
    });
  });
});
