// loadModelFiles on tiny models built in the test with writeSafetensors: a Qwen2-style model
// (q/k/v biases, tied head) and a Llama with lm_head, single-file and sharded; then each bad
// input the loader must report by name: missing/extra tensors, wrong shape, tokenizer larger
// than the embedding, unsupported architecture, missing files.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadModelFiles } from '../../../src/model/io/loader';
import { MemorySource } from '../../../src/model/io/memory-source';
import { writeSafetensors } from '../../../src/model/io/safetensors-write';
import { expectedTensors } from '../../../src/model/io/expected';
import { parseModelConfig } from '../../../src/model/hf-config';
import { ModelLoadError } from '../../../src/model/io/errors';
import { convertLlama2c } from '../../../src/model/io/llama2c-convert';
import { randomArray } from '../../../src/gpu/selftest';
import { maxAbsDiff } from '../../../src/reference/matmul';
import type { HostTensor } from '../../../src/model/types';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

// A 512-token tokenizer.json (from llama2.c's tok512) to pair with the tiny models.
const tok512 = convertLlama2c(readFileSync(`${STORIES_DIR}/stories260K.bin`), readFileSync(`${STORIES_DIR}/tok512.bin`));
const tokenizerFiles = { 'tokenizer.json': tok512.get('tokenizer.json')!, 'tokenizer_config.json': tok512.get('tokenizer_config.json')! };

const qwenCfg = {
  architectures: ['Qwen2ForCausalLM'], hidden_size: 16, intermediate_size: 24, num_hidden_layers: 2,
  num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 512, tie_word_embeddings: true,
  rope_theta: 1e6, rms_norm_eps: 1e-6, max_position_embeddings: 128, eos_token_id: 2,
};
const llamaCfg = { ...qwenCfg, architectures: ['LlamaForCausalLM'], tie_word_embeddings: false };

function weightsFor(cfgJson: object): Map<string, HostTensor> {
  const out = new Map<string, HostTensor>();
  let seed = 1;
  for (const [name, shape] of expectedTensors(parseModelConfig(cfgJson))) {
    out.set(name, { shape, data: randomArray(shape.reduce((a, b) => a * b, 1), seed++) });
  }
  return out;
}

function folder(cfgJson: object, tensors: Map<string, HostTensor>, extra: Record<string, Uint8Array | string> = {}) {
  return new MemorySource({ 'config.json': JSON.stringify(cfgJson), 'model.safetensors': writeSafetensors(tensors), ...tokenizerFiles, ...extra }, 'folder tiny');
}

async function loadError(src: MemorySource): Promise<ModelLoadError> {
  const e = await loadModelFiles(src).then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(ModelLoadError);
  return e as ModelLoadError;
}

