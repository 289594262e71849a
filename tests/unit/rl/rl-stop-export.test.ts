// A stopped RL run exports what it trained (src/run/rl-run.ts): Stop after step 1 of a GRPO run on
// stories260K ends with `cancelled` carrying the PEFT adapter, which the recorder writes as adapter/
// beside the step-1 checkpoint (the studio's Export panel and Playground read it); the event the page
// gets has no bytes (withoutFiles). Stopped before any step: no adapter.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig, type RlConfig } from '../../../src/rl/config-validate';
import { nodeRecorder, openRun } from '../../../src/run/rl-node-run';
import { runTraining } from '../../../src/run/rl-run';
import { fanOut, withoutFiles, type RunEvent } from '../../../src/run/events';
import { RunControl } from '../../../src/train/run-control';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const MODEL = join(STORIES_DIR, 'stories260K.bin');

function config(out: string): RlConfig {
  return resolveConfig({
    model: { path: MODEL, quant: 'none', template: 'plain' },
    data: { env: 'story', story_words: ['girl', 'big'] },
    env: { system_prompt: 'Write a story about {word}.' },
    rollout: { batch_size: 2, group_size: 2, max_turns: 1, max_tokens: 32, max_new_tokens: 4, prefill: ' Once upon a time' },
    grpo: { micro_batch_size: 4, entropy_coef: 0.05 },
    lora: { rank: 2, alpha: 4 },
    train: { steps: 5, seed: 3, recompute: false },
    log: { out_dir: out, checkpoint_every: 0, print_examples: 0 },
  }, 'rl-stop-export.test');
}

/** Runs until `stopAfter` steps are done (0: stopped before the first); the terminal event as the page gets it. */
async function stoppedRun(out: string, stopAfter: number): Promise<RunEvent> {
  const control = new RunControl();
  if (stopAfter === 0) control.stop();
  const run = await openRun(config(out), { log: () => undefined, tune: false, hooks: { on_step_end: (i) => { if (i.step === stopAfter) control.stop(); } } });
  let end: RunEvent | null = null;
  try {
    await runTraining({ ctx: run.ctx, tasks: run.tasks, control, baseModelName: 'stories260K',
      emit: fanOut(nodeRecorder(out), (e) => { if (e.kind === 'cancelled') end = withoutFiles(e); }) });
  } finally {
    await run.close();
  }
  if (!end) throw new Error('the run did not end with cancelled');
  return end;
}

describe('Stop exports the adapter trained so far', () => {
  it.skipIf(!existsSync(MODEL))('after step 1: cancelled carries adapter/, written beside checkpoints/step-1', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rl-stop-')), 'run');
    const end = await stoppedRun(out, 1);
    console.log(`terminal event: ${JSON.stringify(end)}; folder: ${readdirSync(out).sort().join(' ')}`);
    expect(end).toEqual({ kind: 'cancelled', step: 1, lastCheckpoint: 'checkpoints/step-1', export: { path: 'adapter' } });
    expect(readdirSync(join(out, 'adapter')).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    expect(JSON.parse(readFileSync(join(out, 'adapter', 'adapter_config.json'), 'utf8'))).toMatchObject({ peft_type: 'LORA', r: 2, lora_alpha: 4, base_model_name_or_path: 'stories260K' });
    expect(readdirSync(join(out, 'checkpoints'))).toEqual(['step-1']);
    // The CLI's recorder writes the end record too, so an imported folder says how it ended.
    expect(JSON.parse(readFileSync(join(out, 'status.json'), 'utf8'))).toMatchObject({ state: 'cancelled', step: 1, lastCheckpoint: 'checkpoints/step-1' });
  }, 300_000);

  it.skipIf(!existsSync(MODEL))('before any step: no adapter', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rl-stop-')), 'run');
    const end = await stoppedRun(out, 0);
    expect(end).toMatchObject({ kind: 'cancelled', step: 0, export: null });
    expect(existsSync(join(out, 'adapter'))).toBe(false);
  }, 300_000);
});
