// A python-tool episode end to end: stories260K on the GPU, the real PythonPool (one Pyodide
// worker) behind the registry's `python` tool, the call teacher-forced in the first turn; the
// long output is cut to a small token budget (middle, with a marker) before it enters the live
// sequence, the episode's namespace persists across its two calls and is dropped at the end.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_TEMPLATE } from '../../../src/agents/chat-template';
import { runAgentRollout } from '../../../src/agents/gpu-rollout';
import { truncateToTokens } from '../../../src/agents/truncate';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import type { Tokenizer } from '../../../src/model/tokenizer';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';
import { pythonTool } from '../../../src/tools/python-tool';
import { ToolRegistry } from '../../../src/tools/registry';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { nodeRuntime } from '../helpers/gpu-helpers';

let rt: GpuRuntime;
let model: GpuModel;
let tok: Tokenizer;
let pool: PythonPool;

beforeAll(async () => {
  pool = createNodePythonPool({ workers: 1, timeoutMs: 5000, maxOutputBytes: 8192 });
  rt = await nodeRuntime();
  const loaded = await loadModelFiles(await openNodeModelSource(join(STORIES_DIR, 'stories260K.bin')));
  tok = loaded.tokenizer;
  model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
  await pool.ready();
});

afterAll(async () => {
  model?.dispose();
  await pool?.close();
});

describe('agent loop with the Python sandbox', () => {
  it('runs two forced python calls in one episode namespace and truncates the long output to the token budget', async () => {
    const registry = new ToolRegistry().register(pythonTool(pool, { timeoutMs: 5000 }));
    const code = 'xs = list(range(300))\\nfor x in xs: print(x)';
    const forced = `<tool_call>\n{"name": "python", "arguments": {"code": "${code}"}}\n</tool_call>\n<tool_call>\n{"name": "python", "arguments": {"code": "print(len(xs))"}}\n</tool_call></s>`;
    const budget = 12;
    const batch = await runAgentRollout({
      rt, model, tokenizer: tok, registry, template: PLAIN_TEMPLATE, listTools: false,
      prompts: [{ messages: [{ role: 'user', content: 'Count.' }], prefill: forced }],
      config: { temperature: 0, maxTokensPerTurn: 8, maxTokens: 500, stopTokenIds: [2], toolResponseMaxTokens: budget, toolResponseTruncateSide: 'middle', episodeIdPrefix: 'py' },
    });
    const ep = batch.episodes[0];
    const tools = ep.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    for (const c of ep.toolCalls) console.log(`python call: ok=${c.ok} ${c.latencyMs.toFixed(0)} ms truncated=${c.truncated}`);
    console.log(`tool responses as the model read them: ${JSON.stringify(tools)}`);
    expect(ep.toolCalls.map((c) => [c.name, c.ok, c.truncated])).toEqual([['python', true, true], ['python', true, false]]);
    const full = Array.from({ length: 300 }, (_, i) => String(i)).join('\n');
    expect(tools[0]).toBe(truncateToTokens(tok, full, budget, 'middle').text);
    expect(tools[0]).toMatch(/^0\n1\n[\s\S]*\.\.\.\[\d+ tokens cut\]\.\.\.[\s\S]*\n299$/);
    expect(tools[1]).toBe('300'); // the episode's namespace kept xs between the calls
    // Both responses sit in the live sequence as mask-0 tokens before the model's next turn.
    const stop = ep.tokens.indexOf(2);
    const response = tok.encode(`\ntool: ${tools[0]}\ntool: ${tools[1]}\nassistant:`, { addSpecialTokens: false });
    expect(ep.tokens.slice(stop + 1, stop + 1 + response.length)).toEqual(response);
    expect(ep.mask.indexOf(1)).toBe(stop + 1 + response.length);
    expect(ep.mask.reduce<number>((s, m) => s + m, 0)).toBeGreaterThan(0);
    // endEpisode ran: the namespace is gone.
    const after = await pool.run('print(len(xs))', { episode: 'py-0' });
    expect(after.errorType).toBe('NameError');
  });
});
