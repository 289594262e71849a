// The training checkpoint: a TrainState (step, schedule position, RNG state, mode, trainable
// tensors and AdamW moments) as two files: state.safetensors (f32 tensors named param/...,
// adam_m/..., adam_v/...) and state.json (everything else, with a magic and a version). Loading
// checks the magic, the version, the model it was trained for and every tensor's name and shape,
// naming the file and field at fault. Format: docs/train-state.md.
// Tested by tests/unit/train/train-checkpoint.test.ts (bit-exact round trip, every error).
import { ModelLoadError } from '../model/io/errors';
import { expectedTensors } from '../model/io/expected';
import { peftKey } from '../model/io/peft';
import { readSafetensorsHeader, readTensor } from '../model/io/safetensors';
import { writeSafetensors } from '../model/io/safetensors-write';
import { readJson, type FileSource } from '../model/io/source';
import { loraKey, PROJECTIONS, projShape, type HostTensor, type LoraConfig, type LoraWeights, type ModelConfig, type Projection, type TensorMap } from '../model/types';
import type { DataCursor } from './batches';
import { valueHeadShapes } from './value-head-params';

export const TRAIN_STATE_MAGIC = 'rl-studio/train-state';
export const TRAIN_STATE_VERSION = 1;
export const STATE_JSON = 'state.json';
export const STATE_TENSORS = 'state.safetensors';

export type TrainMode = 'lora' | 'full';

export interface TrainRngState {
  /** The data shuffler's position (batches.ts): the next batch of the stream. */
  data: DataCursor;
  /** The seed lora_init used for A (LoRA mode), so a run can be re-created from scratch. */
  loraInitSeed: number;
  /** Sampling seed of RL rollouts (GRPO), when there is one. */
  samplerSeed?: number;
}

/** The shape of the model a checkpoint was trained for (checked on load before any tensor). */
export interface ModelShape {
  architecture: string;
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
}

export interface TrainState {
  /** TRAIN_STATE_VERSION when made by this build. */
  version: number;
  mode: TrainMode;
  /** The training config object as given (any JSON). */
  config: Record<string, unknown>;
  /** Optimizer updates taken. */
  step: number;
  /** Position of the learning-rate schedule (lr_at(schedule, step)) and the last lr used. */
  schedule: { step: number; lr: number };
  rng: TrainRngState;
  /** The adapter's config (LoRA mode only). */
  lora?: LoraConfig;
  model: ModelShape;
  /** LoRA: PEFT keys (peftKey) of A [R, in] and B [out, R]. Full: HF weight names. */
  params: TensorMap;
  /** AdamW moments by the params' names (empty before the first update) and t of the bias correction. */
  adam: { m: TensorMap; v: TensorMap; t: number };
  /** The last logged metrics; non-finite values are stored as null. */
  metrics?: Record<string, number | null>[];
}

export function modelShape(cfg: ModelConfig): ModelShape {
  const { architecture, vocabSize, hiddenSize, intermediateSize, numLayers, numHeads, numKvHeads, headDim } = cfg;
  return { architecture, vocabSize, hiddenSize, intermediateSize, numLayers, numHeads, numKvHeads, headDim };
}

/** LoRA weights -> params by PEFT key (the tensors are shared, not copied). */
export function loraParams(lora: LoraWeights, cfg: ModelConfig): TensorMap {
  const R = lora.config.rank;
  const out: TensorMap = new Map();
  for (let i = 0; i < cfg.numLayers; i++) {
    for (const p of lora.config.targets) {
      const pair = lora.pairs.get(loraKey(i, p));
      if (!pair) throw new Error(`loraParams: no pair for layer ${i} ${p}_proj`);
      const [o, k] = projShape(cfg, p);
      out.set(peftKey(i, p, 'A'), { shape: [R, k], data: pair.A });
      out.set(peftKey(i, p, 'B'), { shape: [o, R], data: pair.B });
    }
  }
  return out;
}

