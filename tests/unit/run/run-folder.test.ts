// Run folders that survive interruptions (src/train/write-files.ts, run-folder.ts), no GPU: a
// checkpoint written atomically, then every state an interrupted write can leave (a half-written
// .tmp, a complete .tmp beside .old, an old final beside a newer complete .tmp, step-N folders
// with an incomplete newest one, an old SFT run's checkpoint/): the newest complete checkpoint is
// picked and moved under its final name, side folders are removed, JSON-lines logs are cut past
// its step, and keep-last-N removes only older complete folders.
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
import { checkpointSlots, cutJsonl, pruneCheckpoints, recoverCheckpoint } from '../../../src/run/run-folder';
import { prepareResume } from '../../../src/run/resume';
import { recordRun } from '../../../src/run/recorder';
import { checkpointPath } from '../../../src/run/layout';
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

const ckpt = (out: string, step: number, side = '') => join(out, 'checkpoints', `step-${step}${side}`);
const recover = (out: string, log: (l: string) => void = quiet) => checkpointSlots(new NodeFsStorage(out)).then((slots) => recoverCheckpoint(new NodeFsStorage(out), slots, cfg, stepOf, log));

describe('atomic checkpoint folders and recovery', () => {
  it('replaces a folder atomically and keeps no side folders', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(ckpt(out, 2), files(1));
    await writeFilesAtomic(ckpt(out, 2), files(2));
    expect(readdirSync(join(out, 'checkpoints'))).toEqual(['step-2']);
    expect((await recover(out))!.step).toBe(2);
  });

  it('ignores a half-written step-N.tmp and removes it', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(ckpt(out, 1), files(1));
    await halfWritten(ckpt(out, 2, '.tmp'), 2);
    const logs: string[] = [];
    const found = await recover(out, (s) => logs.push(s));
    console.log(logs.join('').trim());
    expect(found!.step).toBe(1);
    expect(found!.dir).toBe('checkpoints/step-1');
    expect(readdirSync(join(out, 'checkpoints'))).toEqual(['step-1']);
    expect(logs.join('')).toMatch(/ignoring an incomplete checkpoint .*step-2\.tmp.*state\.json/);
  });

  it('takes a complete step-N.tmp (killed between the renames) over step-N.old', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(ckpt(out, 2), files(1));
    await writeFiles(ckpt(out, 2, '.tmp'), files(2));
    renameSync(ckpt(out, 2), ckpt(out, 2, '.old'));
    expect((await recover(out))!.step).toBe(2);
    expect(readdirSync(join(out, 'checkpoints'))).toEqual(['step-2']);
    expect((await recover(out))!.step).toBe(2);
  });

  it('takes a complete step-N.tmp newer than the last final folder', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(ckpt(out, 1), files(1));
    await writeFiles(ckpt(out, 2, '.tmp'), files(2));
    expect((await recover(out))!.step).toBe(2);
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['step-1', 'step-2']);
  });

  it('an SFT run made before the one layout: checkpoint/ is read as its step, left in place, and a newer step-N wins', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await writeFilesAtomic(join(out, 'checkpoint'), files(3));
    writeFileSync(join(out, 'metrics.jsonl'), [1, 2, 3, 4].map((s) => `{"step":${s},"loss":1}\n`).join(''));
    const r = await prepareResume(new NodeFsStorage(out), cfg, 'sft', quiet);
    expect([r.step, r.dir, r.state!.step, r.cut]).toEqual([3, 'checkpoint', 3, 1]);
    expect(readdirSync(out).sort()).toEqual(['checkpoint', 'metrics.jsonl']);
    await writeFilesAtomic(ckpt(out, 5), files(5));
    const again = await prepareResume(new NodeFsStorage(out), cfg, 'sft', quiet);
    expect([again.step, again.dir]).toEqual([5, 'checkpoints/step-5']);
  });

  it('the newest complete step-N; an incomplete newer one is removed', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    for (const s of [1, 2]) await writeFilesAtomic(join(out, 'checkpoints', `step-${s}`), files(s));
    await halfWritten(join(out, 'checkpoints', 'step-3.tmp'), 3);
    const found = await recoverCheckpoint(new NodeFsStorage(out), await checkpointSlots(new NodeFsStorage(out)), cfg, stepOf, quiet);
    expect(found!.step).toBe(2);
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['step-1', 'step-2']);
  });

  it('starts over when only half-written side folders exist, and refuses unreadable final folders', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    await halfWritten(join(out, 'checkpoints', 'step-1.tmp'), 1);
    expect(await recoverCheckpoint(new NodeFsStorage(out), await checkpointSlots(new NodeFsStorage(out)), cfg, stepOf, quiet)).toBeNull();
    expect(readdirSync(join(out, 'checkpoints'))).toEqual([]);
    mkdirSync(join(out, 'checkpoints', 'step-4'));
    writeFileSync(join(out, 'checkpoints', 'step-4', 'state.json'), '{"magic": "something else"}');
    await expect(recoverCheckpoint(new NodeFsStorage(out), await checkpointSlots(new NodeFsStorage(out)), cfg, stepOf, quiet)).rejects.toThrow(/no checkpoint could be read:\n.*step-4.*not a training checkpoint/);
  });

  it('keep-last-N removes the older complete step folders only, never the new one; 0 keeps all', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    const s = new NodeFsStorage(out);
    for (const n of [1, 2, 3]) await writeFilesAtomic(ckpt(out, n), files(n));
    await halfWritten(ckpt(out, 4, '.tmp'), 4);
    expect(await pruneCheckpoints(s, 0, 3)).toEqual([]);
    expect(await pruneCheckpoints(s, 2, 3)).toEqual(['checkpoints/step-1']);
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['step-2', 'step-3', 'step-4.tmp']);
    expect(await pruneCheckpoints(s, 1, 3)).toEqual(['checkpoints/step-2']);
    expect((await recover(out))!.step).toBe(3);
  });

  it('a recorded run with keep 2 over 4 checkpoints keeps the last 2 and still resumes from the newest', async () => {
    const out = mkdtempSync(join(tmpdir(), 'run-folder-'));
    const s = new NodeFsStorage(out);
    const emit = recordRun(s, { keepCheckpoints: 2 });
    for (const n of [1, 2, 3, 4]) {
      await emit({ kind: 'metrics', row: { step: n, loss: 1 / n } });
      await emit({ kind: 'checkpoint', step: n, path: checkpointPath(n), files: files(n) });
      expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(n === 1 ? ['step-1'] : [`step-${n - 1}`, `step-${n}`]);
    }
    await emit({ kind: 'metrics', row: { step: 5, loss: 0.2 } });
    const r = await prepareResume(s, cfg, 'sft', quiet);
    expect([r.step, r.dir, r.state!.step, r.cut]).toEqual([4, 'checkpoints/step-4', 4, 1]);
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
