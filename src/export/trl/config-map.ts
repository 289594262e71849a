// Our RL config mapped field by field to TRL's GRPOConfig (and PEFT's LoraConfig) and to verl's
// Hydra overrides, with the fields that have no equivalent and why. Names checked against
// trl/trainer/grpo_config.py and verl/trainer/config/*.yaml (see docs/export-trl.md).
// One table drives the JSON config, the markdown table in the bundle and the README row list.
// Tested by tests/unit/export/export-trl-bundle.test.ts.
import type { RlConfig } from '../../rl/config-schema';

export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** What the mapping needs beyond the config: the machine the bundle targets. */
export interface MapContext {
  /** GPUs that train (accelerate's num_processes / verl's n_gpus_per_node). */
  gpus: number;
  /** Names of the reward functions, in order, and their weights (from the env's weight table). */
  rewardNames: readonly string[];
  rewardWeights: readonly number[];
}

export interface FieldMap {
  /** Our dotted field path. */
  ours: string;
  /** GRPOConfig (or LoraConfig as `lora:`) name, or null when TRL has none. */
  trl: string | null;
  /** The value TRL gets (null: leave TRL's default). */
  trlValue?: (c: RlConfig, m: MapContext) => Json;
  /** verl's Hydra key, or null. */
  verl: string | null;
  verlValue?: (c: RlConfig, m: MapContext) => Json;
  /** Why there is no equivalent or what differs. */
  note?: string;
}

const LOSS_TRL = { 'token-mean': 'dapo', 'seq-mean-token-mean': 'grpo', 'seq-mean-token-sum-norm': 'dr_grpo' } as const;
const completionLength = (c: RlConfig) => c.grpo.max_completion_length || c.rollout.max_new_tokens * c.rollout.max_turns;
const AR = 'actor_rollout_ref';

/** Completions per device per forward/backward: the largest <= micro_batch_size that splits B*G evenly over the GPUs. */
export function perDeviceBatch(c: RlConfig, gpus: number): { perDevice: number; accumulation: number } {
  const total = c.rollout.batch_size * c.rollout.group_size;
  if (!Number.isInteger(gpus) || gpus < 1) throw new Error(`--gpus must be a positive integer, got ${gpus}`);
  if (total % gpus !== 0) {
    throw new Error(`rollout.batch_size x rollout.group_size = ${total} completions per step do not split over ${gpus} GPUs; pick --gpus dividing ${total} or change rollout.batch_size`);
  }
  for (let p = Math.min(c.grpo.micro_batch_size, total / gpus); p >= 1; p--) {
    if ((total / gpus) % p === 0) return { perDevice: p, accumulation: total / gpus / p };
  }
  return { perDevice: 1, accumulation: total / gpus };
}

