// SharedKeys (src/gpu/shared-keys.ts): which slots hold a root slot's keys after KvCache.copySlot,
// the hand-over when a root is reset, and the chunk table the grouped attention reads.
import { describe, expect, it } from 'vitest';
import { GROUP_CHUNK_WORDS, SharedKeys } from '../../../src/gpu/shared-keys';

/** The table's chunks as { rows (the live ones), S, root }. */
function chunks(t: Uint32Array): { rows: number[]; S: number; root: number }[] {
  return Array.from({ length: t[0] }, (_, w) => {
    const o = 4 + GROUP_CHUNK_WORDS * w, n = t[o + 6];
    return { rows: Array.from(t.subarray(o, o + n)), S: t[o + 4], root: t[o + 5] };
  });
}

/** A row table [M, 2] from (slot, position) pairs. */
const rowTable = (rows: [number, number][]) => Uint32Array.from(rows.flat());

describe('SharedKeys', () => {
  it('records copies, hands a reset root\'s sharers to the first of them, and forgets a reset sharer', () => {
    const k = new SharedKeys(6);
    k.copied(1, [2, 4, 5], 10);
    expect([2, 4, 5].map((s) => k.of(s))).toEqual([2, 4, 5].map(() => ({ root: 1, len: 10 })));
    expect(k.of(1)).toEqual({ root: -1, len: 0 });
    // A copy of a sharer shares the root's keys, at most as many as the sharer holds.
    k.copied(2, [3], 12);
    expect(k.of(3)).toEqual({ root: 1, len: 10 });
    k.emptied(4);
    expect(k.of(4)).toEqual({ root: -1, len: 0 });
    k.emptied(1);
    expect([2, 3, 5].map((s) => k.of(s))).toEqual([{ root: -1, len: 0 }, { root: 2, len: 10 }, { root: 2, len: 10 }]);
    k.clear();
    expect([0, 1, 2, 3, 4, 5].every((s) => k.of(s).root === -1)).toBe(true);
  });

  it('chunks rows of one root by four, S the keys all of a chunk see rounded down to the key step; lone rows after', () => {
    const k = new SharedKeys(8);
    k.copied(0, [1, 2, 3, 4, 5], 11);
    k.copied(6, [7], 9);
    // decode rows of slots 0..5 (root 0), slot 6's and 7's rows, where 7's first row sees 8 keys
    const rows = rowTable([[0, 14], [1, 12], [2, 13], [3, 15], [4, 16], [5, 11], [6, 9], [7, 7], [7, 8]]);
    expect(chunks(k.table(rows, 9, 2)!)).toEqual([
      { rows: [0, 1, 2, 3], S: 10, root: 0 },
      { rows: [6, 7, 8], S: 8, root: 6 },
      { rows: [4, 5], S: 10, root: 0 },
    ]);
    expect(chunks(k.table(rows, 9, 4)!).map((c) => c.S)).toEqual([8, 8, 8]);
    // padding repeats the chunk's first row
    const t = k.table(rows, 9, 2)!;
    expect(Array.from(t.subarray(4 + GROUP_CHUNK_WORDS * 2, 4 + GROUP_CHUNK_WORDS * 2 + 4))).toEqual([4, 5, 4, 4]);
  });

  it('is null when no two rows share keys; a lone row of a group shares nothing', () => {
    const k = new SharedKeys(4);
    expect(k.table(rowTable([[0, 3], [1, 4]]), 2, 2)).toBeNull();
    k.copied(0, [1], 6);
    expect(k.table(rowTable([[1, 7], [2, 3]]), 2, 2)).toBeNull();
    // rows of the group that see no shared key yet (S rounds to 0) share nothing either
    expect(k.table(rowTable([[0, 0], [1, 7]]), 2, 2)).toBeNull();
    const t = k.table(rowTable([[2, 3], [0, 7], [1, 7]]), 3, 2)!;
    expect(chunks(t)).toEqual([{ rows: [1, 2], S: 6, root: 0 }, { rows: [0], S: 0, root: 2 }]);
  });
});
