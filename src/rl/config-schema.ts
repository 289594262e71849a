// The RL training config as types, defaults and one doc line per field (TRL grpo_config.py as the
// model): one section per concern (model, data, env, rollout, grpo, ppo, rejection, optim, lora, train,
// log, eval, tools with python / search / http). config-validate.ts validates against FIELDS in one place and builds the README table
// from them; tests/unit/rl/rl-config.test.ts checks every field is documented and in README.md.
import type { Projection } from '../model/types';
import type { JsonSchema } from '../tools/json-schema';
import { ADVANTAGE_ESTIMATORS, type AdvantageEstimator } from './advantages';

export type TrainerKind = 'grpo' | 'ppo' | 'rejection_sampling' | 'reward_weighted' | 'sft';
export type RlEnvName = 'math' | 'code_exec' | 'search_qa' | 'agent' | 'story';

/** One user HTTP tool of `tools.http` (defaults filled in by validation). */
export interface HttpToolEntry {
  name: string;
  description: string;
  url: string;
  method: 'GET' | 'POST';
  /** JSON Schema (type object) of the arguments the model passes. */
  parameters: JsonSchema;
  timeout_ms: number;
}

export interface RlConfig {
  trainer: TrainerKind;
  model: { path: string; tokenizer: string | null; adapter: string | null; quant: 'nf4' | 'none'; quant_embeddings: boolean; template: 'auto' | 'plain' | 'plain_no_tools' };
  data: { env: RlEnvName; dataset: string | null; eval_dataset: string | null; corpus: string | null; story_words: string[]; story_target_words: number; env_module: string | null; max_tasks: number; max_length: number; shuffle: boolean };
  env: { python_tool: boolean; answer_format: 'boxed' | 'hash' | 'answer_is'; system_prompt: string | null; weights: Record<string, number>; max_attempts: number; attempt_penalty: number };
  rollout: {
    batch_size: number; group_size: number; max_turns: number; max_tokens: number; max_new_tokens: number;
    temperature: number; top_p: number; top_k: number; tool_response_max_tokens: number; tool_timeout_ms: number;
    mode: 'async' | 'sync'; prefill: string | null; python_workers: number; allow_weak_sandbox: boolean;
  };
  grpo: {
    advantage: AdvantageEstimator; scale_rewards: 'group' | 'batch' | 'none'; epsilon_low: number; epsilon_high: number;
    loss_type: 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum-norm'; beta: number; kl_estimator: 'k1' | 'k2' | 'k3';
    entropy_coef: number; filter_zero_std: boolean; mask_truncated_completions: boolean; num_iterations: number;
    micro_batch_size: number; max_completion_length: number;
  };
  ppo: { gamma: number; lambda: number; vf_coef: number; cliprange_value: number; whiten_advantages: boolean };
  rejection: { threshold: number; epochs: number };
  optim: { lr: number; schedule: 'constant' | 'cosine'; warmup_steps: number; min_lr_ratio: number; weight_decay: number; max_grad_norm: number; beta1: number; beta2: number };
  lora: { mode: 'lora' | 'full'; rank: number; alpha: number; targets: Projection[]; rslora: boolean; init_seed: number };
  train: { steps: number; seed: number; recompute: boolean };
  log: { out_dir: string; checkpoint_every: number; keep_checkpoints: number; rollouts: boolean; print_examples: number };
  eval: { split: 'eval' | 'train'; samples: number; num_tasks: number; temperature: number };
  tools: {
    python: { workers: number; timeout_ms: number; memory_mb: number; output_bytes: number };
    search: { mode: 'corpus' | 'proxy'; offer: boolean; corpus: string | null; url: string | null; provider: string | null; timeout_ms: number; top_k: number };
    http: HttpToolEntry[];
  };
}

