// Node only (node:fs): puts a run folder back in order before a resume. Finds the newest complete
// checkpoint among a run's checkpoint folders and the side folders an interrupted write leaves
// (`X.tmp` complete or not, `X.old`), moves it under its final name, removes the side folders,
// and cuts metrics.jsonl / rollouts.jsonl rows past its step (and a half-written last line), so
// a resumed run's files equal an uninterrupted run's. Tested by tests/unit/train/run-folder.test.ts.
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeDirSource } from '../model/io/node-source';
import type { ModelConfig } from '../model/types';
import { loadTrainState, type TrainState } from './checkpoint';
import { OLD_SUFFIX, replaceDir, syncDir, TMP_SUFFIX, writeFileSynced } from './write-files';

/** One folder that may hold a checkpoint. */
export interface CheckpointSlot {
  dir: string;
  /** The name it has when complete (equal to dir for a final folder). */
  final: string;
  /** An upper bound of its step (for stopping early), Infinity when unknown. */
  hint: number;
}

export interface FoundCheckpoint {
  dir: string;
  state: TrainState;
  /** The run's step the checkpoint was taken after (the metrics rows' `step`). */
  step: number;
}

const exists = async (p: string) => stat(p).then(() => true, () => false);
const isSide = (s: CheckpointSlot) => s.dir !== s.final;

/** The SFT layout: OUT/checkpoint (and its side folders). */
export async function sftSlots(out: string): Promise<CheckpointSlot[]> {
  const final = join(out, 'checkpoint');
  const dirs = [final, final + TMP_SUFFIX, final + OLD_SUFFIX];
  const found: CheckpointSlot[] = [];
  for (const dir of dirs) if (await exists(dir)) found.push({ dir, final, hint: Infinity });
  return found;
}

/** The RL layout: OUT/checkpoints/step-N (and their side folders), newest first. */
export async function rlSlots(out: string): Promise<CheckpointSlot[]> {
  const root = join(out, 'checkpoints');
  if (!(await exists(root))) return [];
  const slots: CheckpointSlot[] = [];
  for (const name of await readdir(root)) {
    const m = /^step-(\d+)(\.tmp|\.old)?$/.exec(name);
    if (m) slots.push({ dir: join(root, name), final: join(root, `step-${m[1]}`), hint: Number(m[1]) });
  }
  // Newest first; at equal steps the final folder before its side folders.
  return slots.sort((a, b) => b.hint - a.hint || Number(isSide(a)) - Number(isSide(b)));
}

/**
 * The newest complete checkpoint among `slots` (a folder counts when loadTrainState reads it
 * whole), moved under its final name, with every side folder removed. null when there is none;
 * throws when final folders exist but none can be read (so a resume never starts over a run).
 */
export async function recoverCheckpoint(slots: CheckpointSlot[], cfg: ModelConfig, stepOf: (s: TrainState) => number, log: (s: string) => void): Promise<FoundCheckpoint | null> {
  let best: (FoundCheckpoint & { slot: CheckpointSlot }) | null = null;
  const failures: string[] = [];
  for (const slot of slots) {
    if (best && best.step >= slot.hint) break;
    try {
      const state = await loadTrainState(new NodeDirSource(slot.dir), cfg);
      const step = stepOf(state);
      if (!best || step > best.step) best = { dir: slot.dir, state, step, slot };
    } catch (e) {
      failures.push(`${slot.dir}: ${(e as Error).message}`);
    }
  }
  if (!best) {
    if (slots.some((s) => !isSide(s))) throw new Error(`no checkpoint could be read:\n  ${failures.join('\n  ')}\nmove the folder aside, or start a new run with another --out`);
    for (const s of slots) await rm(s.dir, { recursive: true, force: true });
    return null;
  }
  for (const f of failures) log(`resume: ignoring an incomplete checkpoint (${f.split('\n')[0]})\n`);
  const chosen = best.slot;
  for (const s of slots) if (isSide(s) && s !== chosen) await rm(s.dir, { recursive: true, force: true });
  if (isSide(chosen)) {
    // A complete .tmp or .old: the final folder, if any, is older or incomplete.
    if (chosen.dir.endsWith(OLD_SUFFIX)) {
      await rm(chosen.final, { recursive: true, force: true });
      await rename(chosen.dir, chosen.final);
    } else {
      await replaceDir(chosen.dir, chosen.final);
    }
    log(`resume: recovered the complete checkpoint ${chosen.dir} as ${chosen.final}\n`);
  }
  return { dir: chosen.final, state: best.state, step: best.step };
}

/**
 * Keeps the rows of a JSON-lines log whose `step` is at most `maxStep`, and drops a half-written
 * line; the file is rewritten through a temporary name. Returns how many lines were dropped.
 */
export async function cutJsonl(file: string, maxStep: number): Promise<number> {
  if (!(await exists(file))) return 0;
  const lines = (await readFile(file, 'utf8')).split('\n');
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
  const tmp = file + TMP_SUFFIX;
  await writeFileSynced(tmp, keep.map((l) => l + '\n').join(''));
  await rename(tmp, file);
  await syncDir(join(file, '..'));
  return dropped;
}
