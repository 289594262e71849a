// Builds a TRL bundle as a file map (name -> bytes), with no file access, from a validated RL
// config, its environment, the train / eval tasks, the run's adapter files and the Python
// sources: data/*.jsonl, verl/*, the reward files, reward_config.json, grpo_config.json,
// CONFIG_MAP.md, README.md, adapter/. The `export --format trl` command (Node, src/cli/commands/export-trl.ts) reads inputs and writes the
// map. Tested by tests/unit/export/export-trl-bundle.test.ts.
import type { Task } from '../../data/schemas';
import type { StoryTask } from '../../envs/story/env';
import type { Environment } from '../../envs/types';
import type { RlConfig } from '../../rl/config-schema';
import { configMapTable, grpoConfig, verlOverrides, type Json, type MapContext } from './config-map';
import { bundleReadme } from './readme';
import { isTrlEnv, TRL_ENVS, trlPromptRow, verlRow, type TrlEnvName, type TrlPromptRow } from './rows';

/** The reward parts of each environment, in the order of the reward files' REWARD_FUNCS. */
export const REWARD_PARTS: Record<TrlEnvName, readonly string[]> = {
  math: ['correctness', 'format', 'tool_use', 'tool_errors'],
  code_exec: ['correctness', 'pass_rate', 'format', 'tool_use', 'tool_errors'],
  search_qa: ['correctness', 'em', 'f1', 'format', 'tool_use', 'tool_errors'],
  story: ['mentions', 'length'],
  agent: ['correctness', 'format', 'tool_use', 'tool_errors'],
};

/** The environments whose search tool reads the bundle's corpus.jsonl. */
const CORPUS_ENVS: readonly TrlEnvName[] = ['search_qa', 'agent'];

export interface BundleInputs {
  cfg: RlConfig;
  env: Environment<Task>;
  tasks: (Task | StoryTask)[];
  evalTasks: (Task | StoryTask)[];
  /** The run's adapter folder (name -> bytes), or null to start from a fresh LoRA. */
  adapter: Map<string, Uint8Array> | null;
  /** Python sources by file name (the shared ones and this environment's). */
  python: Map<string, string>;
  /** search_qa and agent: the corpus JSONL text the search tool reads. */
  corpus: string | null;
  gpus: number;
}

const enc = new TextEncoder();
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const json = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

/** The environment's settings the reward file needs beyond weights (reward_config.json "config"). */
function rewardSettings(cfg: RlConfig): Record<string, Json> {
  return cfg.data.env === 'math' ? { answer_format: cfg.env.answer_format } : {};
}

/** Settings of the bundled tools (reward_config.json "tools"): results per search call, as the env's `k`. */
function toolSettings(env: Environment<Task>): Record<string, Json> {
  const k = (env as { config?: { k?: unknown } }).config?.k;
  return typeof k === 'number' ? { search_k: k } : {};
}

/** Why verl is not a direct map for this environment, or null when it is. */
export function verlLimit(cfg: RlConfig, tools: string[]): string | null {
  if (!tools.length) return null;
  return `Not a direct map for this environment: it uses tools (${tools.join(', ')}), and verl runs tools through its own ` +
    'agent loop (a tool class per tool and a tool_config YAML, `actor_rollout_ref.rollout.multi_turn.tool_config_path`), ' +
    'which our tools do not implement. The data and single-turn reward still work: with the overrides below verl trains ' +
    'without tools, and the reward file grades each response as one turn.';
}

/** The corpus the environment's search tool reads by default, or null when it has no search tool. */
export function corpusFileOf(env: TrlEnvName, configured: string | null = null): string | null {
  if (!CORPUS_ENVS.includes(env)) return null;
  return configured ?? (env === 'agent' ? 'datasets/agent_corpus.jsonl' : 'datasets/squad_corpus.jsonl');
}

/**
 * Why a PPO run is not exported: TRL's PPOTrainer cannot continue it faithfully (decided for
 * issue 13). Its rewards come from a reward MODEL scoring whole single-turn completions and its
 * critic is a separate value MODEL; ours is a linear head on the policy's own trunk, trained with
 * per-turn environment rewards over multi-turn tool episodes and GAE over trained tokens only.
 */
