// One run config for every trainer (src/run/config.ts, src/run/trainer-settings.ts), no GPU: the
// trainer: sft defaults, the one mapping to the SFT loop's settings (lora.rslora and
// rollout.batch_size reach it: two mappings used to drop them), `sft` options as shorthands for
// config fields, and the RL Trainer's settings from the same config.
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/util/args';
import { defaultsFor, parseConfig } from '../../../src/run/config';
import { rlTrainerConfigOf, sftFlagSets, sftInputOf } from '../../../src/run/trainer-settings';
import { resolveSftConfig } from '../../../src/run/sft-run';
import type { ModelConfig } from '../../../src/model/types';

const model = { maxPositions: 256 } as ModelConfig;   // resolveSftConfig reads only the context length

describe('one run config', () => {
  it('has trainer: sft defaults (one epoch, cosine, 2e-4, batch 8) and keeps RL defaults for RL', () => {
    const sft = defaultsFor('sft'), grpo = defaultsFor('grpo');
    expect([sft.train.steps, sft.optim.schedule, sft.optim.lr, sft.rollout.batch_size, sft.train.recompute, sft.log.checkpoint_every]).toEqual([0, 'cosine', 2e-4, 8, false, 0]);
    expect([grpo.train.steps, grpo.optim.schedule, grpo.optim.lr, grpo.rollout.batch_size]).toEqual([100, 'constant', 2e-5, 4]);
    expect(parseConfig('trainer: sft\nmodel: {path: m}\ndata: {dataset: d.jsonl}\n', 'c.yaml').optim.lr).toBe(2e-4);
    expect(parseConfig('model: {path: m}\n', 'c.yaml', { sets: ['trainer=sft', 'data.dataset=d.jsonl'] }).optim.schedule).toBe('cosine');
    expect(() => parseConfig('model: {path: m}\ntrain: {steps: 0}\n', 'c.yaml')).toThrow('c.yaml: train.steps is 0; grpo needs at least 1 step');
  });

  it('maps a config to the SFT settings in one place, lora.rslora and rollout.batch_size included', () => {
    const cfg = parseConfig('trainer: sft\nmodel: {path: m.bin}\ndata: {dataset: d.jsonl, max_length: 64, shuffle: false}\nrollout: {batch_size: 6}\n' +
      'grpo: {micro_batch_size: 16}\nlora: {rank: 4, alpha: 8, rslora: true, targets: [q, v]}\noptim: {lr: 0.001, max_grad_norm: 0}\ntrain: {steps: 7, seed: 3}\n', 'c.yaml');
    const input = sftInputOf(cfg);
    expect(input).toMatchObject({ batchSize: 6, microBatch: 6, useRslora: true, rank: 4, alpha: 8, targets: ['q', 'v'], lr: 0.001, steps: 7, seed: 3, maxLength: 64, shuffle: false, clip: 0 });
    const resolved = resolveSftConfig(input, { examples: 100, cfg: model });
    expect([resolved.batchSize, resolved.useRslora, resolved.clip, resolved.steps]).toEqual([6, true, null, 7]);
    // train.steps 0: one epoch of the data; data.max_length 0: the loop's own default.
    const epoch = resolveSftConfig(sftInputOf(defaultsFor('sft')), { examples: 20, cfg: model });
    expect([epoch.steps, epoch.batchSize, epoch.maxLength]).toEqual([3, 8, 256]);
  });

  it('reads sft options as --set shorthands of the same fields', () => {
    const args = parseArgs(['--rank', '4', '--targets', 'q_proj,v', '--batch-size', '2', '--shuffle', 'false', '--clip', '0', '--save-every', '2', '--quant-embeddings', '--rslora', 'true']);
    const sets = sftFlagSets(args.flags);
    expect(sets).toEqual(['lora.rank=4', 'lora.targets=[q, v]', 'lora.rslora=true', 'optim.max_grad_norm=0', 'rollout.batch_size=2', 'data.shuffle=false', 'log.checkpoint_every=2', 'model.quant_embeddings=true']);
    const cfg = parseConfig('trainer: sft\n', 'sft options', { sets, model: 'm.bin', dataset: 'd.jsonl' });
    expect(sftInputOf(cfg)).toMatchObject({ rank: 4, alpha: 8, targets: ['q', 'v'], useRslora: true, batchSize: 2, shuffle: false, clip: 0, saveEvery: 2 });
    expect(() => parseConfig('trainer: sft\n', 'sft options', { sets: sftFlagSets(parseArgs(['--rank', 'four']).flags), model: 'm', dataset: 'd' }))
      .toThrow('--set lora.rank=four: lora.rank is "four"; use an integer >= 1');
  });

  it('gives the RL Trainer the same LoRA and optimizer fields', () => {
    const cfg = parseConfig('model: {path: m}\nlora: {rank: 2, alpha: 4, rslora: true}\noptim: {lr: 0.01, schedule: cosine, warmup_steps: 1, max_grad_norm: 0}\ntrain: {steps: 5}\ngrpo: {num_iterations: 2}\n', 'c.yaml');
    const t = rlTrainerConfigOf(cfg);
    expect(t.params).toMatchObject({ mode: 'lora', config: { rank: 2, alpha: 4, useRslora: true } });
    expect(t.optimizer).toMatchObject({ maxGradNorm: null, schedule: { kind: 'cosine', lr: 0.01, warmupSteps: 1, totalSteps: 10 } });
  });
});