/** Params by PEFT key -> LoRA weights (shared arrays). */
export function loraFromParams(params: TensorMap, config: LoraConfig, cfg: ModelConfig): LoraWeights {
  const pairs: LoraWeights['pairs'] = new Map();
  for (const [name, shape] of expectedParams('lora', cfg, config)) {
    const t = params.get(name);
    const n = shape[0] * shape[1];
    if (!t || t.data.length !== n) throw new Error(`loraFromParams: "${name}" ${t ? `has ${t.data.length} values` : 'is missing'}; expected [${shape.join(', ')}]`);
  }
  for (let i = 0; i < cfg.numLayers; i++) {
    for (const p of config.targets) pairs.set(loraKey(i, p), { A: params.get(peftKey(i, p, 'A'))!.data, B: params.get(peftKey(i, p, 'B'))!.data });
  }
  return { config, pairs };
}

/** Names and shapes of the trainable tensors of a mode. */
export function expectedParams(mode: TrainMode, cfg: ModelConfig, lora?: LoraConfig): Map<string, number[]> {
  if (mode === 'full') return expectedTensors(cfg);
  if (!lora) throw new Error('expectedParams: LoRA mode needs the adapter config');
  const m = new Map<string, number[]>();
  for (let i = 0; i < cfg.numLayers; i++) {
    for (const p of lora.targets) {
      const [o, k] = projShape(cfg, p);
      m.set(peftKey(i, p, 'A'), [lora.rank, k]);
      m.set(peftKey(i, p, 'B'), [o, lora.rank]);
    }
  }
  return m;
}

