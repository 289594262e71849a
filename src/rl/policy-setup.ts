// What an RL run trains and compares against, decided once at the start: the Trainer's params (a
// fresh adapter, the starting adapter of model.adapter with the lora section taken from its
// adapter_config.json, or every weight), the KL reference when beta > 0 (reference-policy.ts) and,
// at the end of a full-mode run, the trained model as a Hugging Face folder (config.json,
// model.safetensors, tokenizer files). Used by node-run.ts openRun and run.ts; tested by
// tests/unit/rl/rl-start-adapter.test.ts and rl-full-mode.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import { readPeftAdapter } from '../model/io/peft';
import type { FileSource } from '../model/io/source';
import type { Tokenizer } from '../model/tokenizer';
import type { LoraWeights, ModelConfig } from '../model/types';
import { exportHfModel, tokenizerFilesOf, type ExportFiles } from '../train/peft-export';
import type { Trainer, TrainerConfig } from '../train/trainer';
import type { RlConfig } from './config-schema';
import { baseReference, frozenReference, type ReferencePolicy } from './reference-policy';
import { configFromAdapter } from './start-adapter';

export interface StartPolicy {
  /** The config with lora.* taken from the starting adapter (unchanged without one). */
  cfg: RlConfig;
  adapter: LoraWeights | null;
}

/** Reads model.adapter (when set) from `src` and reconciles the lora section with it. */
export async function readStartPolicy(cfg: RlConfig, modelCfg: ModelConfig, src: (dir: string) => FileSource): Promise<StartPolicy> {
  const dir = cfg.model.adapter;
  if (dir === null) return { cfg, adapter: null };
  const adapter = await readPeftAdapter(src(dir), modelCfg);
  return { cfg: configFromAdapter(cfg, adapter.config, dir), adapter };
}

/** The Trainer's params for the start policy (the rest of TrainerConfig from rlTrainerConfigOf). */
export function withStartAdapter(tc: TrainerConfig, start: StartPolicy): TrainerConfig {
  return start.adapter ? { ...tc, params: { mode: 'lora', adapter: start.adapter } } : tc;
}

/**
 * The KL reference of a GRPO run with beta > 0 (undefined otherwise: no reference pass). Build it
 * before restoring a checkpoint: the frozen copy must be the starting policy, not a resumed one.
 */
export function referenceFor(rt: GpuRuntime, trainer: Trainer, cfg: RlConfig, log: (s: string) => void): ReferencePolicy | undefined {
  if ((cfg.trainer !== 'grpo' && cfg.trainer !== 'ppo') || cfg.grpo.beta === 0) return undefined;
  if (trainer.trainable.mode === 'lora' && cfg.model.adapter === null) return baseReference(trainer);
  const ref = frozenReference(rt, trainer);
  const what = trainer.trainable.mode === 'full' ? 'the starting weights (lora.mode full)' : `the starting adapter ${cfg.model.adapter}`;
  log(`KL reference: a frozen copy of ${what}, ${(ref.bytes / 2 ** 20).toFixed(2)} MiB on the GPU (plus its largest tensor during the reference pass)\n`);
  return ref;
}

/** The trained model of a full-mode run as a Hugging Face folder's files. */
export async function fullModelFiles(trainer: Trainer, tokenizer: Tokenizer): Promise<ExportFiles> {
  return exportHfModel(trainer.model.cfg, await trainer.exportFull(), tokenizerFilesOf(tokenizer));
}
