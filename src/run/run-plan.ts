// The memory plan options of a run from its config and model config: the sequences per update,
// tokens per sequence (the config field that sets it), LoRA / full, quant, micro-batch, a frozen KL
// reference and PPO's value head, as planTraining takes them. Shared by the Config panel's plan
// (src/workers/engine/plan.ts, time-step) and the `started` event of every run (CLI and worker).
// Tested by tests/unit/workers/plan-run.test.ts and tests/unit/run/run-plan.test.ts.
import type { ModelConfig } from '../model/types';
import { planTraining, type MemoryPlan, type TrainingPlanOptions } from '../train/memory-plan';
import type { RunConfig } from './config';

/** The step most one training pass of the engine handles (GpuModel's default maxRows). */
export const ENGINE_MAX_ROWS = 512;

/** The sequence length the plan assumes, and the config field that sets it. */
function lengthOf(mc: ModelConfig, cfg: RunConfig): { seqLen: number; field: string } {
  if (cfg.trainer === 'sft') {
    return cfg.data.max_length > 0 ? { seqLen: cfg.data.max_length, field: 'data.max_length' }
      : { seqLen: Math.min(ENGINE_MAX_ROWS, mc.maxPositions), field: 'data.max_length (0: min(512, the model\'s context))' };
  }
  return { seqLen: cfg.rollout.max_tokens, field: 'rollout.max_tokens' };
}

/** planTraining's options for this config and model; throws naming the config field when a length is out of range. */
export function planOptionsOf(mc: ModelConfig, cfg: RunConfig): { options: TrainingPlanOptions; shape: string } {
  const { seqLen, field } = lengthOf(mc, cfg);
  const cap = Math.min(ENGINE_MAX_ROWS, mc.maxPositions);
  if (seqLen > cap) {
    throw new Error(`config.yaml: ${field} is ${seqLen}, above the longest sequence one training step of this model handles, ${cap} (min(maxRows ${ENGINE_MAX_ROWS}, max_position_embeddings ${mc.maxPositions})); lower ${field.split(' ')[0]} to ${cap} or less`);
  }
  const rl = cfg.trainer !== 'sft';
  const rows = rl ? cfg.rollout.batch_size * cfg.rollout.group_size : cfg.rollout.batch_size;
  const full = cfg.lora.mode === 'full';
  const options: TrainingPlanOptions = {
    mode: cfg.lora.mode,
    quant: cfg.model.quant,
    quantEmbeddings: cfg.model.quant_embeddings,
    ...(full ? {} : { lora: { rank: cfg.lora.rank, targets: [...cfg.lora.targets] } }),
    batchSize: rows,
    microBatch: Math.min(cfg.grpo.micro_batch_size, rows),
    seqLen,
    recompute: cfg.train.recompute,
    maxRows: ENGINE_MAX_ROWS,
    // As referenceFor (rl/policy-setup.ts): a frozen copy when the KL reference is not the LoRA base.
    valueHead: cfg.trainer === 'ppo',
    frozenReference: (cfg.trainer === 'grpo' || cfg.trainer === 'ppo') && cfg.grpo.beta > 0 && (full || cfg.model.adapter !== null),
  };
  const shape = rl
    ? `rollout.batch_size ${cfg.rollout.batch_size} x group_size ${cfg.rollout.group_size} = ${rows} episodes of up to ${seqLen} tokens (rollout.max_tokens)`
    : `rollout.batch_size ${rows} examples of up to ${seqLen} tokens (${field})`;
  return { options, shape };
}

/**
 * The memory plan an RL run reports in `started` (the figures the Config panel shows before Start),
 * with the shape it assumes; null when a length is outside what the planner models (the run says
 * why if it gets there).
 */
export function planOfRun(mc: ModelConfig, cfg: RunConfig): { plan: MemoryPlan; shape: string } | null {
  let o: ReturnType<typeof planOptionsOf>;
  try {
    o = planOptionsOf(mc, cfg);
  } catch {
    return null;
  }
  return { plan: planTraining(mc, o.options), shape: o.shape };
}
