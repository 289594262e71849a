// PEFT export/import and full-model export: exported adapters read back bit-identically
// (seeded random adapter, all and partial targets; the tiny Qwen2 fixture adapter, whose config
// fields must equal the PyTorch-written adapter_config.json), files written to disk and as Blobs,
// and a stories260K model folder (config, weights, tokenizer) that loadModelFiles loads back.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../../src/model/io/memory-source';
import { NodeDirSource, openNodeModelSource } from '../../../src/model/io/node-source';
import { readPeftAdapter, ADAPTER_CONFIG, ADAPTER_WEIGHTS } from '../../../src/model/io/peft';
import { readSafetensorsHeader } from '../../../src/model/io/safetensors';
import { readJson } from '../../../src/model/io/source';
import { loadModelFiles } from '../../../src/model/io/loader';
import { parseModelConfig } from '../../../src/model/hf-config';
import { loraKey, type LoraWeights, type ModelConfig } from '../../../src/model/types';
import { lora_init } from '../../../src/reference/lora';
import { randomArray } from '../../../src/gpu/selftest';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { exportHfModel, exportPeftAdapter, toBlobs, tokenizerFilesOf } from '../../../src/train/peft-export';
import { writeFiles } from '../../../src/train/write-files';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const GOLDENS = join(__dirname, '../../fixtures/goldens');

async function tinyConfig(): Promise<ModelConfig> {
  return parseModelConfig(await readJson(new NodeDirSource(join(GOLDENS, 'tiny-qwen2')), 'config.json'));
}

/** Bit-exact equality of two adapters (same pairs, same f32 bits). */
function expectSameAdapter(a: LoraWeights, b: LoraWeights): void {
  expect(b.config).toEqual(a.config);
  expect([...b.pairs.keys()].sort()).toEqual([...a.pairs.keys()].sort());
  let worst = 0;
  for (const [k, p] of a.pairs) {
    const q = b.pairs.get(k)!;
    expect(new Uint32Array(q.A.buffer, q.A.byteOffset, q.A.length)).toEqual(new Uint32Array(p.A.buffer, p.A.byteOffset, p.A.length));
    expect(new Uint32Array(q.B.buffer, q.B.byteOffset, q.B.length)).toEqual(new Uint32Array(p.B.buffer, p.B.byteOffset, p.B.length));
    worst = Math.max(worst, maxAbsDiff(p.A, q.A), maxAbsDiff(p.B, q.B));
  }
  console.log(`adapter round trip (${a.pairs.size} pairs): maxdiff=${worst}`);
}

