// A dry run of the GPU buffer pool (src/gpu/pool.ts) for the memory planner: the same 16-byte
// rounding, the same reuse of freed buffers by (size, usage), the same `allocated` and `peak`
// counters, but no device. Every buffer is booked to a named row, and the rows at the moment of
// the peak are what memory-plan.ts reports. Exercised by tests/unit/train/train-plan.test.ts.
import { BufferPool } from '../gpu/pool';

export type SimUsage = 'storage' | 'uniform' | 'readback';

export interface SimBuffer {
  readonly size: number;
  readonly usage: SimUsage;
  row: string;
}

/** Where freed buffers the pool keeps for reuse are booked. */
export const POOL_FREE_ROW = 'pool: freed buffers kept for reuse';

export class PoolSim {
  allocated = 0;
  peak = 0;
  /** Bytes the 16-byte rounding added to the buffers created. */
  rounding = 0;
  /** Bytes of freed buffers kept for reuse (allocated - in use). */
  freeBytes = 0;
  /** The largest buffer created (rounded bytes) and its row: what maxBufferSize / maxStorageBufferBindingSize limit. */
  largest = { bytes: 0, row: '' };
  private readonly free = new Map<string, SimBuffer[]>();
  private readonly rows = new Map<string, number>();
  private peakRows = new Map<string, number>();
  readonly notes = new Map<string, string>();

  /** Like BufferPool.acquire: reuses a free buffer of the same rounded size and usage. */
  acquire(bytes: number, usage: SimUsage, row: string, note?: string): SimBuffer {
    if (note && !this.notes.has(row)) this.notes.set(row, note);
    const size = BufferPool.roundSize(bytes);
    const reused = this.free.get(`${size}:${usage}`)?.pop();
    if (reused) {
      this.freeBytes -= size;
      this.book(reused.row, -size);
      reused.row = row;
      this.book(row, size);
      return reused;
    }
    this.rounding += size - bytes;
    if (size > this.largest.bytes) this.largest = { bytes: size, row };
    this.allocated += size;
    this.book(row, size);
    if (this.allocated > this.peak) {
      this.peak = this.allocated;
      this.peakRows = new Map(this.rows);
    }
    return { size, usage, row };
  }

  /** Like BufferPool.release: the buffer stays allocated, free for reuse. */
  release(...bufs: SimBuffer[]): void {
    for (const b of bufs) {
      this.book(b.row, -b.size);
      b.row = POOL_FREE_ROW;
      this.book(b.row, b.size);
      this.freeBytes += b.size;
      const key = `${b.size}:${b.usage}`;
      const list = this.free.get(key) ?? [];
      list.push(b);
      this.free.set(key, list);
    }
  }

  /** Like BufferPool.destroy on a held buffer. */
  destroy(b: SimBuffer): void {
    this.book(b.row, -b.size);
    this.allocated -= b.size;
  }

  /** Like BufferPool.trim: destroys every free buffer. */
  trim(): void {
    for (const list of this.free.values()) for (const b of list) this.destroy(b);
    this.free.clear();
    this.freeBytes = 0;
  }

  /** Row -> bytes now (rows with 0 bytes left out), e.g. at the moment a step holds the most. */
  rowsNow(): Map<string, number> {
    return new Map([...this.rows].filter(([, n]) => n > 0));
  }

  /** Row -> bytes at the peak (rows with 0 bytes left out). */
  rowsAtPeak(): Map<string, number> {
    return new Map([...this.peakRows].filter(([, n]) => n > 0));
  }

  private book(row: string, bytes: number): void {
    this.rows.set(row, (this.rows.get(row) ?? 0) + bytes);
  }
}
