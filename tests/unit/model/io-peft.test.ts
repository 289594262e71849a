// readPeftAdapter: an adapter folder written here in PEFT's layout (keys
// base_model.model.model.layers.{i}...lora_{A,B}.weight, A [R, in], B [out, R]) reads back exactly
// for a tiny Qwen2 config; bad configs and tensors are named with key and expected shape.
import { describe, expect, it } from 'vitest';
import { readPeftAdapter, parseAdapterConfig } from '../../../src/model/io/peft';
import { MemorySource } from '../../../src/model/io/memory-source';
import { writeSafetensors } from '../../../src/model/io/safetensors-write';
import { ModelLoadError } from '../../../src/model/io/errors';
import { randomArray } from '../../../src/gpu/selftest';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { loraKey, loraScale, type HostTensor, type ModelConfig } from '../../../src/model/types';

const cfg: ModelConfig = {
  architecture: 'qwen2', vocabSize: 64, hiddenSize: 16, intermediateSize: 24, numLayers: 2, numHeads: 4,
  numKvHeads: 2, headDim: 4, ropeTheta: 1e6, rmsNormEps: 1e-6, maxPositions: 64, tieWordEmbeddings: true,
  attentionBias: true, eosTokenIds: [1],
};
// [out, in] per module, written out by hand from the config above (q 4x4=16, kv 2x4=8).
const dims: Record<string, [string, number, number]> = {
  q_proj: ['self_attn', 16, 16], k_proj: ['self_attn', 8, 16], v_proj: ['self_attn', 8, 16], o_proj: ['self_attn', 16, 16],
  gate_proj: ['mlp', 24, 16], up_proj: ['mlp', 24, 16], down_proj: ['mlp', 16, 24],
};
const R = 4;

function adapter(targets: string[], extra: Record<string, unknown> = {}, mutate?: (m: Map<string, HostTensor>) => void) {
  const t = new Map<string, HostTensor>();
  let seed = 100;
  for (let i = 0; i < cfg.numLayers; i++) {
    for (const mod of targets) {
      const [blk, out, inp] = dims[mod];
      t.set(`base_model.model.model.layers.${i}.${blk}.${mod}.lora_A.weight`, { shape: [R, inp], data: randomArray(R * inp, seed++) });
      t.set(`base_model.model.model.layers.${i}.${blk}.${mod}.lora_B.weight`, { shape: [out, R], data: randomArray(out * R, seed++) });
    }
  }
  mutate?.(t);
  const config = {
    peft_type: 'LORA', task_type: 'CAUSAL_LM', r: R, lora_alpha: 8, lora_dropout: 0, bias: 'none', use_rslora: false,
    fan_in_fan_out: false, target_modules: targets, base_model_name_or_path: 'tiny', inference_mode: true, ...extra,
  };
  return { tensors: t, src: new MemorySource({ 'adapter_config.json': JSON.stringify(config), 'adapter_model.safetensors': writeSafetensors(t) }) };
}

