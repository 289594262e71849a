// Run folders that survive interruptions (src/train/write-files.ts, run-folder.ts), no GPU: a
// checkpoint written atomically, then every state an interrupted write can leave (a half-written
// .tmp, a complete .tmp beside .old, an old final beside a newer complete .tmp, RL step-N folders
// with an incomplete newest one): the newest complete checkpoint is picked and moved under its
// final name, side folders are removed, and JSON-lines logs are cut past its step.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model/hf-config';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { readJson } from '../../../src/model/io/source';
import type { ModelConfig } from '../../../src/model/types';
import { lora_init } from '../../../src/reference/lora';
import { loraParams, modelShape, saveTrainState, STATE_TENSORS, type TrainState } from '../../../src/train/checkpoint';
import { NodeFsStorage } from '../../../src/run/node-storage';
import { cutJsonl, recoverCheckpoint, rlSlots, sftSlots } from '../../../src/run/run-folder';
import { writeFiles, writeFilesAtomic } from '../../../src/train/write-files';

let cfg: ModelConfig;
beforeAll(async () => {
  cfg = parseModelConfig(await readJson(new NodeDirSource(join(__dirname, '../../fixtures/goldens/tiny-qwen2')), 'config.json'));
});

/** A LoRA checkpoint of the tiny fixture after `step` updates (rl_step = step for the RL layout). */
function files(step: number): Map<string, Uint8Array> {
  const lora = lora_init(cfg, { rank: 2, alpha: 4, useRslora: false, targets: ['q', 'v'] }, 3);
  const state: TrainState = {
    version: 1, mode: 'lora', step, schedule: { step, lr: 1e-3 }, config: { kind: 'sft', rl_step: step, sampler: { epoch: 0, index: step } },
    rng: { data: { seed: 1, epoch: 0, position: step }, loraInitSeed: 3 }, lora: lora.config, model: modelShape(cfg),
    params: loraParams(lora, cfg), adam: { m: new Map(), v: new Map(), t: 0 },
  };
  return saveTrainState(state);
}

/** What writeFilesAtomic leaves when killed after the tensors file: a .tmp without state.json. */
async function halfWritten(dir: string, step: number): Promise<void> {
  await writeFiles(dir, new Map([[STATE_TENSORS, files(step).get(STATE_TENSORS)!]]));
}

const stepOf = (s: TrainState) => s.step;
const quiet = () => undefined;

describe('atomic checkpoint folders and recovery', () => {
  it('replaces a folder atomically and keeps no side folders', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(join(out, 'checkpoint'), files(1));
    await writeFilesAtomic(join(out, 'checkpoint'), files(2));
    expect(readdirSync(out)).toEqual(['checkpoint']);
    expect((await recoverCheckpoint(new NodeFsStorage(out), await sftSlots(new NodeFsStorage(out)), cfg, stepOf, quiet))!.step).toBe(2);
  });

  it('ignores a half-written checkpoint.tmp and removes it', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(join(out, 'checkpoint'), files(1));
    await halfWritten(join(out, 'checkpoint.tmp'), 2);
    const logs: string[] = [];
    const found = await recoverCheckpoint(new NodeFsStorage(out), await sftSlots(new NodeFsStorage(out)), cfg, stepOf, (s) => logs.push(s));
    console.log(logs.join('').trim());
    expect(found!.step).toBe(1);
    expect(found!.dir).toBe('checkpoint');
    expect(readdirSync(out)).toEqual(['checkpoint']);
    expect(logs.join('')).toMatch(/ignoring an incomplete checkpoint .*checkpoint\.tmp.*state\.json/);
  });

  it('takes a complete checkpoint.tmp (killed between the renames) over checkpoint.old', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(join(out, 'checkpoint'), files(1));
    await writeFiles(join(out, 'checkpoint.tmp'), files(2));
    renameSync(join(out, 'checkpoint'), join(out, 'checkpoint.old'));
    const found = await recoverCheckpoint(new NodeFsStorage(out), await sftSlots(new NodeFsStorage(out)), cfg, stepOf, quiet);
    expect(found!.step).toBe(2);
    expect(readdirSync(out)).toEqual(['checkpoint']);
    expect((await recoverCheckpoint(new NodeFsStorage(out), await sftSlots(new NodeFsStorage(out)), cfg, stepOf, quiet))!.step).toBe(2);
  });

  it('takes a complete checkpoint.tmp newer than checkpoint', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(join(out, 'checkpoint'), files(1));
    await writeFiles(join(out, 'checkpoint.tmp'), files(2));
    expect((await recoverCheckpoint(new NodeFsStorage(out), await sftSlots(new NodeFsStorage(out)), cfg, stepOf, quiet))!.step).toBe(2);
    expect(readdirSync(out)).toEqual(['checkpoint']);
  });

  it('RL layout: the newest complete step-N; an incomplete newer one is removed', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    for (const s of [1, 2]) await writeFilesAtomic(join(out, 'checkpoints', `step-${s}`), files(s));
    await halfWritten(join(out, 'checkpoints', 'step-3.tmp'), 3);
    const found = await recoverCheckpoint(new NodeFsStorage(out), await rlSlots(new NodeFsStorage(out)), cfg, stepOf, quiet);
    expect(found!.step).toBe(2);
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['step-1', 'step-2']);
  });

  it('starts over when only half-written side folders exist, and refuses unreadable final folders', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await halfWritten(join(out, 'checkpoints', 'step-1.tmp'), 1);
    expect(await recoverCheckpoint(new NodeFsStorage(out), await rlSlots(new NodeFsStorage(out)), cfg, stepOf, quiet)).toBeNull();
    expect(readdirSync(join(out, 'checkpoints'))).toEqual([]);
    mkdirSync(join(out, 'checkpoints', 'step-4'));
    writeFileSync(join(out, 'checkpoints', 'step-4', 'state.json'), '{"magic": "something else"}');
    await expect(recoverCheckpoint(new NodeFsStorage(out), await rlSlots(new NodeFsStorage(out)), cfg, stepOf, quiet)).rejects.toThrow(/no checkpoint could be read:\n.*step-4.*not a training checkpoint/);
  });

  it('cuts JSON-lines rows past a step and a half-written last line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-folder-'));
    const f = join(dir, 'metrics.jsonl');
    writeFileSync(f, '{"step":1,"loss":2}\n{"step":2,"loss":1}\n{"step":3,"loss":0.5}\n{"step":4,"lo');
    expect(await cutJsonl(new NodeFsStorage(dir), 'metrics.jsonl', 2)).toBe(2);
    expect(readFileSync(f, 'utf8')).toBe('{"step":1,"loss":2}\n{"step":2,"loss":1}\n');
    expect(await cutJsonl(new NodeFsStorage(dir), 'metrics.jsonl', 2)).toBe(0);
    expect(await cutJsonl(new NodeFsStorage(dir), 'absent.jsonl', 0)).toBe(0);
    expect(existsSync(f + '.tmp')).toBe(false);
  });
});
