// Puts a run folder back in order before a resume, through RunStorage (src/run/storage.ts: a Node
// folder or OPFS), and keeps the last N checkpoints (pruneCheckpoints, called by the recorder).
// Finds the newest complete checkpoint among a run's checkpoint folders and the
// side folders an interrupted write leaves (`X.tmp` complete or not, `X.old`), moves it under its
// final name, removes the side folders, and cuts metrics.jsonl / rollouts.jsonl rows past its step
// (and a half-written last line), so a resumed run's files equal an uninterrupted run's.
// Tested by tests/unit/run/run-folder.test.ts.
import type { ModelConfig } from '../model/types';
import { OLD_SUFFIX, StorageSource, TMP_SUFFIX, joinPath, readText, type RunStorage } from './storage';
import { loadTrainState, type TrainState } from '../train/checkpoint';
import { CHECKPOINTS_DIR, LEGACY_SFT_CHECKPOINT, checkpointPath } from './layout';

/** One folder that may hold a checkpoint (paths relative to the run folder). */
export interface CheckpointSlot {
  dir: string;
  /** The name it has when complete (equal to dir for a final folder). */
  final: string;
  /** An upper bound of its step (for stopping early), Infinity when unknown. */
  hint: number;
}

export interface FoundCheckpoint {
  /** Relative to the run folder (storage.where(dir) for messages). */
  dir: string;
  state: TrainState;
  /** The run's step the checkpoint was taken after (the metrics rows' `step`). */
  step: number;
}

const isSide = (s: CheckpointSlot) => s.dir !== s.final;

/**
 * Every trainer's checkpoint folders, newest first: checkpoints/step-N and their side folders,
 * after the read-only `checkpoint/` of SFT runs made before the one layout (its step is unknown
 * until read; new checkpoints never go there).
 */
export async function checkpointSlots(s: RunStorage): Promise<CheckpointSlot[]> {
  const legacy: CheckpointSlot[] = [];
  for (const dir of [LEGACY_SFT_CHECKPOINT, LEGACY_SFT_CHECKPOINT + TMP_SUFFIX, LEGACY_SFT_CHECKPOINT + OLD_SUFFIX]) {
    if (await s.exists(dir)) legacy.push({ dir, final: LEGACY_SFT_CHECKPOINT, hint: Infinity });
  }
  const slots: CheckpointSlot[] = [];
  for (const name of await s.list(CHECKPOINTS_DIR)) {
    const m = STEP_FOLDER.exec(name);
    if (m) slots.push({ dir: joinPath(CHECKPOINTS_DIR, name), final: checkpointPath(Number(m[1])), hint: Number(m[1]) });
  }
  // Newest first; at equal steps the final folder before its side folders.
  return [...legacy, ...slots.sort((a, b) => b.hint - a.hint || Number(isSide(a)) - Number(isSide(b)))];
}

const STEP_FOLDER = /^step-(\d+)(\.tmp|\.old)?$/;

/**
 * Keep-last-N (log.keep_checkpoints): once the checkpoint of step `newest` is complete, removes
 * the complete checkpoints/step-M folders (M < newest) beyond the `keep` newest, the new one
 * counted. keep 0 keeps every one. Returns the folders removed.
 */
export async function pruneCheckpoints(s: RunStorage, keep: number, newest: number): Promise<string[]> {
  if (keep <= 0) return [];
  const older = (await s.list(CHECKPOINTS_DIR))
    .map((name) => /^step-(\d+)$/.exec(name))
    .filter((m) => m !== null)
    .map((m) => Number(m[1]))
    .filter((n) => n < newest)
    .sort((a, b) => b - a);
  const gone = older.slice(keep - 1).map(checkpointPath);
  for (const dir of gone) await s.remove(dir);
  return gone;
}

/**
 * The newest complete checkpoint among `slots` (a folder counts when loadTrainState reads it
 * whole), moved under its final name, with every side folder removed. null when there is none;
 * throws when final folders exist but none can be read (so a resume never starts over a run).
 */
export async function recoverCheckpoint(s: RunStorage, slots: CheckpointSlot[], cfg: ModelConfig, stepOf: (st: TrainState) => number, log: (line: string) => void): Promise<FoundCheckpoint | null> {
  let best: (FoundCheckpoint & { slot: CheckpointSlot }) | null = null;
  const failures: string[] = [];
  for (const slot of slots) {
    if (best && best.step >= slot.hint) break;
    try {
      const state = await loadTrainState(new StorageSource(s, slot.dir), cfg);
      const step = stepOf(state);
      if (!best || step > best.step) best = { dir: slot.dir, state, step, slot };
    } catch (e) {
      failures.push(`${s.where(slot.dir)}: ${(e as Error).message}`);
    }
  }
  if (!best) {
    if (slots.some((x) => !isSide(x))) throw new Error(`no checkpoint could be read:\n  ${failures.join('\n  ')}\nmove the folder aside, or start a new run with another --out`);
    for (const x of slots) await s.remove(x.dir);
    return null;
  }
  for (const f of failures) log(`resume: ignoring an incomplete checkpoint (${f.split('\n')[0]})\n`);
  const chosen = best.slot;
  for (const x of slots) if (isSide(x) && x !== chosen) await s.remove(x.dir);
  if (isSide(chosen)) {
    // A complete .tmp or .old: the final folder, if any, is older or incomplete.
    if (chosen.dir.endsWith(OLD_SUFFIX)) await s.remove(chosen.final);
    await s.replaceFolder(chosen.dir, chosen.final);
    log(`resume: recovered the complete checkpoint ${s.where(chosen.dir)} as ${s.where(chosen.final)}\n`);
  }
  return { dir: chosen.final, state: best.state, step: best.step };
}

/**
 * Keeps the rows of a JSON-lines log whose `step` is at most `maxStep`, and drops a half-written
 * line; the file is rewritten through a temporary name. Returns how many lines were dropped.
 */
export async function cutJsonl(s: RunStorage, file: string, maxStep: number): Promise<number> {
  const text = await readText(s, file);
  if (text === null) return 0;
  const lines = text.split('\n');
  const complete = lines.slice(0, -1);   // the part after the last newline is unfinished (or empty)
  const keep = complete.filter((line) => {
    try {
      const row = JSON.parse(line) as { step?: unknown };
      return typeof row.step === 'number' && row.step <= maxStep;
    } catch {
      return false;
    }
  });
  const dropped = complete.length - keep.length + (lines.at(-1) ? 1 : 0);
  if (dropped === 0) return 0;
  await s.writeFile(file, keep.map((l) => l + '\n').join(''));
  return dropped;
}