describe('loadModelFiles', () => {
  it('loads a tiny Qwen2 (q/k/v biases, tied) and streams exact weights', async () => {
    const w = weightsFor(qwenCfg);
    expect(w.has('model.layers.1.self_attn.k_proj.bias')).toBe(true);
    expect(w.has('lm_head.weight')).toBe(false);
    const progress: string[] = [];
    const m = await loadModelFiles(folder(qwenCfg, w, { 'generation_config.json': JSON.stringify({ eos_token_id: [2, 7] }) }), { onProgress: (p) => progress.push(`${p.stage}:${p.file}`) });
    expect(m.config).toMatchObject({ architecture: 'qwen2', attentionBias: true, headDim: 4 });
    expect(m.config.eosTokenIds.sort()).toEqual([2, 7]);
    let worst = 0, n = 0;
    for await (const [name, t] of m.weights.stream()) {
      worst = Math.max(worst, maxAbsDiff(t.data, w.get(name)!.data));
      n++;
    }
    console.log(`loader qwen2 tiny: ${n} tensors streamed, maxdiff=${worst}`);
    expect(n).toBe(w.size);
    expect(worst).toBe(0);
    expect(progress).toContain('tensors:model.safetensors');
    expect(m.tokenizer.encode('Once')[0]).toBe(1);
  });

  it('loads a sharded Llama with an untied lm_head, ignoring rotary inv_freq', async () => {
    const w = weightsFor(llamaCfg);
    const names = [...w.keys()];
    const half = Math.ceil(names.length / 2);
    const shard = (ns: string[]) => writeSafetensors(ns.map((n) => [n, w.get(n)!] as [string, HostTensor]));
    const extra = new Map([['model.layers.0.self_attn.rotary_emb.inv_freq', { shape: [2], data: new Float32Array(2) }]]);
    const files = {
      'config.json': JSON.stringify(llamaCfg), ...tokenizerFiles,
      'model-00001-of-00002.safetensors': shard(names.slice(0, half)),
      'model-00002-of-00002.safetensors': writeSafetensors([...names.slice(half).map((n) => [n, w.get(n)!] as [string, HostTensor]), ...extra]),
      'model.safetensors.index.json': JSON.stringify({
        weight_map: Object.fromEntries([...names.map((n, i) => [n, i < half ? 'model-00001-of-00002.safetensors' : 'model-00002-of-00002.safetensors']), ['model.layers.0.self_attn.rotary_emb.inv_freq', 'model-00002-of-00002.safetensors']]),
      }),
    };
    const m = await loadModelFiles(new MemorySource(files));
    expect(m.ignoredTensors).toEqual(['model.layers.0.self_attn.rotary_emb.inv_freq']);
    const all = await m.weights.readAll();
    expect(maxAbsDiff(all.get('lm_head.weight')!.data, w.get('lm_head.weight')!.data)).toBe(0);
  });

  it('reports missing tensors by name', async () => {
    const w = weightsFor(llamaCfg);
    w.delete('lm_head.weight');
    w.delete('model.layers.1.mlp.up_proj.weight');
    const e = await loadError(folder(llamaCfg, w));
    expect(e.message).toMatch(/^model\.safetensors: missing 2 tensor\(s\) .*"model\.layers\.1\.mlp\.up_proj\.weight", "lm_head\.weight".*tie_word_embeddings is false/);
  });

  it('reports extra tensors by name (Qwen2 weights under a Llama config)', async () => {
    const e = await loadError(folder({ ...llamaCfg, tie_word_embeddings: true }, weightsFor(qwenCfg)));
    expect(e.message).toMatch(/does not use: "model\.layers\.0\.self_attn\.q_proj\.bias"/);
  });

  it('reports a wrong shape with the expected one', async () => {
    const w = weightsFor(qwenCfg);
    w.set('model.layers.1.self_attn.k_proj.weight', { shape: [16, 16], data: randomArray(256, 9) });
    const e = await loadError(folder(qwenCfg, w));
    expect(e.item).toBe('model.layers.1.self_attn.k_proj.weight');
    expect(e.message).toMatch(/tensor "model\.layers\.1\.self_attn\.k_proj\.weight" has shape \[16, 16\], expected \[8, 16\]/);
  });

  it('rejects a tokenizer larger than the embedding, naming both numbers', async () => {
    const cfg = { ...qwenCfg, vocab_size: 300 };
    const e = await loadError(folder(cfg, weightsFor(cfg)));
    expect(e.message).toMatch(/vocab_size is 300 but the tokenizer has 512 tokens/);
  });

  it('rejects an unsupported architecture and missing files', async () => {
    const gpt2 = { ...qwenCfg, architectures: ['GPT2LMHeadModel'] };
    expect((await loadError(folder(gpt2, new Map()))).message).toMatch(/"architectures" is \["GPT2LMHeadModel"\]; supported/);
    const w = weightsFor(qwenCfg);
    expect((await loadError(new MemorySource({ 'model.safetensors': writeSafetensors(w) }, 'folder tiny'))).message).toMatch(/^config\.json: missing from folder tiny/);
    expect((await loadError(new MemorySource({ 'config.json': JSON.stringify(qwenCfg), ...tokenizerFiles }, 'folder tiny'))).message).toMatch(/^model\.safetensors: missing from folder tiny/);
    expect((await loadError(new MemorySource({ 'config.json': JSON.stringify(qwenCfg), 'model.safetensors': writeSafetensors(w) }, 'folder tiny'))).message).toMatch(/^tokenizer\.json: missing from folder tiny/);
    expect((await loadError(new MemorySource({ 'config.json': '{"architectures": [', 'model.safetensors': writeSafetensors(w) }))).message).toMatch(/^config\.json: is not valid JSON/);
  });

  it('rejects a truncated weights file before reading tensors', async () => {
    const bytes = writeSafetensors(weightsFor(qwenCfg));
    const e = await loadError(new MemorySource({ 'config.json': JSON.stringify(qwenCfg), 'model.safetensors': bytes.subarray(0, bytes.length - 100), ...tokenizerFiles }));
    expect(e.message).toMatch(/^model\.safetensors: truncated: tensor "model\.norm\.weight"/);
  });
});
