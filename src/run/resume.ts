// Puts a stored run folder in order for a resume, the same way for the CLI (`sft --resume`,
// `train --resume`: src/cli/commands/sft.ts, src/run/rl-node-run.ts) and the engine worker
// (src/workers/engine/runs.ts): the newest complete checkpoint recovered under its final name,
// the logs cut to its step: one path for every trainer (RL loops continue from resumePoint(state)).
// Exercised by tests/unit/rl/rl-resume.test.ts, tests/unit/cli/run-kill.test.ts and tests/e2e/studio-runs.spec.ts.
import type { ModelConfig } from '../model/types';
import { resumePoint } from './rl-run';
import type { TrainerKind } from '../rl/config-schema';
import type { TrainState } from '../train/checkpoint';
import type { RunConfig } from './config';
import { checkpointSlots, cutJsonl, recoverCheckpoint } from './run-folder';
import { isMap, parseDocument, type Document } from 'yaml';
import { CONFIG_FILE, METRICS_FILE, ROLLOUTS_FILE } from './layout';
import { readText, type RunStorage } from './storage';

export interface RunResume {
  /** The newest complete checkpoint's state; null when the folder has none yet (the run starts over). */
  state: TrainState | null;
  /** Where it was read (storage.where), for messages. */
  from: string | null;
  /** Its folder relative to the run folder (checkpoints/step-N, or an old SFT run's checkpoint). */
  dir: string | null;
  /** The run step it was taken after (0 when none): the step-N of its folder. */
  step: number;
  /** metrics.jsonl + rollouts.jsonl rows dropped past it. */
  cut: number;
}

/**
 * Every trainer: the newest complete checkpoints/step-N (or an old SFT run's checkpoint/)
 * recovered, metrics.jsonl and rollouts.jsonl cut to its step. The step is the state's run step:
 * SFT's optimizer updates, the RL loops' rl_step (resumePoint).
 */
export async function prepareResume(s: RunStorage, cfg: ModelConfig, trainer: TrainerKind, log: (line: string) => void): Promise<RunResume> {
  const stepOf = trainer === 'sft' ? (st: TrainState) => st.step : (st: TrainState) => resumePoint(st).step;
  const found = await recoverCheckpoint(s, await checkpointSlots(s), cfg, stepOf, log);
  const step = found?.step ?? 0;
  const cut = (await cutJsonl(s, METRICS_FILE, step)) + (await cutJsonl(s, ROLLOUTS_FILE, step));
  return { state: found?.state ?? null, from: found ? s.where(found.dir) : null, dir: found?.dir ?? null, step, cut };
}

/** What an SFT checkpoint remembers of its data: the file it read and the longest example. */
export function savedSftData(state: TrainState | null): { file?: string; maxLength?: number } {
  const saved = state?.config as { data?: { file?: string }; maxLength?: number } | undefined;
  return { file: saved?.data?.file, maxLength: saved?.maxLength };
}

const KEEP_FIELD = 'log.keep_checkpoints';

/** The run folder's config.yaml as a YAML document; null when it is missing or does not parse. */
async function savedDocument(s: RunStorage): Promise<Document | null> {
  const text = await readText(s, CONFIG_FILE);
  if (text === null) return null;
  const doc = parseDocument(text);
  return doc.errors.length ? null : doc;
}

/** One field of the saved config.yaml (undefined when the file or the field is missing, or it does not parse). */
async function savedField(s: RunStorage, path: string[]): Promise<unknown> {
  return (await savedDocument(s))?.getIn(path);
}

/**
 * The keep-last-N a resumed run goes on with: the one its config.yaml saved (the run's own
 * setting), unless `--set log.keep_checkpoints=N` is among `sets` (then `current`, which already
 * holds it). `current` too when the folder has no config.yaml or it names no valid count.
 */
export async function resumedKeepCheckpoints(s: RunStorage, current: number, sets: readonly string[]): Promise<number> {
  if (sets.some((x) => x.trim().startsWith(`${KEEP_FIELD}=`))) return current;
  const saved = await savedField(s, ['log', 'keep_checkpoints']);
  return typeof saved === 'number' && Number.isInteger(saved) && saved >= 0 ? saved : current;
}

/**
 * The config.yaml a resumed SFT run records: its own (a `sft --resume` need not repeat the run's
 * flags, and the checkpoint's settings are what it trains with), with only what a resume may
 * change set (train.steps, log.checkpoint_every, log.keep_checkpoints); comments kept. Null when
 * the folder has no config.yaml or it does not parse (the caller writes the resolved one).
 */
export async function resumedConfigYaml(s: RunStorage, set: { steps: number; checkpointEvery: number; keepCheckpoints: number }): Promise<string | null> {
  const doc = await savedDocument(s);
  if (!doc || !isMap(doc.contents)) return null;
  doc.setIn(['train', 'steps'], set.steps);
  doc.setIn(['log', 'checkpoint_every'], set.checkpointEvery);
  doc.setIn(['log', 'keep_checkpoints'], set.keepCheckpoints);
  return doc.toString();
}

/** The model.template a resumed SFT run tokenizes its data with: its config.yaml's, else `current`. */
export async function resumedTemplate(s: RunStorage, current: RunConfig['model']['template']): Promise<RunConfig['model']['template']> {
  const saved = await savedField(s, ['model', 'template']);
  return saved === 'auto' || saved === 'plain' || saved === 'plain_no_tools' ? saved : current;
}
