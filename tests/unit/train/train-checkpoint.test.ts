// Training checkpoints: bit-exact round trips of a LoRA state and a full-mode state of the tiny
// Qwen2 fixture (params, AdamW moments, step, schedule, RNG, config, metrics), a fresh state
// without moments, and every load error naming the file and field (magic, version, model,
// missing tensor, shape mismatch, stray tensor, missing moments).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemorySource } from '../../../src/model/io/memory-source';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { openWeights } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { parseModelConfig } from '../../../src/model/hf-config';
import { ModelLoadError } from '../../../src/model/io/errors';
import type { ModelConfig, TensorMap } from '../../../src/model/types';
import { lora_init } from '../../../src/reference/lora';
import { randomArray } from '../../../src/gpu/selftest';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { loadTrainState, loraFromParams, loraParams, modelShape, saveTrainState, STATE_JSON, STATE_TENSORS, type TrainState } from '../../../src/train/checkpoint';

const TINY = join(__dirname, '../../fixtures/goldens/tiny-qwen2');
let cfg: ModelConfig;

function randomLike(params: TensorMap, seed: number, positive = false): TensorMap {
  const out: TensorMap = new Map();
  for (const [name, t] of params) {
    const d = randomArray(t.data.length, seed++);
    if (positive) for (let i = 0; i < d.length; i++) d[i] = d[i] * d[i];
    out.set(name, { shape: t.shape.slice(), data: d });
  }
  return out;
}

function loraState(): TrainState {
  const lora = lora_init(cfg, { rank: 4, alpha: 8, useRslora: false, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] }, 11);
  for (const p of lora.pairs.values()) p.B.set(randomArray(p.B.length, 5));
  const params = loraParams(lora, cfg);
  return {
    version: 1, mode: 'lora', step: 37, schedule: { step: 37, lr: Math.PI * 1e-5 },
    config: { kind: 'sft', lr: 2e-5, schedule: { kind: 'cosine', warmupSteps: 3, totalSteps: 100 }, data: 'data.jsonl', batchSize: 4 },
    rng: { data: { seed: 7, epoch: 2, position: 3 }, loraInitSeed: 11, samplerSeed: 99 },
    lora: lora.config, model: modelShape(cfg), params,
    adam: { m: randomLike(params, 1000), v: randomLike(params, 2000, true), t: 37 },
    metrics: [{ step: 36, loss: 1.25, grad_norm: 0.5 }, { step: 37, loss: 1.1, grad_norm: Number.NaN }],
  };
}

const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

function expectSameTensors(a: TensorMap, b: TensorMap): number {
  expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
  let worst = 0;
  for (const [name, t] of a) {
    const u = b.get(name)!;
    expect(u.shape).toEqual(t.shape);
    expect(bits(u.data)).toEqual(bits(t.data));
    worst = Math.max(worst, maxAbsDiff(t.data, u.data));
  }
  return worst;
}

function expectSameState(a: TrainState, b: TrainState, label: string): void {
  const { params, adam, metrics, ...rest } = a;
  const { params: p2, adam: adam2, metrics: metrics2, ...rest2 } = b;
  expect(rest2).toEqual(rest);
  expect(adam2.t).toBe(adam.t);
  const d = Math.max(expectSameTensors(params, p2), expectSameTensors(adam.m, adam2.m), expectSameTensors(adam.v, adam2.v));
  expect(metrics2).toEqual((metrics ?? []).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number.isFinite(v) ? v : null]))));
  console.log(`${label}: ${params.size} params + ${adam.m.size}+${adam.v.size} moments, maxdiff=${d}`);
}

/** The saved files with state.json edited and/or tensors replaced. */
function edited(files: Map<string, Uint8Array>, edit: (j: Record<string, unknown>) => void, tensors?: Uint8Array): MemorySource {
  const j = JSON.parse(new TextDecoder().decode(files.get(STATE_JSON))) as Record<string, unknown>;
  edit(j);
  return new MemorySource({ [STATE_JSON]: JSON.stringify(j), [STATE_TENSORS]: tensors ?? files.get(STATE_TENSORS)! });
}

beforeAll(async () => {
  cfg = parseModelConfig(await readJson(new NodeDirSource(TINY), 'config.json'));
});

