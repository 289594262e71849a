// inspectModel (the engine worker's inspect-model request) on the shipped agent-tiny files held in
// memory, then on broken copies: each problem names the file at fault (missing config.json /
// tokenizer.json / weights, an unsupported architecture, a bad safetensors header, weights that do
// not match config.json), and the GPU bytes are the memory planner's; a llama2.c .bin pair is
// converted and inspected as the loader would load it. No GPU needed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model/hf-config';
import { MemorySource } from '../../../src/model/io/memory-source';
import { planInference } from '../../../src/train/memory-plan';
import { inspectModel } from '../../../src/workers/engine/inspect';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const DIR = 'public/models/agent-tiny';
const FILES = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
const tiny = (): Record<string, Uint8Array | string> => Object.fromEntries(FILES.map((f) => [f, new Uint8Array(readFileSync(`${DIR}/${f}`))]));
const configJson = () => JSON.parse(readFileSync(`${DIR}/config.json`, 'utf8')) as Record<string, unknown>;

async function problemsOf(files: Record<string, Uint8Array | string>): Promise<string[]> {
  const r = await inspectModel(new MemorySource(files, 'the test folder'));
  const lines = r.problems.map((p) => `${p.file}: ${p.message}`);
  console.log(lines.join('\n'));
  return lines;
}

describe('inspectModel', () => {
  it('reports agent-tiny: architecture, parameters, GPU bytes from the memory plan, template, no problems', async () => {
    const r = await inspectModel(new MemorySource(tiny(), 'agent-tiny'));
    expect(r.problems).toEqual([]);
    expect(r.hfArchitecture).toBe('Qwen2ForCausalLM');
    expect(r.config?.numLayers).toBe(4);
    const b = readFileSync(`${DIR}/model.safetensors`);
    const n = Number(b.readBigUInt64LE(0));
    const header = JSON.parse(b.subarray(8, 8 + n).toString()) as Record<string, { shape?: number[] }>;
    const numel = Object.entries(header).filter(([k]) => k !== '__metadata__').reduce((a, [, t]) => a + t.shape!.reduce((x, y) => x * y, 1), 0);
    expect(r.params).toBe(numel);
    expect(r.tokenizerVocab).toBe(1024);
    expect(r.chatTemplate).toContain('<|im_start|>');
    expect(r.dtypes).toEqual(['F32']);
    const cfg = parseModelConfig(configJson());
    for (const g of r.gpu) {
      const plan = planInference(cfg, { quant: g.quant, quantEmbeddings: false, B: 1, Tmax: 512 });
      expect([g.weightsBytes, g.chatBytes]).toEqual([plan.weightsBytes, plan.total]);
    }
    console.log(`agent-tiny: ${r.params} params; GPU ${r.gpu.map((g) => `${g.quant} ${g.weightsBytes} / ${g.chatBytes} B`).join(', ')}`);
    expect(r.gpu.find((g) => g.quant === 'nf4')!.weightsBytes).toBeLessThan(r.gpu.find((g) => g.quant === 'none')!.weightsBytes);
  });

  it('names tokenizer.json when it is missing', async () => {
    const f = tiny();
    delete f['tokenizer.json'];
    const p = await problemsOf(f);
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^tokenizer\.json: missing from the test folder .*add the tokenizer files/);
  });

  it('names config.json when it is missing', async () => {
    const f = tiny();
    delete f['config.json'];
    expect((await problemsOf(f))[0]).toMatch(/^config\.json: missing from the test folder; pick the Hugging Face model folder itself/);
  });

  it('names the weights when they are missing', async () => {
    const f = tiny();
    delete f['model.safetensors'];
    const p = await problemsOf(f);
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^model\.safetensors: missing from the test folder/);
  });

  it('names config.json "architectures" when the architecture is not supported', async () => {
    const f = { ...tiny(), 'config.json': JSON.stringify({ ...configJson(), architectures: ['MistralForCausalLM'] }) };
    const p = await problemsOf(f);
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^config\.json: "architectures" is \["MistralForCausalLM"\]; supported: LlamaForCausalLM, Qwen2ForCausalLM/);
  });

  it('names model.safetensors when its header is broken', async () => {
    const bad = new Uint8Array(24);
    new DataView(bad.buffer).setBigUint64(0, 1000n, true);
    const p = await problemsOf({ ...tiny(), 'model.safetensors': bad });
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^model\.safetensors: header says 1000 bytes but the file has 16 .*re-download it/);
  });

  it('names the tensor when the weights do not match config.json', async () => {
    const f = { ...tiny(), 'config.json': JSON.stringify({ ...configJson(), intermediate_size: 256 }) };
    const p = await problemsOf(f);
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^model\.safetensors: .*mlp\.(gate|up|down)_proj\.weight.*use the config\.json that came with these weights/);
  });

  it('converts a llama2.c .bin with its tokenizer .bin and reports it as the loader would load it', async () => {
    const r = await inspectModel(new MemorySource({
      'stories260K.bin': new Uint8Array(readFileSync(`${STORIES_DIR}/stories260K.bin`)), 'tok512.bin': new Uint8Array(readFileSync(`${STORIES_DIR}/tok512.bin`)),
    }, 'a llama2.c folder'));
    expect(r.problems).toEqual([]);
    expect(r.config?.architecture).toBe('llama');
    expect(r.tokenizerVocab).toBe(512);
    expect(r.source).toContain('converted from llama2.c stories260K.bin');
    expect(r.files.map((f) => f.path).sort()).toEqual(['stories260K.bin', 'tok512.bin']);
    console.log(`llama2.c stories260K: ${r.params} params, ${r.config?.numLayers} layers`);
  });

  it('names the tokenizer .bin when a llama2.c checkpoint comes without one', async () => {
    const p = await problemsOf({ 'stories260K.bin': new Uint8Array(readFileSync(`${STORIES_DIR}/stories260K.bin`)) });
    expect(p).toEqual([expect.stringMatching(/^stories260K\.bin: is a llama2\.c checkpoint but no tokenizer \.bin is beside it/)]);
  });
});
