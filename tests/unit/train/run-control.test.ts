// Run commands (src/train/run-control.ts): pause holds the loop until resume or stop, "checkpoint
// now" gives one checkpoint, stop ends the loop after a checkpoint. Then the SFT loop on
// stories260K driven by them mid-run: checkpoint now after update 1, a pause after update 2
// during which no update runs, stop after update 3 with its checkpoint (loadable, step 3) and the
// PEFT adapter trained so far on `cancelled` (as an RL run's Stop).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { MemorySource } from '../../../src/model/io/memory-source';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { loadTrainState } from '../../../src/train/checkpoint';
import { readSftJsonl } from '../../../src/train/data';
import { RunControl } from '../../../src/train/run-control';
import type { RunEvent } from '../../../src/run/events';
import { resolveSftConfig, SftRun } from '../../../src/run/sft-run';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { nodeRuntime } from '../helpers/gpu-helpers';

const STORIES = join(STORIES_DIR, 'stories260K.bin');
const tick = () => new Promise((r) => setTimeout(r, 10));

describe('run commands', () => {
  it('pauses until resume or stop, and asks for one checkpoint per checkpointNow', async () => {
    const c = new RunControl();
    expect(await c.beforeStep()).toBe('running');
    c.pause();
    let passed: string | null = null;
    void c.beforeStep().then((s) => { passed = s; });
    await tick();
    expect(passed).toBeNull();
    c.resume();
    await tick();
    expect(passed).toBe('running');
    c.pause();
    void c.beforeStep().then((s) => { passed = s; });
    c.stop();
    await tick();
    expect(passed).toBe('stopping');
    expect(c.takeCheckpointRequest()).toBe(false);
    c.checkpointNow();
    c.checkpointNow();
    expect([c.takeCheckpointRequest(), c.takeCheckpointRequest()]).toEqual([true, false]);
  });

  it.skipIf(!existsSync(STORIES))('drive the SFT loop mid-run: checkpoint now, pause / resume, stop with a checkpoint', async () => {
    const rt = await nodeRuntime();
    const m = await loadModelFiles(await openNodeModelSource(STORIES));
    const data = readSftJsonl(['Lily saw a ball.', 'Tom flew a kite.'].map((text) => JSON.stringify({ text })).join('\n'), 'stories.jsonl', { tokenizer: m.tokenizer, maxLength: 32 });
    const model = await GpuModel.load(rt, m.config, { read: (n) => m.weights.read(n), has: (n) => m.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
    const config = resolveSftConfig({ rank: 2, lr: 1e-2, batchSize: 2, steps: 10 }, { examples: 2, cfg: m.config });
    const run = await SftRun.create(rt, model, { config, data, baseModelName: 'stories260K' });
    const control = new RunControl();
    const saved: { step: number; files: Map<string, Uint8Array> }[] = [];
    const events: string[] = [];
    let cancelled: RunEvent | null = null;
    const ms = await run.run((e) => {
      if (e.kind === 'cancelled') cancelled = e;
      if (e.kind === 'metrics') {
        const s = e.row.step;
        events.push(`step ${s}`);
        if (s === 1) control.checkpointNow();
        if (s === 2) {
          control.pause();
          setTimeout(() => { events.push('resume'); control.resume(); }, 200);
        }
        if (s === 3) control.stop();
      }
      if (e.kind === 'checkpoint') { saved.push({ step: e.step, files: e.files! }); events.push(`checkpoint ${e.step}`); }
      if (e.kind === 'started' || e.kind === 'cancelled' || e.kind === 'finished') events.push(e.kind);
    }, config.steps, control);
    console.log(`events: ${events.join(', ')}`);
    expect(events).toEqual(['started', 'step 1', 'checkpoint 1', 'step 2', 'resume', 'step 3', 'checkpoint 3', 'cancelled']);
    expect(ms).toHaveLength(3);
    expect(run.step).toBe(3);
    const state = await loadTrainState(new MemorySource(saved[1].files), m.config);
    expect([state.step, state.adam.t]).toEqual([3, 3]);
    const end = cancelled as RunEvent | null;
    if (end?.kind !== 'cancelled') throw new Error('no cancelled event');
    expect([end.step, end.lastCheckpoint, end.export?.path]).toEqual([3, 'checkpoints/step-3', 'adapter']);
    expect([...(end.export?.files?.keys() ?? [])].sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    await run.dispose();
    model.dispose();
  }, 300_000);
});