export const PPO_REFUSAL = 'export --format trl: trainer: ppo cannot be continued in TRL faithfully, so no bundle is written. '
  + "TRL's PPOTrainer takes a reward_model (a network scoring one single-turn completion) and a separate value_model; "
  + 'this run scores multi-turn tool episodes with per-turn rewards from the environment (Python reward code, not a model), '
  + 'and its value head is one linear unit on the policy\'s own trunk (value_head.safetensors, sharing the LoRA adapter), '
  + 'with GAE over the trained tokens only (tool output skipped). Instead: keep training PPO here (train --resume RUN_DIR); '
  + 'or set trainer: grpo in the config and export again, passing this run\'s adapter with --adapter RUN_DIR/adapter '
  + '(the policy carries over to TRL GRPOTrainer with the environment\'s rewards; the value head is dropped).';

export function buildBundle(b: BundleInputs): Map<string, Uint8Array> {
  const { cfg } = b;
  const env = cfg.data.env;
  if (!isTrlEnv(env)) throw new Error(`export --format trl: data.env ${env} has no Python reward port yet (supported: ${TRL_ENVS.join(', ')})`);
  if (cfg.trainer === 'ppo') throw new Error(PPO_REFUSAL);
  if (cfg.trainer !== 'grpo') throw new Error(`export --format trl maps GRPO runs; this config has trainer: ${cfg.trainer} (set trainer: grpo)`);
  if (!b.tasks.length) throw new Error('export --format trl: no training tasks; check data.dataset and data.max_tasks');
  const tools = b.env.tools().map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } }));
  const rowOf = (t: Task | StoryTask): TrlPromptRow => trlPromptRow(env, t, b.env.initialMessages(t as Task), tools);
  const train = b.tasks.map(rowOf);
  const evalRows = b.evalTasks.map(rowOf);
  const parts = REWARD_PARTS[env];
  const weights = b.env.weights;
  const m: MapContext = { gpus: b.gpus, rewardNames: parts, rewardWeights: parts.map((p) => weights[p] ?? 0) };
  const grpo = grpoConfig(cfg, m);
  delete grpo.reward_weights; // train_grpo.py sets them from reward_config.json (one source of truth)

  const files = new Map<string, Uint8Array>();
  const put = (name: string, text: string) => files.set(name, enc.encode(text));
  put('data/train.jsonl', jsonl(train));
  if (evalRows.length) put('data/eval.jsonl', jsonl(evalRows));
  put('verl/train.jsonl', jsonl(train.map((r, i) => verlRow(env, r, i, 'train'))));
  if (evalRows.length) put('verl/eval.jsonl', jsonl(evalRows.map((r, i) => verlRow(env, r, i, 'eval'))));
  put('verl/to_parquet.py', VERL_TO_PARQUET);
  put('grpo_config.json', json(grpo));
  put('reward_config.json', json({
    env, module: `reward_${env}`, parts, weights, config: rewardSettings(cfg), tools: toolSettings(b.env),
    base_model: cfg.model.path, quant: cfg.model.quant,
    lora: { r: cfg.lora.rank, lora_alpha: cfg.lora.alpha, target_modules: cfg.lora.targets.map((t) => `${t}_proj`), use_rslora: cfg.lora.rslora },
  }));
  for (const [name, text] of b.python) put(name, text);
  if (CORPUS_ENVS.includes(env)) {
    if (b.corpus === null) throw new Error(`export-trl: ${env} needs the corpus (data.corpus or ${corpusFileOf(env)})`);
    put('corpus.jsonl', b.corpus);
  }
  for (const [name, bytes] of b.adapter ?? []) files.set(`adapter/${name}`, bytes);
  const table = configMapTable(cfg, m);
  put('CONFIG_MAP.md', `# Config map: RL Studio -> TRL GRPOConfig / verl\n\n${table}\n`);
  const overrides = verlOverrides(cfg, m);
  if (evalRows.length) overrides.push('data.val_files=verl/eval.parquet');
  put('README.md', bundleReadme({
    cfg, gpus: b.gpus, tasks: train.length, evalTasks: evalRows.length, tools: tools.map((t) => t.function.name),
    adapter: b.adapter !== null, table, verlOverrides: overrides, verlNote: verlLimit(cfg, tools.map((t) => t.function.name)),
  }));
  return files;
}

const VERL_TO_PARQUET = `"""Converts the bundle's verl JSONL files to the Parquet files verl reads (needs \`datasets\`)."""
import os
from datasets import load_dataset

for split in ("train", "eval"):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{split}.jsonl")
    if os.path.exists(src):
        load_dataset("json", data_files=src, split="train").to_parquet(src[: -len(".jsonl")] + ".parquet")
`;
