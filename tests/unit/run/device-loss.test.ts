// A GPU device lost mid-run (src/gpu/runtime.ts: a device destroyed by anything but the runtime
// itself counts as lost): a GRPO run on stories260K checkpoints step 1, its device is destroyed
// before step 2, and the loop ends with `failed` naming the lost device and checkpoints/step-1
// (the loss is reported asynchronously, so it surfaces during step 2 or its checkpoint); the
// recorder's status.json says the same, so the studio offers a resume from there. And the failure
// message of an error met while a device is being lost waits for the loss to settle.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/rl/config-validate';
import { fanOut, type RunEvent } from '../../../src/run/events';
import { nodeRecorder, openRun } from '../../../src/run/rl-node-run';
import { runTraining } from '../../../src/run/rl-run';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { getNodeGpu } from '../../../src/gpu/node-gpu';
import { GpuRuntime } from '../../../src/gpu/runtime';
import { OTHER_ERROR_WAIT_MS, failureMessage, looksLikeLoss } from '../../../src/run/failure';

const MODEL = join(STORIES_DIR, 'stories260K.bin');

describe('device loss mid-run', () => {
  it.skipIf(!existsSync(MODEL))('ends with failed naming the last checkpoint, in the event and status.json', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'device-loss-')), 'run');
    const cfg = resolveConfig({
      model: { path: MODEL, quant: 'none', template: 'plain' },
      data: { env: 'story', story_words: ['girl', 'big'] },
      env: { system_prompt: 'Write a story about {word}.' },
      rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 32, max_new_tokens: 4, prefill: ' Once upon a time' },
      grpo: { micro_batch_size: 4 },
      lora: { rank: 2, alpha: 4 },
      train: { steps: 4, seed: 3, recompute: false },
      log: { out_dir: out, checkpoint_every: 1, print_examples: 0 },
    }, 'device-loss.test');
    const lost: string[] = [];
    const run = await openRun(cfg, { log: () => undefined, tune: false });
    run.ctx.rt.onError((e) => lost.push(e.message));
    const events: RunEvent[] = [];
    try {
      await expect(runTraining({ ctx: run.ctx, tasks: run.tasks, baseModelName: 'stories260K',
        emit: fanOut(nodeRecorder(out, cfg), (e) => {
          events.push(e);
          // Step 1's checkpoint is written: the device goes away before step 2 runs.
          if (e.kind === 'checkpoint' && e.step === 1) run.ctx.rt.device.destroy();
        }) })).rejects.toThrow();
    } finally {
      await run.close(); // closing after the loss lets go of everything without throwing
    }
    const end = events[events.length - 1];
    console.log(`runtime error: ${lost[0]}; terminal event: ${JSON.stringify(end)}`);
    expect(lost[0]).toMatch(/GPU device was lost \(destroyed\)/);
    expect(end).toMatchObject({ kind: 'failed', lastCheckpoint: 'checkpoints/step-1' });
    if (end.kind !== 'failed') throw new Error('unreachable');
    expect(end.message).toMatch(/^The GPU device was lost \(destroyed\).*Reload the page/);
    expect(events.filter((e) => e.kind === 'checkpoint').map((e) => e.kind === 'checkpoint' && e.path)).toEqual(['checkpoints/step-1']);
    expect(JSON.parse(readFileSync(join(out, 'status.json'), 'utf8'))).toMatchObject({ state: 'failed', lastCheckpoint: 'checkpoints/step-1', message: end.message });
  }, 300_000);
});

describe('the failure message of an error met while the device is being lost', () => {
  it('an aborted mapAsync waits for the loss to settle, even past half a second; other errors do not wait for it', async () => {
    // Devices of their own (destroying the fork's shared device would end the other tests' runtimes).
    const { gpu } = await getNodeGpu();
    // The error a mapAsync meets when the device goes away (Dawn in Node: an AbortError, no message).
    const probe = await GpuRuntime.create(gpu);
    const buf = probe.device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const mapping = buf.mapAsync(GPUMapMode.READ);
    probe.device.destroy();
    const aborted = await mapping.then(() => null, (e: unknown) => e);
    const chromium = new DOMException("Failed to execute 'mapAsync' on 'GPUBuffer': Buffer was unmapped before mapping was resolved.", 'AbortError');
    expect(looksLikeLoss(aborted), `the real error: ${String(aborted)}`).toBe(true);
    expect([looksLikeLoss(chromium), looksLikeLoss(new Error('boom')), looksLikeLoss(new Error('linear: expected [4, 8], got [4, 9]'))]).toEqual([true, false, false]);

    // The loss settles 1.2 s after the error (as on a busy machine): the message still names it.
    const rt = await GpuRuntime.create(gpu);
    const t0 = performance.now();
    setTimeout(() => rt.device.destroy(), 1200);
    const named = await failureMessage(chromium, rt);
    console.log(`after ${(performance.now() - t0).toFixed(0)} ms: ${named}`);
    expect(named).toMatch(/^The GPU device was lost \(destroyed\).*\(then: Failed to execute 'mapAsync'/);

    // Any other error on a live device: its own text, without waiting for a loss.
    const live = await GpuRuntime.create(gpu);
    const t1 = performance.now();
    expect(await failureMessage(new Error('boom'), live)).toBe('boom');
    expect(performance.now() - t1).toBeLessThan(OTHER_ERROR_WAIT_MS + 1500);
    live.destroy();
  }, 60_000);
});