export const FIELD_MAP: readonly FieldMap[] = [
  { ours: 'model.path', trl: 'model (train_grpo.py --model)', trlValue: (c) => c.model.path, verl: `${AR}.model.path`, verlValue: (c) => c.model.path, note: 'a Hugging Face id or folder of the same base model (a llama2.c .bin needs converting to a Hugging Face folder first)' },
  { ours: 'model.quant', trl: 'model_init_kwargs.quantization_config', trlValue: (c) => (c.model.quant === 'nf4' ? 'nf4 (train_grpo.py --load-in-4bit)' : null), verl: null, note: 'TRL: bitsandbytes NF4 (QLoRA) when nf4; verl trains bf16 weights' },
  { ours: 'rollout.batch_size', trl: 'per_device_train_batch_size x gradient_accumulation_steps x GPUs / num_generations', trlValue: (c) => c.rollout.batch_size, verl: 'data.train_batch_size', verlValue: (c) => c.rollout.batch_size, note: 'prompts per step' },
  { ours: 'rollout.group_size', trl: 'num_generations', trlValue: (c) => c.rollout.group_size, verl: `${AR}.rollout.n`, verlValue: (c) => c.rollout.group_size },
  { ours: 'grpo.micro_batch_size', trl: 'per_device_train_batch_size', trlValue: (c, m) => perDeviceBatch(c, m.gpus).perDevice, verl: `${AR}.actor.ppo_micro_batch_size_per_gpu`, verlValue: (c, m) => perDeviceBatch(c, m.gpus).perDevice },
  { ours: '(B x G / GPUs / micro batch)', trl: 'gradient_accumulation_steps', trlValue: (c, m) => perDeviceBatch(c, m.gpus).accumulation, verl: `${AR}.actor.ppo_mini_batch_size`, verlValue: (c) => c.rollout.batch_size, note: 'one optimizer update per rollout batch, as ours (verl counts the mini batch in prompts)' },
  { ours: 'rollout.max_turns', trl: 'max_tool_calling_iterations', trlValue: (c) => c.rollout.max_turns - 1, verl: `${AR}.rollout.multi_turn.max_assistant_turns`, verlValue: (c) => c.rollout.max_turns, note: 'TRL counts tool rounds after the first turn' },
  { ours: 'rollout.max_new_tokens', trl: 'max_completion_length', trlValue: (c) => completionLength(c), verl: 'data.max_response_length', verlValue: (c) => completionLength(c), note: 'TRL and verl cap the whole completion (every turn and tool output): max_new_tokens x max_turns, or grpo.max_completion_length when set' },
  { ours: 'rollout.temperature', trl: 'temperature', trlValue: (c) => c.rollout.temperature, verl: `${AR}.rollout.temperature`, verlValue: (c) => c.rollout.temperature },
  { ours: 'rollout.top_p', trl: 'top_p', trlValue: (c) => c.rollout.top_p, verl: `${AR}.rollout.top_p`, verlValue: (c) => c.rollout.top_p },
  { ours: 'rollout.top_k', trl: 'top_k', trlValue: (c) => c.rollout.top_k, verl: `${AR}.rollout.top_k`, verlValue: (c) => (c.rollout.top_k > 0 ? c.rollout.top_k : -1), note: 'verl writes "off" as -1' },
  { ours: 'grpo.scale_rewards', trl: 'scale_rewards', trlValue: (c) => c.grpo.scale_rewards, verl: 'algorithm.norm_adv_by_std_in_grpo', verlValue: (c) => c.grpo.scale_rewards !== 'none', note: 'verl has no batch-std mode: batch maps to true (group std)' },
  { ours: 'grpo.epsilon_low', trl: 'epsilon', trlValue: (c) => c.grpo.epsilon_low, verl: `${AR}.actor.clip_ratio_low`, verlValue: (c) => c.grpo.epsilon_low },
  { ours: 'grpo.epsilon_high', trl: 'epsilon_high', trlValue: (c) => c.grpo.epsilon_high, verl: `${AR}.actor.clip_ratio_high`, verlValue: (c) => c.grpo.epsilon_high },
  { ours: 'grpo.loss_type', trl: 'loss_type', trlValue: (c) => LOSS_TRL[c.grpo.loss_type], verl: `${AR}.actor.loss_agg_mode`, verlValue: (c) => c.grpo.loss_type },
  { ours: 'grpo.beta', trl: 'beta', trlValue: (c) => c.grpo.beta, verl: `${AR}.actor.kl_loss_coef`, verlValue: (c) => c.grpo.beta, note: `verl also gets ${AR}.actor.use_kl_loss = beta > 0` },
  { ours: 'grpo.kl_estimator', trl: null, verl: `${AR}.actor.kl_loss_type`, verlValue: (c) => c.grpo.kl_estimator, note: 'TRL always uses k3; k1 / k2 have no TRL setting' },
  { ours: 'grpo.entropy_coef', trl: 'entropy_coef', trlValue: (c) => c.grpo.entropy_coef, verl: `${AR}.actor.entropy_coeff`, verlValue: (c) => c.grpo.entropy_coef },
  { ours: 'grpo.filter_zero_std', trl: null, verl: null, note: 'TRL logs frac_reward_zero_std but does not drop those groups; verl filters them only in its DAPO recipe' },
  { ours: 'grpo.mask_truncated_completions', trl: 'mask_truncated_completions', trlValue: (c) => c.grpo.mask_truncated_completions, verl: null, note: 'no verl switch' },
  { ours: 'grpo.num_iterations', trl: 'num_iterations', trlValue: (c) => c.grpo.num_iterations, verl: `${AR}.actor.ppo_epochs`, verlValue: (c) => c.grpo.num_iterations },
  { ours: 'grpo.max_completion_length', trl: 'max_completion_length', trlValue: (c) => completionLength(c), verl: 'data.max_response_length', verlValue: (c) => completionLength(c), note: 'also the dr_grpo normaliser in TRL, as ours' },
  { ours: 'optim.lr', trl: 'learning_rate', trlValue: (c) => c.optim.lr, verl: `${AR}.actor.optim.lr`, verlValue: (c) => c.optim.lr },
  { ours: 'optim.schedule', trl: 'lr_scheduler_type', trlValue: (c) => (c.optim.schedule === 'cosine' ? 'cosine_with_min_lr' : c.optim.warmup_steps > 0 ? 'constant_with_warmup' : 'constant'), verl: `${AR}.actor.optim.lr_scheduler_type`, verlValue: (c) => c.optim.schedule },
  { ours: 'optim.min_lr_ratio', trl: 'lr_scheduler_kwargs.min_lr_rate', trlValue: (c) => (c.optim.schedule === 'cosine' ? c.optim.min_lr_ratio : null), verl: `${AR}.actor.optim.min_lr_ratio`, verlValue: (c) => c.optim.min_lr_ratio },
  { ours: 'optim.warmup_steps', trl: 'warmup_steps', trlValue: (c) => c.optim.warmup_steps, verl: `${AR}.actor.optim.lr_warmup_steps`, verlValue: (c) => c.optim.warmup_steps },
  { ours: 'optim.weight_decay', trl: 'weight_decay', trlValue: (c) => c.optim.weight_decay, verl: `${AR}.actor.optim.weight_decay`, verlValue: (c) => c.optim.weight_decay },
  { ours: 'optim.max_grad_norm', trl: 'max_grad_norm', trlValue: (c) => c.optim.max_grad_norm, verl: `${AR}.actor.grad_clip`, verlValue: (c) => c.optim.max_grad_norm },
  { ours: 'optim.beta1', trl: 'adam_beta1', trlValue: (c) => c.optim.beta1, verl: `${AR}.actor.optim.betas`, verlValue: (c) => [c.optim.beta1, c.optim.beta2] },
  { ours: 'optim.beta2', trl: 'adam_beta2', trlValue: (c) => c.optim.beta2, verl: `${AR}.actor.optim.betas`, verlValue: (c) => [c.optim.beta1, c.optim.beta2] },
  { ours: 'lora.rank', trl: 'lora: r (from adapter/adapter_config.json)', verl: `${AR}.model.lora_rank`, verlValue: (c) => c.lora.rank },
  { ours: 'lora.alpha', trl: 'lora: lora_alpha (from adapter/adapter_config.json)', verl: `${AR}.model.lora_alpha`, verlValue: (c) => c.lora.alpha },
  { ours: 'lora.targets', trl: 'lora: target_modules (from adapter/adapter_config.json)', verl: `${AR}.model.target_modules`, verlValue: (c) => `[${c.lora.targets.map((t) => `${t}_proj`).join(',')}]` },
  { ours: 'lora.rslora', trl: 'lora: use_rslora (from adapter/adapter_config.json)', verl: null, note: 'verl has no rsLoRA switch: keep lora.rslora false for a verl run' },
  { ours: 'lora.mode', trl: 'peft_config / none', verl: null, note: 'full: train_grpo.py --full trains every weight (no adapter)' },
  { ours: 'train.steps', trl: 'max_steps', trlValue: (c) => c.train.steps * c.grpo.num_iterations, verl: 'trainer.total_training_steps', verlValue: (c) => c.train.steps, note: 'TRL counts optimizer updates: steps x num_iterations' },
  { ours: 'train.seed', trl: 'seed', trlValue: (c) => c.train.seed, verl: 'data.seed', verlValue: (c) => c.train.seed },
  { ours: 'train.recompute', trl: 'gradient_checkpointing', trlValue: (c) => c.train.recompute, verl: `${AR}.model.enable_gradient_checkpointing`, verlValue: (c) => c.train.recompute },
  { ours: 'log.out_dir', trl: 'output_dir', trlValue: () => 'outputs/grpo', verl: 'trainer.default_local_dir', verlValue: () => 'outputs/verl' },
  { ours: 'log.checkpoint_every', trl: 'save_steps', trlValue: (c) => (c.log.checkpoint_every || c.train.steps) * c.grpo.num_iterations, verl: 'trainer.save_freq', verlValue: (c) => c.log.checkpoint_every || c.train.steps },
  { ours: 'log.keep_checkpoints', trl: 'save_total_limit', trlValue: (c) => c.log.keep_checkpoints || null, verl: 'trainer.max_actor_ckpt_to_keep', verlValue: (c) => c.log.keep_checkpoints || null, note: 'the newest N checkpoints kept; 0 (keep all) is TRL\'s None / verl\'s null' },
  { ours: 'log.print_examples', trl: 'num_completions_to_print', trlValue: (c) => c.log.print_examples, verl: null },
  { ours: 'env.weights', trl: 'reward_weights', trlValue: (_c, m) => [...m.rewardWeights], verl: null, note: 'one TRL reward function per reward part, in reward_config.json order; verl gets the weighted total from verl_reward.py' },
  { ours: 'rollout.max_tokens', trl: null, verl: 'data.max_prompt_length', verlValue: (c) => Math.max(1, c.rollout.max_tokens - completionLength(c)), note: 'TRL has no whole-episode cap besides max_completion_length (vLLM: vllm_max_model_length)' },
  { ours: 'rollout.tool_response_max_tokens', trl: null, verl: null, note: 'the bundled tools cut their output at 4000 characters, as our registry' },
  { ours: 'rollout.tool_timeout_ms', trl: null, verl: null, note: 'enforced by the bundled tools (tools.py TIMEOUT_S)' },
  { ours: 'rollout.mode', trl: null, verl: null, note: 'TRL and verl batch generation themselves' },
  { ours: 'rollout.prefill', trl: null, verl: null, note: 'no teacher-forced assistant prefix in TRL; put it in the prompt instead' },
  { ours: 'rollout.python_workers', trl: null, verl: null, note: 'reward_code_exec.py CONFIG["workers"] grades in parallel' },
  { ours: 'model.quant_embeddings / model.template / model.tokenizer', trl: null, verl: null, note: 'TRL uses the model\'s own tokenizer and chat template' },
  { ours: 'trainer / rejection.*', trl: null, verl: null, note: 'only trainer: grpo is exported' },
  { ours: 'eval.*', trl: null, verl: null, note: 'run `rl-studio eval` on the trained adapter, or give GRPOTrainer an eval_dataset' },
  { ours: 'lora.init_seed', trl: null, verl: null, note: 'the adapter is copied, not re-initialised' },
];

