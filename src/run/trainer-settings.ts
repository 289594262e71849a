// The ONE mapping from the run config (src/run/config.ts) to each trainer's own settings: the SFT
// loop's SftConfigInput (src/run/sft-run.ts) and the RL Trainer's params / optimizer / schedule
// (src/run/rl-node-run.ts). `sft` command-line options are shorthands for config fields (SFT_FLAGS).
// Tested by tests/unit/run/run-config.test.ts.
import type { SftConfigInput } from './sft-run';
import type { TrainerConfig } from '../train/trainer';
import type { RunConfig } from './config';
import { templateChoice } from '../agents/chat-template';

/** lora.alpha, with 0 standing for 2 x rank. */
export const loraAlphaOf = (c: RunConfig): number => c.lora.alpha || 2 * c.lora.rank;

/** SFT settings of a config (trainer: sft). train.steps 0 and data.max_length 0 leave SftRun's own defaults (one epoch, min(512, context)). */
export function sftInputOf(c: RunConfig): SftConfigInput {
  return {
    mode: c.lora.mode, rank: c.lora.rank, alpha: loraAlphaOf(c), useRslora: c.lora.rslora, targets: [...c.lora.targets],
    lr: c.optim.lr, schedule: c.optim.schedule, warmup: c.optim.warmup_steps, weightDecay: c.optim.weight_decay, clip: c.optim.max_grad_norm,
    ...(c.train.steps > 0 ? { steps: c.train.steps } : {}), batchSize: c.rollout.batch_size, microBatch: Math.min(c.grpo.micro_batch_size, c.rollout.batch_size),
    shuffle: c.data.shuffle, seed: c.train.seed, recompute: c.train.recompute, saveEvery: c.log.checkpoint_every,
    ...(c.data.max_length > 0 ? { maxLength: c.data.max_length } : {}),
  };
}

/** The SFT loader's template options of a config (model.template), as RL's agent loop reads them. */
export function sftTemplateOf(c: RunConfig): { template?: string; listTools: boolean } {
  const t = templateChoice(c.model.template);
  return { ...(t.template === undefined ? {} : { template: t.template }), listTools: t.listTools };
}

/** The SFT loader's longest example: data.max_length, else min(512, the model's context) (the studio's run and preview). */
export function sftMaxLength(c: RunConfig, maxPositions: number): number {
  return sftInputOf(c).maxLength ?? Math.min(512, maxPositions);
}

/** The RL Trainer's settings of a config: what to train (a fresh adapter or every weight), AdamW and the schedule. */
export function rlTrainerConfigOf(c: RunConfig): TrainerConfig {
  const o = c.optim;
  const schedule = o.schedule === 'cosine'
    ? { kind: 'cosine' as const, lr: o.lr, warmupSteps: o.warmup_steps, totalSteps: c.train.steps * c.grpo.num_iterations, minRatio: o.min_lr_ratio }
    : { kind: 'constant' as const, lr: o.lr, warmupSteps: o.warmup_steps };
  return {
    params: c.lora.mode === 'full' ? { mode: 'full' } : { mode: 'lora', config: { rank: c.lora.rank, alpha: loraAlphaOf(c), useRslora: c.lora.rslora, targets: [...c.lora.targets] }, seed: c.lora.init_seed },
    optimizer: { schedule, beta1: o.beta1, beta2: o.beta2, weightDecay: o.weight_decay, maxGradNorm: o.max_grad_norm > 0 ? o.max_grad_norm : null },
    recompute: c.train.recompute,
    ...(c.trainer === 'ppo' ? { valueHeadSeed: c.lora.init_seed } : {}),   // PPO's value head (value-head-params.ts)
  };
}

/** `sft` options and the config field each one sets (`--rank 4` is `--set lora.rank=4`). */
export const SFT_FLAGS: Record<string, string> = {
  mode: 'lora.mode', rank: 'lora.rank', alpha: 'lora.alpha', targets: 'lora.targets', rslora: 'lora.rslora',
  lr: 'optim.lr', schedule: 'optim.schedule', warmup: 'optim.warmup_steps', 'weight-decay': 'optim.weight_decay', clip: 'optim.max_grad_norm',
  steps: 'train.steps', 'batch-size': 'rollout.batch_size', 'micro-batch': 'grpo.micro_batch_size', shuffle: 'data.shuffle',
  seed: 'train.seed', recompute: 'train.recompute', 'max-length': 'data.max_length', 'save-every': 'log.checkpoint_every',
  quant: 'model.quant', 'quant-embeddings': 'model.quant_embeddings', tokenizer: 'model.tokenizer',
};

/** The `--set` items the given `sft` options stand for, in SFT_FLAGS order (--targets q,k becomes [q, k]). */
export function sftFlagSets(flags: Record<string, string | true>): string[] {
  const sets: string[] = [];
  for (const [flag, field] of Object.entries(SFT_FLAGS)) {
    const v = flags[flag];
    if (v === undefined) continue;
    if (flag === 'targets' && typeof v === 'string') sets.push(`${field}=[${v.split(',').map((s) => s.trim().replace(/_proj$/, '')).filter(Boolean).join(', ')}]`);
    else sets.push(`${field}=${v === true ? 'true' : v}`);
  }
  return sets;
}
