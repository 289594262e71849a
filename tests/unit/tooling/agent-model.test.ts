// The shipped default agent (public/models/agent-tiny) and its from-scratch initialisation: the
// seeded init is reproducible and loads through the loader like any HF folder; the shipped
// folder loads through the same path, fits the 20 MB budget with stories260K, and its log-probs
// on a fixed held-out prompt (CPU reference forward) are pinned. After retraining, print the new
// values with PIN_AGENT=1 npx vitest run tests/unit/tooling/agent-model.test.ts and paste them below.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderChat, type ChatMessage, type ToolSpec } from '../../../src/agents/chat-template';
import { modelConfigToJson } from '../../../src/model/hf-config';
import { loadModelFiles } from '../../../src/model/io/loader';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { writeSafetensors } from '../../../src/model/io/safetensors-write';
import { model_logprobs } from '../../../src/reference/model';
import { agentModelConfig, countParams, initAgentWeights } from '../../../scripts/agent-data/init-model';
import { AGENT_MODEL_DIR } from '../../../scripts/agent-data/tokenizer-spec';

/** log p of the last 24 tokens of the first SFT trace's prompt under the shipped weights (recipe drill -> induct -> sft -> augment -> read -> direct; prompt tokens are not trained, hence the low values). */
const PINNED_LOGPROBS: number[] = [
  -3.18328, -7.35789, -10.90596, -15.12252, -16.52571, -0.43742, -6.17207, -4.27231, -11.12672, -8.21243, -16.3462, -16.5411,
  -11.08066, -14.71396, -13.6746, -16.95199, -13.57194, -15.78395, -16.12796, -1.04046, -16.55798, -10.12235, -16.19127, -16.06966,
];
const PIN_TOL = 2e-4;

function folderBytes(dir: string): number {
  return readdirSync(dir).reduce((n, f) => {
    const p = join(dir, f);
    return n + (statSync(p).isDirectory() ? folderBytes(p) : statSync(p).size);
  }, 0);
}

describe('agent-tiny model', () => {
  it('seeded init: same seed same weights, 263K parameters, loads as an HF folder', async () => {
    const cfg = agentModelConfig(1024, [1019, 1017]);
    const w = initAgentWeights(cfg, 0);
    expect(countParams(w)).toBe(263232);
    expect(initAgentWeights(cfg, 0).get('model.layers.0.self_attn.q_proj.weight')).toEqual(w.get('model.layers.0.self_attn.q_proj.weight'));
    expect(initAgentWeights(cfg, 1).get('model.embed_tokens.weight')!.data[0]).not.toBe(w.get('model.embed_tokens.weight')!.data[0]);
    const dir = mkdtempSync(join(tmpdir(), 'agent-init-'));
    try {
      writeFileSync(join(dir, 'config.json'), JSON.stringify(modelConfigToJson(cfg)));
      writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(w));
      for (const f of ['tokenizer.json', 'tokenizer_config.json']) writeFileSync(join(dir, f), readFileSync(join(AGENT_MODEL_DIR, f)));
      const m = await loadModelFiles(new NodeDirSource(dir));
      expect(m.config).toMatchObject({ architecture: 'qwen2', hiddenSize: 64, numLayers: 4, vocabSize: 1024, tieWordEmbeddings: true });
      const emb = await m.weights.read('model.embed_tokens.weight');
      expect(emb.data).toEqual(w.get('model.embed_tokens.weight')!.data);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the shipped folder loads like any HF folder, fits 20 MB with stories260K, and its log-probs are pinned', async () => {
    const total = folderBytes('public/models');
    console.log(`public/models: ${(total / 1e6).toFixed(2)} MB`);
    expect(total).toBeLessThanOrEqual(20e6);
    const m = await loadModelFiles(new NodeDirSource(AGENT_MODEL_DIR));
    expect(m.config.vocabSize).toBe(m.tokenizer.vocabSize);
    expect(m.tokenizer.chatTemplate).toContain('<tool_call>');
    const trace = JSON.parse(readFileSync('datasets/agent_sft.jsonl', 'utf8').split('\n')[0]) as { messages: ChatMessage[]; tools: ToolSpec[] };
    const ids = m.tokenizer.encode(renderChat(m.tokenizer.chatTemplate, trace.messages.slice(0, 2), { tools: trace.tools, addGenerationPrompt: true })).slice(-25);
    const weights = new Map(await Promise.all([...m.weights.tensors.keys()].map(async (n) => [n, await m.weights.read(n)] as const)));
    const { logprobs } = model_logprobs(m.config, weights, ids);
    const got = Array.from(logprobs, (v) => Number(v.toFixed(5)));
    if (process.env.PIN_AGENT) console.log(`PINNED_LOGPROBS = ${JSON.stringify(got)}`);
    expect(got.length).toBe(PINNED_LOGPROBS.length);
    const maxdiff = Math.max(...got.map((v, i) => Math.abs(v - PINNED_LOGPROBS[i])));
    console.log(`log-probs of ${got.length} tokens: mean ${(got.reduce((a, b) => a + b, 0) / got.length).toFixed(4)}, maxdiff vs pinned ${maxdiff.toExponential(2)}`);
    expect(maxdiff).toBeLessThan(PIN_TOL);
  });
});
