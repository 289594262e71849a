// PEFT LoRA adapters (adapter_config.json + adapter_model.safetensors, anchors.md section 4)
// -> LoraWeights, validated against the base ModelConfig: r, lora_alpha, use_rslora,
// target_modules, and every key's shape (lora_A [R, in], lora_B [out, R]). Errors name the key
// and the expected shape. Tested by tests/unit/model/io-peft.test.ts.
import { loraKey, PROJECTIONS, projShape, type LoraConfig, type LoraWeights, type ModelConfig, type Projection } from '../types';
import { ModelLoadError } from './errors';
import { readSafetensorsHeader, readTensor } from './safetensors';
import { readJson, type FileSource, type ProgressFn } from './source';

export const ADAPTER_CONFIG = 'adapter_config.json';
export const ADAPTER_WEIGHTS = 'adapter_model.safetensors';

/** HF module name of a projection inside layer i (what target_modules refer to). */
export function peftModule(i: number, p: Projection): string {
  return p === 'gate' || p === 'up' || p === 'down' ? `model.layers.${i}.mlp.${p}_proj` : `model.layers.${i}.self_attn.${p}_proj`;
}

/** The key PEFT saves for a LoRA matrix. */
export function peftKey(i: number, p: Projection, m: 'A' | 'B'): string {
  return `base_model.model.${peftModule(i, p)}.lora_${m}.weight`;
}

const KEY_RE = /^base_model\.model\.model\.layers\.(\d+)\.(self_attn|mlp)\.(q|k|v|o|gate|up|down)_proj\.lora_(A|B)(?:\.default)?\.weight$/;

/** adapter_config.json -> LoraConfig, checked against the base model. */
export function parseAdapterConfig(json: unknown, cfg: ModelConfig): LoraConfig {
  const j = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const fail = (field: string, msg: string): never => {
    throw new ModelLoadError(ADAPTER_CONFIG, `"${field}" ${msg}`, field);
  };
  if (j.peft_type !== 'LORA') fail('peft_type', `is ${JSON.stringify(j.peft_type)}; only LoRA adapters ("LORA") are supported`);
  const rank = j.r;
  if (!Number.isInteger(rank) || (rank as number) <= 0) fail('r', `is ${JSON.stringify(rank)}; expected a positive integer`);
  const alpha = j.lora_alpha ?? 8; // PEFT's default
  if (typeof alpha !== 'number' || !(alpha > 0)) fail('lora_alpha', `is ${JSON.stringify(alpha)}; expected a positive number`);
  const useRslora = j.use_rslora ?? false;
  if (typeof useRslora !== 'boolean') fail('use_rslora', `is ${JSON.stringify(useRslora)}; expected true or false`);
  if ((j.bias ?? 'none') !== 'none') fail('bias', `is ${JSON.stringify(j.bias)}; only "none" is supported (no trained biases)`);
  if (j.fan_in_fan_out === true) fail('fan_in_fan_out', 'is true; only the Linear layout (false) is supported');
  if (j.use_dora === true) fail('use_dora', 'is true; DoRA adapters are not supported');
  for (const f of ['rank_pattern', 'alpha_pattern'] as const) {
    if (j[f] && Object.keys(j[f] as object).length > 0) fail(f, 'sets per-module ranks/alphas; only one r and lora_alpha for all modules is supported');
  }
  if (j.layers_to_transform !== undefined && j.layers_to_transform !== null) fail('layers_to_transform', 'is set; only adapters on every layer are supported');
  if (Array.isArray(j.modules_to_save) && j.modules_to_save.length > 0) fail('modules_to_save', `is ${JSON.stringify(j.modules_to_save)}; fully trained extra modules are not supported`);
  return { rank: rank as number, alpha: alpha as number, useRslora: useRslora as boolean, targets: parseTargets(j.target_modules, cfg, fail) };
}

