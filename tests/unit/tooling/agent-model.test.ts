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

/** log p of the last 24 tokens of the first SFT trace's prompt under the shipped weights (recipe drill -> induct -> sft -> augment -> read; prompt tokens are not trained, hence the low values). */
const PINNED_LOGPROBS: number[] = [
  -5.75373, -7.68287, -9.14982, -15.35269, -16.36036, -0.64613, -6.77712, -7.3483, -11.78247, -11.91445, -15.12052, -11.67484,
  -10.83625, -16.40463, -14.36622, -11.93678, -12.10694, -14.41405, -17.88528, -2.13807, -14.19118, -8.28857, -13.03809, -12.90781,
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