describe('TrainState save/load', () => {
  it('round-trips a LoRA state bit-exactly, and the adapter comes back from the params', async () => {
    const s = loraState();
    const files = saveTrainState(s);
    expect([...files.keys()]).toEqual([STATE_TENSORS, STATE_JSON]);
    const back = await loadTrainState(new MemorySource(files), cfg);
    expectSameState(s, back, 'lora state');
    const lora = loraFromParams(back.params, back.lora!, cfg);
    expect(lora.pairs.size).toBe(cfg.numLayers * 7);
    expect(bits(lora.pairs.get('1.down')!.A)).toEqual(bits(s.params.get('base_model.model.model.layers.1.mlp.down_proj.lora_A.weight')!.data));
    // Without the model config: the same state, no model checks.
    expectSameState(s, await loadTrainState(new MemorySource(files)), 'lora state (no model given)');
  });

  it('round-trips a full-mode state of the tiny Qwen2 weights, and a fresh state without moments', async () => {
    const params = await (await openWeights(new NodeDirSource(TINY))).readAll();
    const s: TrainState = {
      version: 1, mode: 'full', step: 5, schedule: { step: 5, lr: 3e-4 }, config: { lr: 3e-4 },
      rng: { data: { seed: 1, epoch: 0, position: 5 }, loraInitSeed: 0 }, model: modelShape(cfg), params,
      adam: { m: randomLike(params, 1), v: randomLike(params, 2, true), t: 5 },
    };
    expectSameState(s, await loadTrainState(new MemorySource(saveTrainState(s)), cfg), 'full state');
    const fresh: TrainState = { ...s, step: 0, adam: { m: new Map(), v: new Map(), t: 0 } };
    expectSameState(fresh, await loadTrainState(new MemorySource(saveTrainState(fresh)), cfg), 'fresh full state');
  });

  it('names the file and field of every problem', async () => {
    const s = loraState();
    const files = saveTrainState(s);
    const load = (src: MemorySource, c: ModelConfig | undefined = cfg) => loadTrainState(src, c);
    await expect(load(edited(files, (j) => { j.magic = 'safetensors'; }))).rejects.toThrow(/^state\.json: "magic" is "safetensors", not "rl-studio\/train-state"/);
    await expect(load(edited(files, (j) => { j.version = 2; }))).rejects.toThrow('state.json: "version" is 2; this build reads version 1 (the checkpoint is newer: update the studio)');
    await expect(load(edited(files, (j) => { j.mode = 'qlora'; }))).rejects.toThrow('state.json: "mode" is "qlora"; expected "lora" or "full"');
    await expect(load(edited(files, (j) => { delete (j.rng as Record<string, unknown>).loraInitSeed; }))).rejects.toThrow('state.json: "rng.loraInitSeed" is undefined');
    await expect(load(new MemorySource(files), { ...cfg, intermediateSize: 256 })).rejects.toThrow('state.json: "model" was trained for another model: intermediateSize 160 (this model: 256)');
    // LoRA rank in state.json says 8, tensors are rank 4.
    await expect(load(edited(files, (j) => { (j.lora as Record<string, unknown>).rank = 8; }))).rejects.toThrow(
      'state.safetensors: tensor "param/base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight" has shape [4, 64], expected [8, 64] for this model');
    // Fewer targets in state.json than tensors in the file.
    await expect(load(edited(files, (j) => { (j.lora as Record<string, unknown>).targets = ['q']; }))).rejects.toThrow(/has tensor "param\/.*k_proj\.lora_A\.weight", which a lora run of this model does not train/);

    const missingParam = { ...s, params: new Map(s.params), adam: { ...s.adam, m: new Map(s.adam.m), v: new Map(s.adam.v) } };
    const gone = 'base_model.model.model.layers.1.mlp.up_proj.lora_B.weight';
    missingParam.params.delete(gone);
    missingParam.adam.m.delete(gone);
    missingParam.adam.v.delete(gone);
    const err = await load(new MemorySource(saveTrainState(missingParam))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as ModelLoadError).message).toBe(`state.safetensors: missing tensor "param/${gone}" [160, 4]; the checkpoint is incomplete`);
    expect((err as ModelLoadError).item).toBe(`param/${gone}`);

    const noMoments = { ...s, adam: { ...s.adam, v: new Map<string, never>() } };
    await expect(load(new MemorySource(saveTrainState(noMoments)))).rejects.toThrow(/missing tensor "adam_v\/base_model\.model\.model\.layers\.0\.self_attn\.q_proj\.lora_A\.weight"/);
    await expect(load(new MemorySource({ 'config.json': '{}' }))).rejects.toThrow(/state\.json: missing/);
  });
});
