// Which slots of a KV cache hold another slot's keys and values at their first positions
// (KvCache.copySlot: GRPO's samples of one prompt), and the chunk table by which the row-table
// attention reads those shared keys once for up to four rows (attn_group_hs{8,16}_h2 in
// shaders/attention.wgsl). Tested by tests/unit/gpu/shared-keys.test.ts and
// tests/unit/gpu/attention-forward.test.ts.

/** Rows per chunk of the table (the kernel's four named row states). */
export const GROUP_CHUNK_ROWS = 4;

/** u32 words per chunk: (four rows), (S, root slot, rows in the chunk, 0). */
export const GROUP_CHUNK_WORDS = 8;

/**
 * Per slot, the slot whose keys it holds (root, -1: none) at positions [0, len). A root is never
 * itself a sharer; resetting one hands its sharers to the first of them, which holds the same keys.
 */
export class SharedKeys {
  private readonly root: Int32Array;
  private readonly len: Int32Array;

  constructor(readonly B: number) {
    this.root = new Int32Array(B).fill(-1);
    this.len = new Int32Array(B);
  }

  /** The slot whose keys `slot` shares (-1: none) and how many. */
  of(slot: number): { root: number; len: number } {
    return { root: this.root[slot], len: this.root[slot] >= 0 ? this.len[slot] : 0 };
  }

  /** Slots `dsts` now hold the keys src holds at [0, n) (copied from it). */
  copied(src: number, dsts: readonly number[], n: number): void {
    const r = this.root[src] >= 0 ? this.root[src] : src;
    const m = this.root[src] >= 0 ? Math.min(n, this.len[src]) : n;
    for (const d of dsts) {
      if (d === r) continue;
      this.emptied(d);
      this.root[d] = r;
      this.len[d] = m;
    }
  }

  /** Slot s no longer holds its keys (reset): its sharers move to the first of them. */
  emptied(s: number): void {
    this.root[s] = -1;
    let heir = -1;
    for (let d = 0; d < this.B; d++) {
      if (this.root[d] !== s) continue;
      if (heir < 0) {
        heir = d;
        this.root[d] = -1;
      } else {
        this.root[d] = heir;
        this.len[d] = Math.min(this.len[d], this.len[heir]);
      }
    }
  }

  clear(): void {
    this.root.fill(-1);
  }

  /**
   * The chunk table of a step's rows ([M, 2] (slot, position)), or null when no two rows share
   * keys: a header (W, 0, 0, 0), then per chunk four row indices (the first repeated where it has
   * fewer), the shared key count S, the root slot and its row count. Rows of slots with one root
   * (the root's own rows too) go in chunks of up to four, in row order; S is the fewest keys all of
   * a chunk's rows share and see (their positions + 1), rounded down to `align` (the kernels' key
   * step). A row alone in its chunk shares nothing (S = 0). Chunks of several rows come first.
   */
  table(rows: Uint32Array, M: number, align: number): Uint32Array | null {
    const byRoot = new Map<number, number[]>();
    const alone: number[] = [];
    const roots = new Set<number>();
    for (let s = 0; s < this.B; s++) if (this.root[s] >= 0) roots.add(this.root[s]);
    for (let m = 0; m < M; m++) {
      const s = rows[2 * m];
      const r = this.root[s] >= 0 ? this.root[s] : roots.has(s) ? s : -1;
      if (r < 0) alone.push(m);
      else if (byRoot.has(r)) byRoot.get(r)!.push(m);
      else byRoot.set(r, [m]);
    }
    const chunks: { rows: number[]; S: number; root: number }[] = [];
    for (const [r, ms] of byRoot) {
      for (let i = 0; i < ms.length; i += GROUP_CHUNK_ROWS) {
        const part = ms.slice(i, i + GROUP_CHUNK_ROWS);
        let S = part.length > 1 ? Infinity : 0;
        for (const m of part) {
          const s = rows[2 * m];
          S = Math.min(S, rows[2 * m + 1] + 1, s === r ? Infinity : this.len[s]);
        }
        chunks.push({ rows: part, S: S - (S % align), root: r });
      }
    }
    if (!chunks.some((c) => c.rows.length > 1 && c.S > 0)) return null;
    for (const m of alone) chunks.push({ rows: [m], S: 0, root: rows[2 * m] });
    chunks.sort((a, b) => b.rows.length - a.rows.length);
    const out = new Uint32Array(4 + GROUP_CHUNK_WORDS * chunks.length);
    out[0] = chunks.length;
    chunks.forEach((c, w) => {
      const o = 4 + GROUP_CHUNK_WORDS * w;
      for (let i = 0; i < GROUP_CHUNK_ROWS; i++) out[o + i] = c.rows[i] ?? c.rows[0];
      out.set([c.S, c.root, c.rows.length, 0], o + 4);
    });
    return out;
  }
}
