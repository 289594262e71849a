// What the CLI runs when a command gets no --config / --model: the shipped default agent
// (public/models/agent-tiny) and its GRPO preset (configs/agent_grpo.yaml). Paths written in the
// default preset name files of this repository, so they resolve from the repo root, not the
// working directory. Exercised by tests/unit/cli/fresh-clone.test.ts and tests/unit/cli/cli-chat.test.ts.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shippedCorpus, shippedTaskFile } from '../rl/env-factory';
import type { RlConfig } from '../rl/config-validate';

/** The repository root (this file is src/cli/defaults.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The shipped default agent, repo-relative (as help texts show it). */
export const DEFAULT_MODEL = 'public/models/agent-tiny';
/** Its GRPO preset, repo-relative. */
export const DEFAULT_PRESET = 'configs/agent_grpo.yaml';

/** A repo-relative path as an absolute one. */
export function fromRepo(path: string): string {
  return resolve(REPO_ROOT, path);
}

/**
 * `cfg` parsed from the default preset (with the command line's overrides), its file paths made
 * absolute from the repo root: the ones the preset itself wrote (`preset` is the file parsed
 * without overrides: a path the command line changed stays as given, relative to the working
 * directory) and the shipped task and corpus files null stands for. log.out_dir stays relative to
 * the working directory: runs are written where the user is.
 */
export function anchorPresetPaths(cfg: RlConfig, preset: RlConfig): RlConfig {
  const anchor = (v: string | null, fromPreset: string | null): string | null =>
    v !== null && v === fromPreset && !isAbsolute(v) ? fromRepo(v) : v;
  const data = { ...cfg.data };
  const sameEnv = cfg.data.env === preset.data.env;
  data.dataset = anchor(data.dataset, preset.data.dataset);
  data.eval_dataset = anchor(data.eval_dataset, preset.data.eval_dataset);
  data.corpus = anchor(data.corpus, preset.data.corpus);
  if (sameEnv && cfg.trainer !== 'sft') {
    const train = shippedTaskFile(cfg, 'train'), evalFile = shippedTaskFile(cfg, 'eval'), corpus = shippedCorpus(cfg.data.env);
    if (data.dataset === null && train) data.dataset = fromRepo(train);
    if (data.eval_dataset === null && evalFile) data.eval_dataset = fromRepo(evalFile);
    if (data.corpus === null && corpus) data.corpus = fromRepo(corpus);
  }
  const model = { ...cfg.model, path: anchor(cfg.model.path, preset.model.path) ?? cfg.model.path, tokenizer: anchor(cfg.model.tokenizer, preset.model.tokenizer) };
  return { ...cfg, model, data };
}