describe('readPeftAdapter', () => {
  it('reads every projection exactly', async () => {
    const all = Object.keys(dims);
    const { tensors, src } = adapter(all);
    const lw = await readPeftAdapter(src, cfg);
    expect(lw.config).toEqual({ rank: 4, alpha: 8, useRslora: false, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] });
    expect(loraScale(lw.config)).toBe(2);
    expect(lw.pairs.size).toBe(14);
    const down = lw.pairs.get(loraKey(1, 'down'))!;
    const worst = Math.max(
      maxAbsDiff(down.A, tensors.get('base_model.model.model.layers.1.mlp.down_proj.lora_A.weight')!.data),
      maxAbsDiff(down.B, tensors.get('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight')!.data),
    );
    console.log(`peft read maxdiff=${worst}`);
    expect(worst).toBe(0);
    expect(down.A.length).toBe(R * 24);
  });

  it('accepts target_modules as a subset, "all-linear", a regex, and rsLoRA', async () => {
    expect((await readPeftAdapter(adapter(['q_proj', 'v_proj']).src, cfg)).config.targets).toEqual(['q', 'v']);
    expect(parseAdapterConfig({ peft_type: 'LORA', r: 4, target_modules: 'all-linear' }, cfg).targets.length).toBe(7);
    expect(parseAdapterConfig({ peft_type: 'LORA', r: 4, target_modules: '.*\\.(q_proj|v_proj)' }, cfg).targets).toEqual(['q', 'v']);
    const rs = parseAdapterConfig({ peft_type: 'LORA', r: 16, lora_alpha: 32, use_rslora: true, target_modules: ['q_proj'] }, cfg);
    expect(loraScale(rs)).toBe(8);
  });

  it('names the key and expected shape when a tensor is missing or misshaped', async () => {
    const missing = adapter(['q_proj'], {}, (m) => m.delete('base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight'));
    await expect(readPeftAdapter(missing.src, cfg)).rejects.toThrow(/adapter_model\.safetensors: missing key "base_model\.model\.model\.layers\.1\.self_attn\.q_proj\.lora_B\.weight", expected shape \[16, 4\]/);
    const wrong = adapter(['k_proj'], {}, (m) => m.set('base_model.model.model.layers.0.self_attn.k_proj.lora_A.weight', { shape: [4, 12], data: randomArray(48, 1) }));
    await expect(readPeftAdapter(wrong.src, cfg)).rejects.toThrow(/key "base_model\.model\.model\.layers\.0\.self_attn\.k_proj\.lora_A\.weight" has shape \[4, 12\], expected \[4, 16\]/);
    const rankOff = adapter(['q_proj'], { r: 8 });
    await expect(readPeftAdapter(rankOff.src, cfg)).rejects.toThrow(/expected \[8, 16\] \(lora_A is \[r, in_features\], r=8\)/);
    const extra = adapter(['q_proj'], {}, (m) => m.set('base_model.model.model.layers.5.self_attn.q_proj.lora_A.weight', { shape: [4, 16], data: randomArray(64, 1) }));
    await expect(readPeftAdapter(extra.src, cfg)).rejects.toThrow(/"base_model\.model\.model\.layers\.5\.self_attn\.q_proj\.lora_A\.weight"/);
  });

  it('rejects unsupported adapter configs naming the field', () => {
    const base = { peft_type: 'LORA', r: 4, target_modules: ['q_proj'] };
    const bad: [object, RegExp][] = [
      [{ ...base, peft_type: 'IA3' }, /"peft_type" is "IA3"/],
      [{ ...base, r: 0 }, /"r" is 0/],
      [{ ...base, target_modules: ['lm_head'] }, /"target_modules" contains "lm_head"/],
      [{ ...base, use_dora: true }, /"use_dora" is true/],
      [{ ...base, bias: 'all' }, /"bias" is "all"/],
      [{ ...base, rank_pattern: { q_proj: 8 } }, /"rank_pattern" sets per-module/],
      [{ ...base, layers_to_transform: [0] }, /"layers_to_transform" is set/],
      [{ ...base, target_modules: 'model\\.layers\\.0\\.self_attn\\.q_proj' }, /must select the same projections in every layer/],
    ];
    for (const [json, re] of bad) {
      expect(() => parseAdapterConfig(json, cfg)).toThrow(ModelLoadError);
      expect(() => parseAdapterConfig(json, cfg)).toThrow(re);
    }
  });

  it('names missing adapter files', async () => {
    await expect(readPeftAdapter(new MemorySource({ 'adapter_model.safetensors': new Uint8Array(8) }, 'folder ad'), cfg)).rejects.toThrow(/^adapter_config\.json: missing from folder ad/);
    await expect(readPeftAdapter(new MemorySource({ 'adapter_config.json': '{}', 'adapter_model.bin': new Uint8Array(8) }), cfg)).rejects.toThrow(/adapter_model\.bin: is a pickle file/);
  });
});