/** GRPOConfig keyword arguments (only fields TRL has; lr_scheduler_kwargs folded in). */
export function grpoConfig(c: RlConfig, m: MapContext): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const f of FIELD_MAP) {
    if (!f.trl || !f.trlValue || /[ :]/.test(f.trl) || f.trl.startsWith('model_init_kwargs')) continue;
    const v = f.trlValue(c, m);
    if (v === null) continue;
    if (f.trl === 'lr_scheduler_kwargs.min_lr_rate') out.lr_scheduler_kwargs = { min_lr_rate: v };
    else out[f.trl] = v;
  }
  out.per_device_train_batch_size = perDeviceBatch(c, m.gpus).perDevice;
  out.log_completions = c.log.print_examples > 0;
  out.logging_steps = 1;
  out.bf16 = true;
  return out;
}

/** verl Hydra overrides (key=value), for a GRPO run with our reward file. */
export function verlOverrides(c: RlConfig, m: MapContext): string[] {
  const seen = new Map<string, Json>();
  for (const f of FIELD_MAP) if (f.verl && f.verlValue) seen.set(f.verl, f.verlValue(c, m));
  seen.set('algorithm.adv_estimator', 'grpo');
  seen.set(`${AR}.actor.use_kl_loss`, c.grpo.beta > 0);
  seen.set(`${AR}.model.lora_adapter_path`, 'adapter');
  seen.set('trainer.n_gpus_per_node', m.gpus);
  seen.set('data.train_files', 'verl/train.parquet');
  seen.set('custom_reward_function.path', 'verl_reward.py');
  seen.set('custom_reward_function.name', 'compute_score');
  return [...seen.entries()].map(([k, v]) => `${k}=${Array.isArray(v) ? `[${v.join(',')}]` : String(v)}`);
}

/** The markdown table of the bundle's CONFIG_MAP.md: ours, TRL, verl, value, note. */
export function configMapTable(c: RlConfig, m: MapContext): string {
  const cell = (s: Json | undefined) => (s === undefined || s === null ? '' : typeof s === 'object' ? JSON.stringify(s) : String(s)).replaceAll('|', '\\|');
  const rows = FIELD_MAP.map((f) => {
    const v = f.trlValue?.(c, m) ?? f.verlValue?.(c, m);
    return `| \`${f.ours}\` | ${f.trl ? `\`${f.trl}\`` : '—'} | ${f.verl ? `\`${f.verl}\`` : '—'} | ${cell(v)} | ${cell(f.note)} |`;
  });
  return ['| RL Studio | TRL GRPOConfig | verl | value | note |', '|---|---|---|---|---|', ...rows].join('\n');
}
