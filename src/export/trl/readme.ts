// The README.md of a TRL bundle: what is in the folder, how to run it on a multi-GPU machine
// (accelerate launch), how to check the rewards first, the verl route, and the config table.
// Text only (no file access); written by bundle.ts, checked by tests/unit/export/export-trl-bundle.test.ts.
import type { RlConfig } from '../../rl/config-schema';

export interface ReadmeFacts {
  cfg: RlConfig;
  gpus: number;
  tasks: number;
  evalTasks: number;
  tools: string[];
  adapter: boolean;
  table: string;
  verlOverrides: string[];
  verlNote: string | null;
}

export function bundleReadme(f: ReadmeFacts): string {
  const env = f.cfg.data.env;
  const lines = [
    `# RL Studio run bundle: ${env}, continued with TRL (or verl)`,
    '',
    `Written by \`rl-studio export-trl\` from a ${f.cfg.trainer} config on ${f.cfg.model.path || 'the configured model'}: ${f.tasks} training prompts` +
      (f.evalTasks ? `, ${f.evalTasks} held-out ones` : '') + (f.adapter ? ', and the run\'s LoRA adapter to start from.' : ' (no adapter: training starts from a fresh LoRA).'),
    '',
    '## Files',
    '',
    '| file | what |',
    '|---|---|',
    '| `data/train.jsonl` | one row per task: `prompt` (chat messages), the reward columns, `task_id`' + (f.tools.length ? ', `tools` (JSON schemas as a JSON string)' : '') + ' |',
    ...(f.evalTasks ? ['| `data/eval.jsonl` | the held-out tasks, same columns |'] : []),
    `| \`reward_${env}.py\`, \`rl_common.py\` | our reward, one TRL reward function per part (standard library only) |`,
    ...(env === 'code_exec' ? ['| `code_runner.py` | runs each graded solution in a forked process with a timeout and memory cap |'] : []),
    ...(env === 'agent' ? ['| `reward_math.py`, `reward_search_qa.py` | the answer checks `reward_agent.py` reuses (numeric match, SQuAD exact match) |'] : []),
    '| `reward_config.json` | reward module, parts in order, weights, settings, base model, LoRA shape |',
    '| `grpo_config.json` | GRPOConfig arguments mapped from our config (see CONFIG_MAP.md) |',
    ...(f.adapter ? ['| `adapter/` | the PEFT adapter (`adapter_config.json`, `adapter_model.safetensors`) |'] : []),
    ...(f.tools.length ? [`| \`tools.py\` | the tools (${f.tools.join(', ')}) as Python callables for GRPOTrainer(tools=...) |`] : []),
    ...(env === 'search_qa' || env === 'agent' ? ['| `corpus.jsonl` | the offline corpus the search tool reads |'] : []),
    '| `train_grpo.py` | wires GRPOTrainer to these files |',
    '| `verl/` | the same data in verl\'s layout, a Parquet converter and the launch overrides |',
    '| `CONFIG_MAP.md` | every config field: its TRL and verl names, the value, and what has no equivalent |',
    '',
    '## Run it on a multi-GPU machine',
    '',
    '```bash',
    'pip install trl "transformers>=5" peft datasets accelerate jmespath' + (f.cfg.model.quant === 'nf4' ? ' bitsandbytes' : '') + '   # tools in GRPOTrainer need transformers 5',
    `python3 -c "import sys; sys.path.insert(0, '.'); import reward_${env}"   # the reward file imports with the standard library alone`,
    `accelerate launch --num_processes ${f.gpus} train_grpo.py`,
    `accelerate launch --num_processes ${f.gpus} train_grpo.py --max-steps 2 --output-dir outputs/smoke   # check the wiring first`,
    '```',
    '',
    `The config was mapped for ${f.gpus} GPUs (\`per_device_train_batch_size\` x \`gradient_accumulation_steps\` x GPUs =` +
      ` batch_size x group_size = ${f.cfg.rollout.batch_size * f.cfg.rollout.group_size} completions per update, as in RL Studio).` +
      ' For another count (1 for a one-GPU run), export again with `--gpus N`. Add `--use-vllm` to generate with vLLM (TRL\'s `use_vllm`).',
    '',
    'Names were checked against TRL\'s `trl/trainer/grpo_config.py` and `grpo_trainer.py` (1.10.0.dev0) and verl\'s',
    '`verl/trainer/config/*.yaml` (January 2026).',
    '',
    'The weighted sum TRL trains on is our episode return: `grpo_config.json` has no `reward_weights`; train_grpo.py sets them',
    'from `reward_config.json`, one weight per reward function. `tool_errors` counts malformed and invalid tool calls over all turns.',
    '',
    '## Data format: why JSONL and not Parquet',
    '',
    'TRL reads the JSONL directly (`load_dataset("json", ...)`); RL Studio has no maintained Parquet writer installed, so the',
    'bundle ships JSONL and `verl/to_parquet.py` (5 lines of `datasets`) converts it where verl needs Parquet.',
    '',
    '## verl',
    '',
    f.verlNote ?? 'The config maps directly for this environment (single-turn, no tools):',
    '',
    '```bash',
    'python verl/to_parquet.py',
    `python3 -m verl.trainer.main_ppo \\\n  ${f.verlOverrides.join(' \\\n  ')}`,
    '```',
    '',
    'verl row: `data_source` = `rl_studio/<env>`, `prompt` (chat messages), `ability`, `reward_model.ground_truth` (the main',
    'reward column, JSON-encoded when it is a list), `extra_info` (every reward column, `index`, `split`, `task_id`);',
    '`verl_reward.py` grades a response as one assistant turn with the same reward file.',
    '',
    '## Config map',
    '',
    f.table,
    '',
  ];
  return lines.join('\n');
}
