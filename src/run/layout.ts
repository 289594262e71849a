// Where each part of a run folder lives, for every trainer (docs/run-folder.md "Layout"): the
// loops name checkpoint and export paths with these, the recorder and recovery read them.
// Exercised by tests/unit/run/run-storage.test.ts and every run test through the loops.
export const CONFIG_FILE = 'config.yaml';
export const METRICS_FILE = 'metrics.jsonl';
export const ROLLOUTS_FILE = 'rollouts.jsonl';
/** How the run ended (recorder option `status`); absent while it runs or when it was cut off. */
export const STATUS_FILE = 'status.json';
/** The studio's note of the run's data (engine worker runs), so a resume finds it again. */
export const SOURCE_FILE = 'source.json';
/** The last held-out evaluation of the run's adapter next to the base (EvalReport, studio Eval panel). */
export const EVAL_FILE = 'eval.json';

/** Every trainer's checkpoints live here, one folder per step (the newest `log.keep_checkpoints` kept). */
export const CHECKPOINTS_DIR = 'checkpoints';
/** The folder of a run's checkpoint after `step` steps (the metrics rows' `step`), for every trainer. */
export function checkpointPath(step: number): string {
  return `${CHECKPOINTS_DIR}/step-${step}`;
}
/** Where SFT runs made before the one layout kept their only checkpoint; still read (never written) on resume. */
export const LEGACY_SFT_CHECKPOINT = 'checkpoint';