describe('PEFT adapter export', () => {
  it('writes the anchors.md fields and keys, and reads back bit-identically (all and partial targets)', async () => {
    const cfg = await tinyConfig();
    for (const targets of [['q', 'k', 'v', 'o', 'gate', 'up', 'down'], ['q', 'v']] as const) {
      const lora = lora_init(cfg, { rank: 4, alpha: 16, useRslora: targets.length === 2, targets: [...targets] }, 3);
      let seed = 100;
      for (const p of lora.pairs.values()) p.B.set(randomArray(p.B.length, seed++)); // a trained B is not zero
      const files = exportPeftAdapter(lora, cfg, { baseModelName: 'Qwen/Qwen2.5-0.5B-Instruct' });
      expect([...files.keys()]).toEqual([ADAPTER_CONFIG, ADAPTER_WEIGHTS]);
      const src = new MemorySource(files);
      expect(await readJson(src, ADAPTER_CONFIG)).toEqual({
        peft_type: 'LORA', task_type: 'CAUSAL_LM', r: 4, lora_alpha: 16, lora_dropout: 0, bias: 'none',
        use_rslora: targets.length === 2, fan_in_fan_out: false, target_modules: targets.map((p) => `${p}_proj`),
        base_model_name_or_path: 'Qwen/Qwen2.5-0.5B-Instruct', inference_mode: true,
      });
      const h = await readSafetensorsHeader(src, ADAPTER_WEIGHTS);
      expect(h.metadata).toEqual({ format: 'pt' });
      expect(h.tensors.get('base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight')?.shape).toEqual([4, 64]);
      expect(h.tensors.get('base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight')?.shape).toEqual([32, 4]);
      if (targets.length === 7) expect(h.tensors.get('base_model.model.model.layers.0.mlp.down_proj.lora_A.weight')?.shape).toEqual([4, 160]);
      expect(h.tensors.size).toBe(cfg.numLayers * targets.length * 2);
      expectSameAdapter(lora, await readPeftAdapter(src, cfg));
    }
  });

  it('round-trips the tiny Qwen2 fixture adapter; its config equals the PyTorch-written one', async () => {
    const cfg = await tinyConfig();
    const dir = join(GOLDENS, 'tiny-qwen2-lora');
    const original = await readPeftAdapter(new NodeDirSource(dir), cfg);
    const files = exportPeftAdapter(original, cfg, { baseModelName: 'tiny-qwen2' });
    const src = new MemorySource(files);
    expect(await readJson(src, ADAPTER_CONFIG)).toEqual(JSON.parse(readFileSync(join(dir, ADAPTER_CONFIG), 'utf8')));
    expectSameAdapter(original, await readPeftAdapter(src, cfg));
  });

  it('names the missing or mis-sized pair', async () => {
    const cfg = await tinyConfig();
    const lora = lora_init(cfg, { rank: 2, alpha: 4, useRslora: false, targets: ['q', 'o'] }, 1);
    lora.pairs.delete(loraKey(1, 'o'));
    expect(() => exportPeftAdapter(lora, cfg, { baseModelName: 'x' })).toThrow('no LoRA pair for layer 1 o_proj');
    const bad = lora_init(cfg, { rank: 2, alpha: 4, useRslora: false, targets: ['q'] }, 1);
    bad.pairs.get(loraKey(0, 'q'))!.B = new Float32Array(3);
    expect(() => exportPeftAdapter(bad, cfg, { baseModelName: 'x' })).toThrow('layer 0 q_proj lora_B has 3 values; expected [64, 2] = 128');
  });

  it('writes files to a folder (Node) and makes Blobs (browser downloads)', async () => {
    const cfg = await tinyConfig();
    const lora = lora_init(cfg, { rank: 4, alpha: 8, useRslora: false, targets: ['gate', 'up', 'down'] }, 9);
    const files = exportPeftAdapter(lora, cfg, { baseModelName: 'tiny-qwen2' });
    const dir = mkdtempSync(join(tmpdir(), 'peft-'));
    try {
      await writeFiles(join(dir, 'adapter'), files);
      expectSameAdapter(lora, await readPeftAdapter(new NodeDirSource(join(dir, 'adapter')), cfg));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(writeFiles(dir, new Map([['../x', new Uint8Array(1)]]))).rejects.toThrow('refusing');
    const blobs = toBlobs(files);
    expect(blobs.get(ADAPTER_CONFIG)!.type).toBe('application/json');
    const w = blobs.get(ADAPTER_WEIGHTS)!;
    expect(new Uint8Array(await w.arrayBuffer())).toEqual(files.get(ADAPTER_WEIGHTS));
  });
});

describe.skipIf(!existsSync(STORIES_DIR))('full-model export', () => {
  it('exports stories260K as an HF folder that loadModelFiles loads back identically', async () => {
    const m = await loadModelFiles(await openNodeModelSource(join(STORIES_DIR, 'stories260K.bin')));
    const tensors = await m.weights.readAll();
    const files = exportHfModel(m.config, tensors, tokenizerFilesOf(m.tokenizer));
    expect([...files.keys()].sort()).toEqual(['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']);
    const back = await loadModelFiles(new MemorySource(files, 'exported stories260K'));
    expect(back.config).toEqual(m.config);
    expect(back.ignoredTensors).toEqual([]);
    const again = await back.weights.readAll();
    expect([...again.keys()].sort()).toEqual([...tensors.keys()].sort());
    let worst = 0;
    for (const [name, t] of tensors) {
      const u = again.get(name)!;
      expect(u.shape).toEqual(t.shape);
      expect(new Uint32Array(u.data.buffer, u.data.byteOffset, u.data.length)).toEqual(new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length));
      worst = Math.max(worst, maxAbsDiff(t.data, u.data));
    }
    console.log(`full export round trip: ${tensors.size} tensors, ${files.get('model.safetensors')!.length} bytes, maxdiff=${worst}`);
    const text = 'Once upon a time, there was a little girl.';
    expect(back.tokenizer.encode(text)).toEqual(m.tokenizer.encode(text));
    expect(back.tokenizer.vocabSize).toBe(m.tokenizer.vocabSize);

    tensors.delete('model.norm.weight');
    expect(() => exportHfModel(m.config, tensors)).toThrow('tensor "model.norm.weight" [64] is missing');
  });
});
