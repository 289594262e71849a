// Deterministic shuffling and batching of training examples over epochs. The order of epoch e is
// a pure function of (seed, e), so the whole data position is the DataCursor {seed, epoch,
// position} a checkpoint stores (src/train/checkpoint.ts) and a resumed run sees the same
// batches. Tested by tests/unit/train/train-data.test.ts.
import { mixSeed, mulberry32, permutation } from '../util/rng';

/** Where the data stream stands: the next batch is batch `position` of epoch `epoch`. */
export interface DataCursor {
  seed: number;
  epoch: number;
  position: number;
}

export interface BatcherOptions {
  /** B: examples per batch. */
  batchSize: number;
  seed: number;
  /** Shuffle every epoch (default true); false keeps file order. */
  shuffle?: boolean;
  /** Drop the last, smaller batch of each epoch (default false). */
  dropLast?: boolean;
}

export interface Batch {
  epoch: number;
  /** Index of this batch within its epoch. */
  index: number;
  /** Example indices, B of them (fewer in an epoch's last batch unless dropLast). */
  indices: number[];
}

/** The example order of one epoch. */
export function epochOrder(n: number, seed: number, epoch: number, shuffle = true): number[] {
  if (!shuffle) return Array.from({ length: n }, (_, i) => i);
  return permutation(n, mulberry32(mixSeed(seed, epoch)));
}

export class SftBatcher {
  private order: number[] = [];
  private orderEpoch = -1;
  private epoch: number;
  private position: number;

  constructor(readonly size: number, readonly opts: BatcherOptions, cursor?: DataCursor) {
    const B = opts.batchSize;
    if (!Number.isInteger(B) || B <= 0) throw new Error(`SftBatcher: batchSize is ${B}; expected a positive integer`);
    if (!Number.isInteger(opts.seed)) throw new Error(`SftBatcher: seed is ${opts.seed}; expected an integer`);
    if (size <= 0) throw new Error('SftBatcher: the dataset has no examples; check the skipped-line report of the data file');
    if (opts.dropLast && size < B) throw new Error(`SftBatcher: ${size} examples make no full batch of ${B} with dropLast; lower the batch size`);
    if (cursor && cursor.seed !== opts.seed) throw new Error(`SftBatcher: the cursor was made with seed ${cursor.seed}, not ${opts.seed}; resume with the checkpoint's seed`);
    this.epoch = cursor?.epoch ?? 0;
    this.position = cursor?.position ?? 0;
    if (this.position > this.batchesPerEpoch) throw new Error(`SftBatcher: cursor position ${this.position} is past the ${this.batchesPerEpoch} batches of an epoch`);
  }

  get batchesPerEpoch(): number {
    const B = this.opts.batchSize;
    return this.opts.dropLast ? Math.floor(this.size / B) : Math.ceil(this.size / B);
  }

  /** The position to store in a checkpoint (the next batch to be returned). */
  get cursor(): DataCursor {
    return { seed: this.opts.seed, epoch: this.epoch, position: this.position };
  }

  next(): Batch {
    if (this.position >= this.batchesPerEpoch) {
      this.epoch++;
      this.position = 0;
    }
    if (this.orderEpoch !== this.epoch) {
      this.order = epochOrder(this.size, this.opts.seed, this.epoch, this.opts.shuffle ?? true);
      this.orderEpoch = this.epoch;
    }
    const B = this.opts.batchSize;
    const index = this.position++;
    return { epoch: this.epoch, index, indices: this.order.slice(index * B, Math.min(this.size, (index + 1) * B)) };
  }
}
