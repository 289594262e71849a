// The `plan-run` request's figures (src/workers/engine/plan.ts) for the shipped agent-tiny model and
// the configs/ presets: the plan equals planTraining called with the config's values written out
// here (RL: batch_size x group_size rows of max_tokens; SFT: data.max_length), a too-long sequence
// is refused naming the config field, and a buffer above the device limit says "does not fit".
// planOfRun (src/run/run-plan.ts, the plan of RL runs' `started`) gives the same figures.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { parseConfig } from '../../../src/rl/config-validate';
import { planTraining } from '../../../src/train/memory-plan';
import { inspectModel } from '../../../src/workers/engine/inspect';
import { planRequest, planRun } from '../../../src/workers/engine/plan';
import { planOfRun } from '../../../src/run/run-plan';
import type { ModelConfig } from '../../../src/model/types';

const MODEL_DIR = 'public/models/agent-tiny';
const BIG = { maxBufferSize: 2 ** 30, maxStorageBufferBindingSize: 2 ** 30 };
const preset = (file: string, extra = ''): string => readFileSync(`configs/${file}`, 'utf8') + extra;

async function modelConfig(): Promise<ModelConfig> {
  const r = await inspectModel(new NodeDirSource(MODEL_DIR));
  if (!r.config) throw new Error(`agent-tiny unreadable: ${JSON.stringify(r.problems)}`);
  return r.config;
}

describe('plan-run', () => {
  it('GRPO preset: planTraining of batch_size x group_size rows of max_tokens, LoRA r8', async () => {
    const mc = await modelConfig();
    const cfg = parseConfig(preset('agent_grpo.yaml'), 'config.yaml');
    const got = planRun(mc, cfg, BIG);
    const want = planTraining(mc, {
      mode: 'lora', quant: 'none', quantEmbeddings: false, lora: { rank: 8, targets: [...cfg.lora.targets] },
      batchSize: 4 * 8, microBatch: 32, seqLen: 320, recompute: false, maxRows: 512, valueHead: false, frozenReference: false,
    });
    expect(got.rows).toBe(32);
    expect(got.seqLen).toBe(320);
    expect(got.plan).toEqual(want);
    expect(got.plan.total).toBeGreaterThan(got.plan.weightsBytes);
    expect(got.problem).toBeNull();
    // The plan every RL run reports in `started` (CLI train and the worker) is this one.
    expect(planOfRun(mc, cfg)).toEqual({ plan: want, shape: got.shape });
    expect(planOfRun(mc, parseConfig(preset('agent_grpo.yaml').replace('max_tokens: 320', 'max_tokens: 900'), 'config.yaml'))).toBeNull();
    console.log(`agent_grpo on agent-tiny: total ${got.plan.total} B, largest buffer ${got.plan.largestBuffer.bytes} B (${got.plan.largestBuffer.row})`);
  });

  it('through the worker entry (config.json read from the folder) gives the same plan', async () => {
    const yaml = preset('agent_grpo.yaml');
    const viaRequest = await planRequest(new NodeDirSource(MODEL_DIR), yaml, BIG);
    expect(viaRequest).toEqual(planRun(await modelConfig(), parseConfig(yaml, 'config.yaml'), BIG));
  });

  it('longer sequences and bigger micro-batches cost more bytes (the plan follows the config)', async () => {
    const mc = await modelConfig();
    const base = preset('agent_grpo.yaml');
    const small = planRun(mc, parseConfig(base, 'config.yaml'), BIG);
    const longer = planRun(mc, parseConfig(base.replace('max_tokens: 320', 'max_tokens: 480'), 'config.yaml'), BIG);
    const wider = planRun(mc, parseConfig(base.replace('batch_size: 4 ', 'batch_size: 8 ').replace('micro_batch_size: 32', 'micro_batch_size: 64'), 'config.yaml'), BIG);
    expect(wider.rows).toBe(64);
    expect(longer.plan.total).toBeGreaterThan(small.plan.total);
    expect(wider.plan.total).toBeGreaterThanOrEqual(small.plan.total);   // passes are split by maxRows 512: one 320-token episode each
  });

  it('refuses a sequence longer than the model handles, naming rollout.max_tokens', async () => {
    const mc = await modelConfig();
    const cfg = parseConfig(preset('agent_grpo.yaml').replace('max_tokens: 320', 'max_tokens: 900'), 'config.yaml');
    expect(() => planRun(mc, cfg, BIG)).toThrow(/rollout\.max_tokens is 900.*lower rollout\.max_tokens to 512/);
  });

  it('a buffer above the device limit does not fit, with the limit and what to lower', async () => {
    const mc = await modelConfig();
    const cfg = parseConfig(preset('agent_grpo.yaml'), 'config.yaml');
    const largest = planRun(mc, cfg, BIG).plan.largestBuffer.bytes;
    const r = planRun(mc, cfg, { maxBufferSize: 2 ** 30, maxStorageBufferBindingSize: largest - 16 });
    expect(r.problem).toMatch(/^does not fit: .* > this device's maxStorageBufferBindingSize .*; (lower rollout\.batch_size|set model\.quant|pick a smaller)/);
    expect(planRun(mc, cfg, { maxBufferSize: largest, maxStorageBufferBindingSize: largest }).problem).toBeNull();
  });
});