const finiteOrNull = (rows: Record<string, number | null>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' && Number.isFinite(v) ? v : null])));

/** state.safetensors + state.json (in this order). */
export function saveTrainState(state: TrainState): Map<string, Uint8Array> {
  if (state.mode === 'lora' && !state.lora) throw new Error('saveTrainState: LoRA mode needs state.lora (the adapter config)');
  const tensors: [string, HostTensor][] = [];
  for (const [name, t] of state.params) tensors.push([`param/${name}`, t]);
  for (const [kind, map] of [['adam_m', state.adam.m], ['adam_v', state.adam.v]] as const) {
    for (const [name, t] of map) {
      if (!state.params.has(name)) throw new Error(`saveTrainState: ${kind} has "${name}", which is not a parameter`);
      tensors.push([`${kind}/${name}`, t]);
    }
  }
  const json = {
    magic: TRAIN_STATE_MAGIC,
    version: TRAIN_STATE_VERSION,
    mode: state.mode,
    step: state.step,
    schedule: state.schedule,
    rng: state.rng,
    ...(state.lora ? { lora: state.lora } : {}),
    model: state.model,
    adam: { t: state.adam.t },
    config: state.config,
    metrics: finiteOrNull(state.metrics ?? []),
    tensors: { file: STATE_TENSORS, params: state.params.size, moments: state.adam.m.size },
  };
  // The tensors first: a folder written in this order and cut short has no state.json, so it never
  // passes for a checkpoint (write-files.ts flushes each file before the next).
  return new Map([
    [STATE_TENSORS, writeSafetensors(tensors, { format: 'pt', content: TRAIN_STATE_MAGIC })],
    [STATE_JSON, new TextEncoder().encode(JSON.stringify(json, null, 1) + '\n')],
  ]);
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a checkpoint folder; with `cfg`, checks it was trained for this model. */
export async function loadTrainState(src: FileSource, cfg?: ModelConfig): Promise<TrainState> {
  const j = await readJson(src, STATE_JSON);
  const fail = (field: string, msg: string): never => {
    throw new ModelLoadError(STATE_JSON, `"${field}" ${msg}`, field);
  };
  if (!isObj(j) || j.magic !== TRAIN_STATE_MAGIC) {
    throw new ModelLoadError(STATE_JSON, `"magic" is ${JSON.stringify(isObj(j) ? j.magic : j)?.slice(0, 40)}, not "${TRAIN_STATE_MAGIC}": this is not a training checkpoint (pick the folder holding state.json and state.safetensors)`, 'magic');
  }
  if (j.version !== TRAIN_STATE_VERSION) {
    fail('version', `is ${JSON.stringify(j.version)}; this build reads version ${TRAIN_STATE_VERSION}${typeof j.version === 'number' && j.version > TRAIN_STATE_VERSION ? ' (the checkpoint is newer: update the studio)' : ''}`);
  }
  const int = (v: unknown, field: string) => (Number.isInteger(v) && (v as number) >= 0 ? (v as number) : fail(field, `is ${JSON.stringify(v)}; expected an integer >= 0`));
  const mode = j.mode === 'lora' || j.mode === 'full' ? j.mode : fail('mode', `is ${JSON.stringify(j.mode)}; expected "lora" or "full"`);
  const step = int(j.step, 'step');
  if (!isObj(j.schedule) || typeof j.schedule.lr !== 'number') fail('schedule', `is ${JSON.stringify(j.schedule)}; expected {"step", "lr"}`);
  const schedule = { step: int((j.schedule as Json).step, 'schedule.step'), lr: (j.schedule as Json).lr as number };
  const rng = readRng(j.rng, fail);
  const lora = mode === 'lora' ? readLora(j.lora, fail) : undefined;
  const model = readModelShape(j.model, fail);
  if (cfg) checkModel(model, cfg);
  if (!isObj(j.adam)) fail('adam', 'is missing; expected {"t"}');
  const t = int((j.adam as Json).t, 'adam.t');
  if (!isObj(j.config)) fail('config', 'is missing or not an object (the training config)');
  if (!Array.isArray(j.metrics ?? [])) fail('metrics', 'is not a list');

  // Tensors: every expected parameter (when the model is known), moments for all of them once t > 0.
  const h = await readSafetensorsHeader(src, STATE_TENSORS);
  const want = cfg ? expectedParams(mode, cfg, lora) : null;
  const params: TensorMap = new Map(), m: TensorMap = new Map(), v: TensorMap = new Map();
  for (const [key, info] of h.tensors) {
    const slash = key.indexOf('/');
    const kind = key.slice(0, slash), name = key.slice(slash + 1);
    const into = kind === 'param' ? params : kind === 'adam_m' ? m : kind === 'adam_v' ? v : null;
    if (!into) throw new ModelLoadError(STATE_TENSORS, `has tensor "${key}"; names start with param/, adam_m/ or adam_v/`, key);
    // PPO's value head (value-head-params.ts) rides along as optional tensors.
    const shape = want?.get(name) ?? (cfg ? valueHeadShapes(cfg.hiddenSize).get(name) : undefined);
    if (want && !shape) throw new ModelLoadError(STATE_TENSORS, `has tensor "${key}", which a ${mode} run of this model does not train${mode === 'lora' ? ` (targets ${lora!.targets.join(', ')}, r=${lora!.rank})` : ''}`, key);
    if (shape && (info.shape.length !== shape.length || info.shape.some((d, i) => d !== shape[i]))) {
      throw new ModelLoadError(STATE_TENSORS, `tensor "${key}" has shape [${info.shape.join(', ')}], expected [${shape.join(', ')}] for this model`, key);
    }
    into.set(name, await readTensor(src, info));
  }
  const names = want ? [...want.keys()] : [...params.keys()];
  const missing = (map: TensorMap, kind: string) => {
    const n = names.find((x) => !map.has(x));
    if (n !== undefined) throw new ModelLoadError(STATE_TENSORS, `missing tensor "${kind}/${n}"${want ? ` [${want.get(n)!.join(', ')}]` : ''}; the checkpoint is incomplete`, `${kind}/${n}`);
  };
  missing(params, 'param');
  if (t > 0 || m.size || v.size) {
    missing(m, 'adam_m');
    missing(v, 'adam_v');
  }
  for (const [kind, map] of [['adam_m', m], ['adam_v', v]] as const) {
    for (const [name, x] of map) {
      const p = params.get(name);
      if (!p) throw new ModelLoadError(STATE_TENSORS, `has "${kind}/${name}" without "param/${name}"`, `${kind}/${name}`);
      if (p.data.length !== x.data.length) throw new ModelLoadError(STATE_TENSORS, `"${kind}/${name}" has ${x.data.length} values but the parameter ${p.data.length}`, `${kind}/${name}`);
    }
  }
  return {
    version: TRAIN_STATE_VERSION, mode, config: j.config as Json, step, schedule, rng, ...(lora ? { lora } : {}), model,
    params, adam: { m, v, t }, metrics: (j.metrics ?? []) as Record<string, number | null>[],
  };
}

function readRng(v: unknown, fail: (f: string, m: string) => never): TrainRngState {
  if (!isObj(v) || !isObj(v.data)) return fail('rng', `is ${JSON.stringify(v)}; expected {"data": {"seed", "epoch", "position"}, "loraInitSeed"}`);
  const d = v.data;
  for (const k of ['seed', 'epoch', 'position']) if (!Number.isInteger(d[k])) fail(`rng.data.${k}`, `is ${JSON.stringify(d[k])}; expected an integer`);
  if (!Number.isInteger(v.loraInitSeed)) fail('rng.loraInitSeed', `is ${JSON.stringify(v.loraInitSeed)}; expected an integer`);
  const out: TrainRngState = { data: { seed: d.seed as number, epoch: d.epoch as number, position: d.position as number }, loraInitSeed: v.loraInitSeed as number };
  if (v.samplerSeed !== undefined) {
    if (!Number.isInteger(v.samplerSeed)) fail('rng.samplerSeed', `is ${JSON.stringify(v.samplerSeed)}; expected an integer`);
    out.samplerSeed = v.samplerSeed as number;
  }
  return out;
}

function readLora(v: unknown, fail: (f: string, m: string) => never): LoraConfig {
  if (!isObj(v)) return fail('lora', 'is missing; a LoRA checkpoint records {"rank", "alpha", "useRslora", "targets"}');
  if (!Number.isInteger(v.rank) || (v.rank as number) <= 0) fail('lora.rank', `is ${JSON.stringify(v.rank)}; expected a positive integer`);
  if (typeof v.alpha !== 'number') fail('lora.alpha', `is ${JSON.stringify(v.alpha)}; expected a number`);
  if (typeof v.useRslora !== 'boolean') fail('lora.useRslora', `is ${JSON.stringify(v.useRslora)}; expected true or false`);
  const targets = v.targets;
  if (!Array.isArray(targets) || !targets.length || !targets.every((p) => PROJECTIONS.includes(p as Projection))) {
    fail('lora.targets', `is ${JSON.stringify(targets)}; expected projections among ${PROJECTIONS.join(', ')}`);
  }
  return { rank: v.rank as number, alpha: v.alpha as number, useRslora: v.useRslora as boolean, targets: targets as Projection[] };
}

const SHAPE_FIELDS = ['vocabSize', 'hiddenSize', 'intermediateSize', 'numLayers', 'numHeads', 'numKvHeads', 'headDim'] as const;

function readModelShape(v: unknown, fail: (f: string, m: string) => never): ModelShape {
  if (!isObj(v) || typeof v.architecture !== 'string') return fail('model', `is ${JSON.stringify(v)}; expected the shape of the model trained`);
  for (const k of SHAPE_FIELDS) if (!Number.isInteger(v[k])) fail(`model.${k}`, `is ${JSON.stringify(v[k])}; expected an integer`);
  return v as unknown as ModelShape;
}

function checkModel(saved: ModelShape, cfg: ModelConfig): void {
  const now = modelShape(cfg);
  const diff = (['architecture', ...SHAPE_FIELDS] as const).filter((k) => saved[k] !== now[k]);
  if (diff.length) {
    throw new ModelLoadError(STATE_JSON, `"model" was trained for another model: ${diff.map((k) => `${k} ${saved[k]} (this model: ${now[k]})`).join(', ')}; load the base model the checkpoint was made with`, `model.${diff[0]}`);
  }
}