function parseTargets(t: unknown, cfg: ModelConfig, fail: (f: string, m: string) => never): Projection[] {
  const all = `supported: ${PROJECTIONS.map((p) => `${p}_proj`).join(', ')} or "all-linear"`;
  if (t === 'all-linear') return [...PROJECTIONS];
  if (Array.isArray(t)) {
    const out = new Set<Projection>();
    for (const name of t) {
      const m = /(?:^|\.)(q|k|v|o|gate|up|down)_proj$/.exec(String(name));
      if (!m) fail('target_modules', `contains ${JSON.stringify(name)}; ${all}`);
      out.add((m as RegExpExecArray)[1] as Projection);
    }
    if (out.size === 0) fail('target_modules', `is empty; ${all}`);
    return PROJECTIONS.filter((p) => out.has(p));
  }
  if (typeof t === 'string') {
    // A regex PEFT full-matches against module names: it must pick the same projections in every layer.
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${t})$`);
    } catch {
      return fail('target_modules', `is the regex ${JSON.stringify(t)}, which JavaScript cannot parse`);
    }
    const per = Array.from({ length: cfg.numLayers }, (_, i) => PROJECTIONS.filter((p) => re.test(peftModule(i, p))).join(','));
    if (new Set(per).size !== 1 || per[0] === '') fail('target_modules', `regex ${JSON.stringify(t)} must select the same projections in every layer; ${all}`);
    return per[0].split(',') as Projection[];
  }
  return fail('target_modules', `is ${JSON.stringify(t)}; ${all}`);
}

/** Read and validate an adapter folder against the base model it is meant for. */
export async function readPeftAdapter(src: FileSource, cfg: ModelConfig, onProgress?: ProgressFn): Promise<LoraWeights> {
  const files = await src.list();
  if (!files.includes(ADAPTER_WEIGHTS) && files.includes('adapter_model.bin')) {
    throw new ModelLoadError('adapter_model.bin', 'is a pickle file; only adapter_model.safetensors is read. Re-save the adapter with save_pretrained(..., safe_serialization=True)');
  }
  const config = parseAdapterConfig(await readJson(src, ADAPTER_CONFIG), cfg);
  const h = await readSafetensorsHeader(src, ADAPTER_WEIGHTS);
  const R = config.rank;

  // Every key must be a LoRA matrix of a targeted projection in a real layer.
  const byKey = new Map<string, string>(); // canonical key -> key in the file
  const unexpected: string[] = [];
  for (const name of h.tensors.keys()) {
    const m = KEY_RE.exec(name);
    const ok = m && Number(m[1]) < cfg.numLayers && config.targets.includes(m[3] as Projection);
    if (!ok) unexpected.push(name);
    else byKey.set(peftKey(Number(m[1]), m[3] as Projection, m[4] as 'A' | 'B'), name);
  }
  if (unexpected.length) {
    throw new ModelLoadError(ADAPTER_WEIGHTS, `has ${unexpected.length} key(s) that are not LoRA matrices of target_modules [${config.targets.map((p) => `${p}_proj`).join(', ')}] in layers 0..${cfg.numLayers - 1}: ${unexpected.slice(0, 5).map((n) => `"${n}"`).join(', ')}; the adapter was trained for another model or adapter_config.json is wrong`, unexpected[0]);
  }

  const pairs: LoraWeights['pairs'] = new Map();
  const total = h.fileSize - h.dataStart;
  let loaded = 0;
  for (let i = 0; i < cfg.numLayers; i++) {
    for (const p of config.targets) {
      const [out, inp] = projShape(cfg, p);
      const get = async (m: 'A' | 'B', shape: [number, number]) => {
        const key = peftKey(i, p, m);
        const expect = `[${shape.join(', ')}] (lora_${m} is ${m === 'A' ? '[r, in_features]' : '[out_features, r]'}, r=${R})`;
        const t = h.tensors.get(byKey.get(key) ?? key);
        if (!t) throw new ModelLoadError(ADAPTER_WEIGHTS, `missing key "${key}", expected shape ${expect}`, key);
        if (t.shape.length !== 2 || t.shape[0] !== shape[0] || t.shape[1] !== shape[1]) {
          throw new ModelLoadError(ADAPTER_WEIGHTS, `key "${t.name}" has shape [${t.shape.join(', ')}], expected ${expect}`, t.name);
        }
        loaded += t.end - t.begin;
        return (await readTensor(src, t)).data;
      };
      pairs.set(loraKey(i, p), { A: await get('A', [R, inp]), B: await get('B', [out, R]) });
      onProgress?.({ file: ADAPTER_WEIGHTS, loadedBytes: loaded, totalBytes: total, stage: 'adapter' });
    }
  }
  return { config, pairs };
}
