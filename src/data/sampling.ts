// Seeded, deterministic task sampling: shuffles, samples without replacement, an epoch-based
// sampler whose order is a pure function of (seed, epoch) so a run resumes from {epoch, index},
// and train/eval splits by group (e.g. SQuAD article). The generator is src/util/rng.ts's.
// Tested by tests/unit/data/data-sampling.test.ts.
import { mixSeed, mulberry32, permutation } from '../util/rng';

/** Uniforms in [0, 1) from a 32-bit seed (mulberry32, shared with the SFT batcher). */
export const seededRandom = mulberry32;

/** One 32-bit seed from a seed and a salt, e.g. (seed, epoch). */
export const deriveSeed = mixSeed;

function checkSeed(seed: number, who: string): void {
  if (!Number.isInteger(seed)) throw new Error(`${who}: seed must be an integer, got ${seed}`);
}

/** A shuffled copy (Fisher-Yates); the input is not modified. */
export function shuffle<T>(items: readonly T[], seed: number): T[] {
  checkSeed(seed, 'shuffle');
  return permutation(items.length, mulberry32(seed)).map((i) => items[i]);
}

/** n distinct items, in random order (the first n of the seeded shuffle). */
export function sampleTasks<T>(tasks: readonly T[], n: number, seed: number): T[] {
  if (!Number.isInteger(n) || n < 0) throw new Error(`sampleTasks: n must be a non-negative integer, got ${n}`);
  if (n > tasks.length) throw new Error(`sampleTasks: asked for ${n} tasks but only ${tasks.length} are loaded; lower n or use TaskSampler for several epochs`);
  return shuffle(tasks, seed).slice(0, n);
}

export interface SamplerPosition {
  epoch: number;
  /** Next index into the epoch's order. */
  index: number;
}

/**
 * Endless batches of tasks: each epoch is a fresh shuffle seeded by (seed, epoch), and a batch
 * that crosses the end of an epoch continues into the next. `position` is all a checkpoint needs.
 */
export class TaskSampler<T> {
  private order: number[] = [];
  private orderEpoch = -1;
  position: SamplerPosition;

  constructor(
    private readonly tasks: readonly T[],
    private readonly seed: number,
    start: SamplerPosition = { epoch: 0, index: 0 },
  ) {
    checkSeed(seed, 'TaskSampler');
    if (!tasks.length) throw new Error('TaskSampler: no tasks to sample from (did the dataset load?)');
    this.position = { ...start };
  }

  /** The permutation of task indices of one epoch. */
  epochOrder(epoch: number): number[] {
    if (epoch !== this.orderEpoch) {
      this.order = permutation(this.tasks.length, mulberry32(mixSeed(this.seed, epoch)));
      this.orderEpoch = epoch;
    }
    return this.order;
  }

  next(n: number): T[] {
    if (!Number.isInteger(n) || n < 1) throw new Error(`TaskSampler.next: n must be a positive integer, got ${n}`);
    const out: T[] = [];
    while (out.length < n) {
      if (this.position.index >= this.tasks.length) this.position = { epoch: this.position.epoch + 1, index: 0 };
      out.push(this.tasks[this.epochOrder(this.position.epoch)[this.position.index++]]);
    }
    return out;
  }
}

/**
 * Deterministic train/eval split keeping each group (e.g. an article) on one side: the groups are
 * shuffled with `seed` and the first ones go to eval until it holds at least `evalFraction` of
 * the groups. Without `groupOf`, every item is its own group.
 */
export function splitByGroup<T>(items: readonly T[], evalFraction: number, seed: number, groupOf: (t: T) => string = (t) => JSON.stringify(t)): { train: T[]; eval: T[] } {
  if (!(evalFraction > 0 && evalFraction < 1)) throw new Error(`splitByGroup: evalFraction must be in (0, 1), got ${evalFraction}`);
  const groups = [...new Set(items.map(groupOf))].sort();
  const evalGroups = new Set(shuffle(groups, seed).slice(0, Math.max(1, Math.round(groups.length * evalFraction))));
  const train: T[] = [];
  const evalSet: T[] = [];
  for (const t of items) (evalGroups.has(groupOf(t)) ? evalSet : train).push(t);
  return { train, eval: evalSet };
}
