// `npm run cli -- export --format trl --config F [--run DIR] --out DIR` (dispatched here by
// export.ts): writes a bundle that continues a run at scale with TRL's GRPOTrainer (or verl): the
// tasks as TRL / verl rows, the reward files in Python, the mapped config, the run's adapter, a
// README with the launch commands. Tested by tests/unit/export/export-trl-bundle.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CliCommand } from '../../util/args';
import { getNumber, getString, requireString } from '../../util/args';
import { parseConfig, type RlConfig } from '../../rl/config-validate';
import { buildEnvironment } from '../../rl/env-factory';
import { loadTasksFor } from '../../run/rl-node-run';
import { buildBundle, corpusFileOf } from '../../export/trl/bundle';
import { isTrlEnv, TRL_ENVS } from '../../export/trl/rows';
import { COMMON_PY, readPython, REWARD_PY } from '../../export/trl/python-files';
import { exportServices } from '../../export/trl/services';
import { writeFiles } from '../../train/write-files';

/** The config: --config F, else DIR/config.yaml of --run; the usual overrides apply. */
function readConfig(args: Parameters<CliCommand['run']>[0]): RlConfig {
  const run = getString(args, 'run');
  const file = getString(args, 'config') ?? (run && existsSync(join(run, 'config.yaml')) ? join(run, 'config.yaml') : undefined);
  if (!file) throw new Error('export-trl needs the run\'s config: pass --config F (the YAML the run was trained with)');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--config ${file}: ${(e as Error).message}`);
  }
  return parseConfig(text, file, { sets: args.all.set ?? [], model: getString(args, 'model'), dataset: getString(args, 'dataset') });
}

/** Every file of an adapter folder (adapter_config.json + adapter_model.safetensors). */
function readAdapter(dir: string, flag: string): Map<string, Uint8Array> {
  if (!existsSync(join(dir, 'adapter_config.json'))) {
    throw new Error(`${flag}: no adapter_config.json in ${dir}; pass the adapter/ folder a \`train\` run wrote (OUT/adapter), or the run folder holding it`);
  }
  const files = new Map<string, Uint8Array>();
  for (const name of readdirSync(dir)) {
    if (statSync(join(dir, name)).isFile()) files.set(name, readFileSync(join(dir, name)));
  }
  return files;
}

/** Not registered on its own: `export --format trl` runs it. */
export const trlBundleCommand: CliCommand = {
  name: 'export --format trl',
  summary: 'write a bundle that continues a run with TRL GRPOTrainer / verl on many GPUs',
  usage: `Usage: npm run cli -- export --format trl --config F --out DIR [options]

  --config F        the run's YAML config (default: RUN/config.yaml when --run has one)
  --run DIR         the run folder: its adapter/ is copied (unless --adapter is given)
  --adapter DIR     PEFT adapter folder to start from (default: RUN/adapter; none: a fresh LoRA)
  --out DIR         where to write the bundle (required)
  --gpus N          GPUs the config is mapped for (default 8; B x G must divide by it)
  --dataset F       overrides data.dataset (task JSONL)
  --model PATH      overrides model.path (the base model id written into the bundle)
  --set key=value   overrides one config field (repeatable)

The bundle's README.md has the accelerate launch command; CONFIG_MAP.md maps every field.`,
  async run(args) {
    const cfg = readConfig(args);
    if (cfg.data.env_module !== null) throw new Error(`export --format trl: data.env_module ${cfg.data.env_module} is a custom environment with no Python reward port; TRL export supports data.env ${TRL_ENVS.join(', ')}`);
    const envName = cfg.data.env;
    if (!isTrlEnv(envName)) throw new Error(`export --format trl: data.env ${envName} has no Python reward port yet (supported: ${TRL_ENVS.join(', ')})`);
    const out = requireString(args, 'out');
    const gpus = getNumber(args, 'gpus', 8);
    const log = (s: string) => process.stderr.write(s);
    const run = getString(args, 'run');
    const adapterDir = getString(args, 'adapter') ?? (run ? join(run, 'adapter') : undefined);
    const corpusFile = corpusFileOf(envName, cfg.data.corpus);
    const corpus = corpusFile ? readFileSync(corpusFile, 'utf8') : null;
    const env = buildEnvironment(cfg, exportServices(corpus !== null && corpusFile ? { text: corpus, file: corpusFile } : null));
    const tasks = loadTasksFor(cfg, 'train', log);
    const evalTasks = cfg.data.env === 'story' ? [] : loadTasksFor(cfg, 'eval', log);
    const python = new Map<string, string>();
    for (const name of [...COMMON_PY, ...REWARD_PY[envName]]) python.set(name, readPython(name));
    const adapterFlag = getString(args, 'adapter') ? `--adapter ${adapterDir}` : `--run ${run}`;
    const adapter = adapterDir ? readAdapter(adapterDir, adapterFlag) : null;
    const files = buildBundle({ cfg, env, tasks, evalTasks, adapter, python, corpus, gpus });
    await writeFiles(out, files);
    if (!adapterDir) log('no --run or --adapter: the bundle starts from a fresh LoRA (train_grpo.py --adapter "")\n');
    log(`bundle written to ${out} (${files.size} files, ${tasks.length} train tasks); next: see ${join(out, 'README.md')}\n`);
    return 0;
  },
};
