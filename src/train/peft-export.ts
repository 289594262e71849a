// Export of trained weights as files other tools load: a PEFT LoRA adapter (adapter_config.json +
// adapter_model.safetensors, anchors.md section 4, what PeftModel.from_pretrained reads) and, for
// full fine-tunes, a Hugging Face model folder (config.json + model.safetensors + tokenizer
// files). Output is a Map of file name -> bytes; toBlobs() for browser downloads, writeFiles() in
// write-files.ts for Node. Tested by tests/unit/train/train-peft.test.ts (round trips through readers).
import { modelConfigToJson } from '../model/hf-config';
import { expectedTensors } from '../model/io/expected';
import { ADAPTER_CONFIG, ADAPTER_WEIGHTS, peftKey } from '../model/io/peft';
import { writeSafetensors } from '../model/io/safetensors-write';
import type { FloatDtype } from '../model/io/dtype';
import type { Tokenizer } from '../model/tokenizer';
import { hfNames, loraKey, projShape, type HostTensor, type LoraConfig, type LoraWeights, type ModelConfig, type TensorMap } from '../model/types';

export type ExportFiles = Map<string, Uint8Array>;

export interface PeftExportOptions {
  /** base_model_name_or_path: the Hub id or folder of the base model. */
  baseModelName: string;
  /** lora_dropout recorded in the config (default 0: we train without dropout). */
  loraDropout?: number;
}

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2) + '\n');

/** adapter_config.json's fields (anchors.md section 4). */
export function adapterConfigJson(c: LoraConfig, opts: PeftExportOptions): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    r: c.rank,
    lora_alpha: c.alpha,
    lora_dropout: opts.loraDropout ?? 0,
    bias: 'none',
    use_rslora: c.useRslora,
    fan_in_fan_out: false,
    target_modules: c.targets.map((p) => `${p}_proj`),
    base_model_name_or_path: opts.baseModelName,
    inference_mode: true,
  };
}

/**
 * The adapter's PEFT files. Every (layer, target) pair must be present with lora_A [R, in] and
 * lora_B [out, R]; the error names the pair and the expected size otherwise.
 */
export function exportPeftAdapter(lora: LoraWeights, cfg: ModelConfig, opts: PeftExportOptions): ExportFiles {
  const R = lora.config.rank;
  const tensors: [string, HostTensor][] = [];
  for (let i = 0; i < cfg.numLayers; i++) {
    for (const p of lora.config.targets) {
      const pair = lora.pairs.get(loraKey(i, p));
      const [out, inp] = projShape(cfg, p);
      if (!pair) throw new Error(`exportPeftAdapter: no LoRA pair for layer ${i} ${p}_proj, which target_modules lists`);
      if (pair.A.length !== R * inp) throw new Error(`exportPeftAdapter: layer ${i} ${p}_proj lora_A has ${pair.A.length} values; expected [${R}, ${inp}] = ${R * inp}`);
      if (pair.B.length !== out * R) throw new Error(`exportPeftAdapter: layer ${i} ${p}_proj lora_B has ${pair.B.length} values; expected [${out}, ${R}] = ${out * R}`);
      tensors.push([peftKey(i, p, 'A'), { shape: [R, inp], data: pair.A }], [peftKey(i, p, 'B'), { shape: [out, R], data: pair.B }]);
    }
  }
  return new Map([
    [ADAPTER_CONFIG, json(adapterConfigJson(lora.config, opts))],
    [ADAPTER_WEIGHTS, writeSafetensors(tensors, { format: 'pt' })],
  ]);
}

export interface HfExportOptions {
  /** Stored element type of model.safetensors (default F32; F16/BF16 halve the file). */
  dtype?: FloatDtype;
}

/**
 * A Hugging Face model folder: config.json (modelConfigToJson), model.safetensors with every
 * tensor the config implies (lm_head.weight only when untied) and the tokenizer files if given.
 */
export function exportHfModel(cfg: ModelConfig, tensors: TensorMap, tokenizerFiles?: ExportFiles, opts: HfExportOptions = {}): ExportFiles {
  const out: [string, HostTensor][] = [];
  for (const [name, shape] of expectedTensors(cfg)) {
    const t = tensors.get(name);
    if (!t) throw new Error(`exportHfModel: tensor "${name}" [${shape.join(', ')}] is missing${name === hfNames.lmHead ? ' (the config is untied)' : ''}`);
    const n = shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== n || t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      throw new Error(`exportHfModel: tensor "${name}" has shape [${t.shape.join(', ')}] (${t.data.length} values); expected [${shape.join(', ')}]`);
    }
    out.push([name, t]);
  }
  const files: ExportFiles = new Map([
    ['config.json', json(modelConfigToJson(cfg))],
    ['model.safetensors', writeSafetensors(out, { format: 'pt' }, { dtype: opts.dtype ?? 'F32' })],
  ]);
  for (const [name, bytes] of tokenizerFiles ?? []) files.set(name, bytes);
  return files;
}

/** tokenizer.json + tokenizer_config.json (+ chat_template.jinja) that loadTokenizer reads back. */
export function tokenizerFilesOf(tok: Tokenizer): ExportFiles {
  const files: ExportFiles = new Map([['tokenizer.json', json(tok.json)]]);
  if (Object.keys(tok.config).length) files.set('tokenizer_config.json', json(tok.config));
  if (tok.chatTemplate && tok.chatTemplate !== tok.config.chat_template) files.set('chat_template.jinja', new TextEncoder().encode(tok.chatTemplate));
  return files;
}

/** Browser downloads: one Blob per file (JSON files typed application/json). */
export function toBlobs(files: ExportFiles): Map<string, Blob> {
  const out = new Map<string, Blob>();
  for (const [name, bytes] of files) {
    out.set(name, new Blob([bytes as Uint8Array<ArrayBuffer>], { type: name.endsWith('.json') ? 'application/json' : 'application/octet-stream' }));
  }
  return out;
}