export const DEFAULT_CONFIG: RlConfig = {
  trainer: 'grpo',
  model: { path: '', tokenizer: null, adapter: null, quant: 'nf4', quant_embeddings: false, template: 'auto' },
  data: { env: 'math', dataset: null, eval_dataset: null, corpus: null, story_words: ['dog', 'ball', 'cat', 'tree'], story_target_words: 0, env_module: null, max_tasks: 0, max_length: 0, shuffle: true },
  env: { python_tool: false, answer_format: 'boxed', system_prompt: null, weights: {}, max_attempts: 1, attempt_penalty: 0 },
  rollout: {
    batch_size: 4, group_size: 8, max_turns: 3, max_tokens: 1024, max_new_tokens: 256,
    temperature: 1, top_p: 1, top_k: 0, tool_response_max_tokens: 256, tool_timeout_ms: 10_000,
    mode: 'async', prefill: null, python_workers: 2, allow_weak_sandbox: false,
  },
  grpo: {
    advantage: 'grpo', scale_rewards: 'group', epsilon_low: 0.2, epsilon_high: 0.28, loss_type: 'token-mean', beta: 0, kl_estimator: 'k3',
    entropy_coef: 0, filter_zero_std: false, mask_truncated_completions: false, num_iterations: 1,
    micro_batch_size: 8, max_completion_length: 0,
  },
  ppo: { gamma: 1, lambda: 0.95, vf_coef: 0.1, cliprange_value: 0.2, whiten_advantages: true },
  rejection: { threshold: 1, epochs: 1 },
  optim: { lr: 2e-5, schedule: 'constant', warmup_steps: 0, min_lr_ratio: 0, weight_decay: 0, max_grad_norm: 1, beta1: 0.9, beta2: 0.999 },
  lora: { mode: 'lora', rank: 16, alpha: 0, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'], rslora: false, init_seed: 0 },
  train: { steps: 100, seed: 0, recompute: true },
  log: { out_dir: 'runs/rl', checkpoint_every: 50, keep_checkpoints: 3, rollouts: true, print_examples: 1 },
  eval: { split: 'eval', samples: 1, num_tasks: 50, temperature: 0 },
  tools: {
    python: { workers: 0, timeout_ms: 0, memory_mb: 512, output_bytes: 65_536 },
    search: { mode: 'corpus', offer: false, corpus: null, url: null, provider: null, timeout_ms: 0, top_k: 3 },
    http: [],
  },
};

/**
 * What trainer: sft uses instead of the defaults above (the usual SFT recipe): 10x the RL
 * learning rate with a cosine schedule, batches of 8, no recompute, one epoch
 * (train.steps 0), a checkpoint only at the end. Applied before the file and the overrides.
 */
export const SFT_DEFAULTS = {
  rollout: { batch_size: 8 },
  grpo: { micro_batch_size: 8 },
  optim: { lr: 2e-4, schedule: 'cosine' },
  train: { steps: 0, recompute: false },
  log: { out_dir: 'runs/sft', checkpoint_every: 0 },
} as const;

export type FieldKind =
  | { t: 'int'; min: number; max?: number }
  | { t: 'number'; min?: number; max?: number; above?: number; below?: number }
  | { t: 'bool' }
  | { t: 'string'; nullable: boolean; nonEmpty?: boolean }
  | { t: 'enum'; values: readonly string[] }
  | { t: 'strings'; values?: readonly string[] }
  | { t: 'weights' }
  | { t: 'http_tools' };

export interface FieldDoc {
  kind: FieldKind;
  doc: string;
}

const int = (min: number, max?: number): FieldKind => ({ t: 'int', min, ...(max !== undefined ? { max } : {}) });
const num = (r: { min?: number; max?: number; above?: number; below?: number }): FieldKind => ({ t: 'number', ...r });
const bool: FieldKind = { t: 'bool' };
const str = (nullable: boolean, nonEmpty = false): FieldKind => ({ t: 'string', nullable, nonEmpty });
const oneOf = (...values: string[]): FieldKind => ({ t: 'enum', values });

/** Every field by its dotted path: its kind (what validation accepts) and its doc line. */
export const FIELDS: Record<string, FieldDoc> = {
  trainer: { kind: oneOf('grpo', 'ppo', 'rejection_sampling', 'reward_weighted', 'sft'), doc: 'What to run: GRPO; PPO (a value head on the policy trunk, GAE advantages per token; the ppo section); rejection-sampling or reward-weighted fine-tuning on the policy\'s own episodes; or SFT on chat JSONL (data.dataset).' },
  'model.path': { kind: str(false), doc: 'Hugging Face model folder or llama2.c .bin, relative to the working directory (`--model` overrides).' },
  'model.tokenizer': { kind: str(true), doc: 'llama2.c tokenizer .bin (default: tok*.bin beside the checkpoint).' },
  'model.adapter': { kind: str(true), doc: 'Start the policy from this PEFT adapter folder (e.g. `sft`\'s OUT/adapter; `--adapter` overrides): its rank, alpha and targets are used, and the KL reference is the adapter as loaded (a frozen copy), not the bare base. LoRA mode only.' },
  'model.quant': { kind: oneOf('nf4', 'none'), doc: 'Base weights in 4-bit NF4 (LoRA only) or f32 (needed for lora.mode full).' },
  'model.quant_embeddings': { kind: bool, doc: 'Also quantize the embedding / LM head (big vocabularies).' },
  'model.template': { kind: oneOf('auto', 'plain', 'plain_no_tools'), doc: 'Chat template of episodes and SFT lines: the tokenizer\'s (auto; plain when it has none), the plain `role: content` one with a `# Tools` system block (tool calls written as `<tool_call>` text), or plain_no_tools (no tool list: the prompts describe the tools, or the context is tiny).' },
  'data.env': { kind: oneOf('math', 'code_exec', 'search_qa', 'agent', 'story'), doc: 'Environment: math (GSM8K), code_exec (MBPP, Python tests), search_qa (SQuAD + search tool), agent (the default agent\'s calculator + lookup tasks, python and search tools), story (stories260K word/length reward).' },
  'data.max_length': { kind: int(0), doc: 'sft: longest example in tokens, longer ones are truncated (0: min(512, the model\'s context)).' },
  'data.shuffle': { kind: bool, doc: 'sft: reshuffle the examples every epoch.' },
  'data.dataset': { kind: str(true), doc: 'Training tasks JSONL (null: the shipped train split of data.env; story needs none). `--dataset` overrides.' },
  'data.eval_dataset': { kind: str(true), doc: 'Held-out tasks JSONL for `eval` (null: the shipped eval split).' },
  'data.corpus': { kind: str(true), doc: 'search_qa / agent: the corpus JSONL the search tool reads (null: datasets/squad_corpus.jsonl, agent: datasets/agent_corpus.jsonl).' },
  'data.story_words': { kind: { t: 'strings' }, doc: 'story: the words a story must mention (one task per word, cycled).' },
  'data.story_target_words': { kind: int(0), doc: 'story: target length in words for the `length` reward part (0: no length part).' },
  'data.env_module': { kind: str(true), doc: 'A custom environment: a .ts/.js module (relative to the working directory) whose default export builds an Environment (docs/envs.md); data.env is then ignored and data.dataset (JSONL, one task object per line) holds its tasks.' },
  'data.max_tasks': { kind: int(0), doc: 'Use only the first N tasks of the dataset (0: all).' },
  'env.python_tool': { kind: bool, doc: 'math: offer the `python` tool (a Pyodide pool); code_exec always runs tests in Python.' },
  'env.answer_format': { kind: oneOf('boxed', 'hash', 'answer_is'), doc: 'math: the final-answer format asked for and rewarded.' },
  'env.system_prompt': { kind: str(true), doc: 'Replaces the environment\'s system prompt (math, code_exec, search_qa, agent); story: the user prompt with {word}.' },
  'env.weights': { kind: { t: 'weights' }, doc: 'Reward part weights overriding the environment\'s defaults, e.g. {correctness: 1, format: 0.1}.' },
  'env.max_attempts': { kind: int(1), doc: 'code_exec: answers the agent may submit; after a failing one the test output comes back as a user turn (loss mask 0) and it tries again (1: one attempt, no feedback).' },
  'env.attempt_penalty': { kind: num({ min: 0 }), doc: 'code_exec: reward subtracted per extra attempt: the final part `retries` (attempts - 1) gets weight -attempt_penalty (env.weights.retries overrides).' },
  'rollout.batch_size': { kind: int(1), doc: 'B: prompts per step (trainer sft: examples per update).' },
  'rollout.group_size': { kind: int(1), doc: 'G: episodes sampled per prompt (GRPO needs >= 2 for a non-zero advantage).' },
  'rollout.max_turns': { kind: int(1), doc: 'Assistant turns per episode.' },
  'rollout.max_tokens': { kind: int(2), doc: 'Tokens per episode, prompt and tool output included (capped at the model\'s context).' },
  'rollout.max_new_tokens': { kind: int(1), doc: 'Tokens the model may generate in one assistant turn.' },
  'rollout.temperature': { kind: num({ above: 0 }), doc: 'Sampling temperature (also the temperature of the trained log-probs).' },
  'rollout.top_p': { kind: num({ above: 0, max: 1 }), doc: 'Nucleus sampling (1: off).' },
  'rollout.top_k': { kind: int(0), doc: 'Top-k sampling (0: off).' },
  'rollout.tool_response_max_tokens': { kind: int(1), doc: 'Budget of one tool response in tokens (verl: 256); longer ones are cut in the middle.' },
  'rollout.tool_timeout_ms': { kind: int(1), doc: 'Per tool call timeout in milliseconds.' },
  'rollout.mode': { kind: oneOf('async', 'sync'), doc: 'async: episodes keep generating while others wait on tools; sync: one at a time (debugging).' },
  'rollout.prefill': { kind: str(true), doc: 'Teacher-forced text opening every first assistant turn (mask 0), e.g. "Once upon a time".' },
  'rollout.python_workers': { kind: int(1, 16), doc: 'Pyodide workers of the Python pool (when a python tool or code tests are used).' },
  'rollout.allow_weak_sandbox': { kind: bool, doc: 'Run model-written Python even when the sandbox is below the "sealed" level (see Python sandbox); --allow-weak-sandbox.' },
  'grpo.advantage': {
    kind: oneOf(...ADVANTAGE_ESTIMATORS),
    doc: 'Advantage estimator: grpo (group mean, divided per scale_rewards), rloo (leave-one-out: minus the mean of the other G-1 rewards), reinforce_pp (REINFORCE++: batch mean and std), reinforce_pp_baseline (group mean, then batch std).',
  },
  'grpo.scale_rewards': { kind: oneOf('group', 'batch', 'none'), doc: 'Advantage divisor: the group\'s reward std, the batch\'s, or none (Dr. GRPO).' },
  'grpo.epsilon_low': { kind: num({ above: 0, below: 1 }), doc: 'PPO clip: ratios below 1 - epsilon_low are clipped.' },
  'grpo.epsilon_high': { kind: num({ above: 0 }), doc: 'Clip-higher: ratios above 1 + epsilon_high are clipped (DAPO 0.28; TRL 0.2).' },
  'grpo.loss_type': { kind: oneOf('token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'), doc: 'Loss aggregation: token-mean (DAPO/TRL default), seq-mean-token-mean (original GRPO), seq-mean-token-sum-norm (Dr. GRPO).' },
  'grpo.beta': { kind: num({ min: 0 }), doc: 'KL coefficient to the reference policy: the base (adapter off), the starting adapter with model.adapter, or the starting weights in full mode (frozen copies); 0 skips the reference pass.' },
  'grpo.kl_estimator': { kind: oneOf('k1', 'k2', 'k3'), doc: 'KL estimator when beta > 0 (k3 as TRL and verl).' },
  'grpo.entropy_coef': { kind: num({ min: 0 }), doc: 'Entropy bonus coefficient (0: off).' },
  'grpo.filter_zero_std': { kind: bool, doc: 'Drop the episodes of groups whose rewards are all equal (DAPO dynamic sampling).' },
  'grpo.mask_truncated_completions': { kind: bool, doc: 'Exclude episodes cut by a token limit from the loss.' },
  'grpo.num_iterations': { kind: int(1), doc: 'mu: policy updates per batch of rollouts (> 1 recomputes old log-probs once).' },
  'grpo.micro_batch_size': { kind: int(1), doc: 'Episodes (sft: examples) per forward/backward; gradients accumulate over the batch.' },
  'grpo.max_completion_length': { kind: int(0), doc: 'The Dr. GRPO normaliser (seq-mean-token-sum-norm); 0: max_new_tokens x max_turns.' },
  'ppo.gamma': { kind: num({ min: 0, max: 1 }), doc: 'ppo: GAE discount over the trained tokens (prompt and tool output are skipped).' },
  'ppo.lambda': { kind: num({ min: 0, max: 1 }), doc: 'ppo: GAE lambda (1: Monte-Carlo returns minus the value; 0: one-step TD).' },
  'ppo.vf_coef': { kind: num({ min: 0 }), doc: 'ppo: weight of the value loss beside the policy loss (one backward through the shared trunk).' },
  'ppo.cliprange_value': { kind: num({ above: 0 }), doc: 'ppo: the new value may move at most this far from the rollout\'s value in the clipped value loss.' },
  'ppo.whiten_advantages': { kind: bool, doc: 'ppo: whiten the GAE advantages over the batch\'s trained tokens (mean 0, std 1).' },
  'rejection.threshold': { kind: num({}), doc: 'rejection_sampling: keep episodes with reward >= threshold; reward_weighted: rewards below count 0.' },
  'rejection.epochs': { kind: int(1), doc: 'SFT passes over each step\'s kept episodes.' },
  'optim.lr': { kind: num({ above: 0 }), doc: 'Peak learning rate (LoRA RL: about 1e-5 to 5e-5 on big models; tiny models take more).' },
  'optim.schedule': { kind: oneOf('constant', 'cosine'), doc: 'Learning-rate schedule after warmup.' },
  'optim.warmup_steps': { kind: int(0), doc: 'Linear warmup updates.' },
  'optim.min_lr_ratio': { kind: num({ min: 0, max: 1 }), doc: 'cosine: floor as a fraction of lr.' },
  'optim.weight_decay': { kind: num({ min: 0 }), doc: 'AdamW decoupled weight decay.' },
  'optim.max_grad_norm': { kind: num({ min: 0 }), doc: 'Global gradient-norm clipping (0: off).' },
  'optim.beta1': { kind: num({ min: 0, below: 1 }), doc: 'Adam beta1.' },
  'optim.beta2': { kind: num({ min: 0, below: 1 }), doc: 'Adam beta2.' },
  'lora.mode': { kind: oneOf('lora', 'full'), doc: 'Train a LoRA adapter or every weight (full: model.quant none).' },
  'lora.rank': { kind: int(1), doc: 'R: LoRA rank (1-32 is enough for RL).' },
  'lora.alpha': { kind: num({ min: 0 }), doc: 'LoRA alpha (scale alpha / R, or alpha / sqrt(R) with rslora); 0: 2 x R.' },
  'lora.targets': { kind: { t: 'strings', values: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] }, doc: 'Projections to adapt (all linear layers by default).' },
  'lora.rslora': { kind: bool, doc: 'rsLoRA scaling alpha / sqrt(R).' },
  'lora.init_seed': { kind: int(0), doc: 'Seed of the fresh adapter\'s A init.' },
  'train.steps': { kind: int(0), doc: 'Training steps (one rollout batch and its updates each); sft: optimizer updates, 0 = one epoch (the sft default).' },
  'train.seed': { kind: int(0), doc: 'Seed of task order and sampling (`--seed` overrides).' },
  'train.recompute': { kind: bool, doc: 'Recompute activations in the backward (less memory, ~30 % more time).' },
  'log.out_dir': { kind: str(false, true), doc: 'Run folder: metrics.jsonl, rollouts.jsonl, checkpoints/, adapter/ (full mode: model/) (`--out` overrides).' },
  'log.checkpoint_every': { kind: int(0), doc: 'Save a checkpoint every N steps (0: only at the end).' },
  'log.keep_checkpoints': { kind: int(0), doc: 'Keep the last N checkpoints/step-M/ folders, older ones removed once a new one is complete (0: keep all).' },
  'log.rollouts': { kind: bool, doc: 'Write every episode to rollouts.jsonl.' },
  'log.print_examples': { kind: int(0), doc: 'Completions printed per step (0: none).' },
  'eval.split': { kind: oneOf('eval', 'train'), doc: 'Which split `eval` grades (data.eval_dataset or data.dataset).' },
  'eval.samples': { kind: int(1), doc: 'k: samples per task for pass@k (1: greedy accuracy).' },
  'eval.num_tasks': { kind: int(0), doc: 'Held-out tasks graded (0: all).' },
  'eval.temperature': { kind: num({ min: 0 }), doc: 'Sampling temperature of eval (0: greedy; pass@k with k > 1 needs > 0).' },
  'tools.python.workers': { kind: int(0, 16), doc: 'Pyodide workers of the Python pool (0: rollout.python_workers; both set to different values is an error).' },
  'tools.python.timeout_ms': { kind: int(0), doc: 'Wall-clock limit of one Python run in ms (0: rollout.tool_timeout_ms; must not exceed it).' },
  'tools.python.memory_mb': { kind: int(64, 4096), doc: 'Wasm memory limit of one Pyodide worker in MiB.' },
  'tools.python.output_bytes': { kind: int(1), doc: 'stdout + stderr kept per run in bytes; the rest is cut (OutputLimitExceeded).' },
  'tools.search.mode': { kind: oneOf('corpus', 'proxy'), doc: 'Where the `search` tool looks: the offline BM25 corpus, or a running search proxy (`npm run proxy`) at tools.search.url.' },
  'tools.search.offer': { kind: bool, doc: 'Also offer the `search` tool in environments that have none (math, code_exec, story, custom); search_qa and agent always have it.' },
  'tools.search.corpus': { kind: str(true), doc: 'corpus mode: the corpus JSONL (null: data.corpus, then the env\'s shipped corpus); data.corpus is the older name, both set to different files is an error.' },
  'tools.search.url': { kind: str(true), doc: 'proxy mode: the proxy\'s API base, e.g. http://127.0.0.1:8787/api (required in proxy mode).' },
  'tools.search.provider': { kind: str(true), doc: 'proxy mode: the provider the proxy must be using (tavily, serper, bing, searxng, custom); checked at start against its /api/health (null: any).' },
  'tools.search.timeout_ms': { kind: int(0), doc: 'Per search timeout in ms, the proxy\'s retries inside it (0: rollout.tool_timeout_ms; must not exceed it).' },
  'tools.search.top_k': { kind: int(1, 10), doc: 'Results returned per search call (search_qa and the offered tool; agent keeps its own 1).' },
  'tools.http': { kind: { t: 'http_tools' }, doc: 'User HTTP tools offered in every environment: a list of {name, description, url, method (POST: JSON body, GET: query string; default POST), parameters (JSON Schema of the arguments), timeout_ms (default 10000, at most rollout.tool_timeout_ms)}.' },
};
