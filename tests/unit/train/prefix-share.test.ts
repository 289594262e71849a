// planPrefixShare (src/train/prefix-share.ts): which rows of a training pass a sequence reads from
// an earlier one instead of computing them: the longest common prefix with an earlier root, cut
// at the sequence's first loss row and before its last row; the maps between token rows and
// computed (trunk) rows; no sharing below the minimum saving or across different first tokens.
import { describe, expect, it } from 'vitest';
import { SHARE_MAX_TOKENS, passEnd, planPrefixShare } from '../../../src/train/prefix-share';
import { NO_ROW } from '../../../src/reference/rows';

/** Loss rows [T - 1]: 1 from row `from` on. */
const lossFrom = (T: number, from: number) => Float32Array.from({ length: T - 1 }, (_, t) => (t >= from ? 1 : 0));

describe('planPrefixShare', () => {
  it('shares a group\'s prompt rows up to each sharer\'s first loss row, with maps both ways', () => {
    const P = [5, 6, 7, 8];                    // a prompt of 4 tokens: row 3 predicts the first sampled token
    const seqs = [[...P, 1, 2], [...P, 1, 3, 4], [9, 9, 9], [...P, 2]];
    const loss = [lossFrom(6, 3), lossFrom(7, 3), lossFrom(3, 0), lossFrom(5, 3)];
    const s = planPrefixShare(seqs, loss, 0)!;
    // Sequence 1 shares with 0 up to its first loss row (3), though 5 tokens match; 3 shares 3 rows.
    expect(Array.from(s.root)).toEqual([0, 0, 2, 0]);
    expect(Array.from(s.shared)).toEqual([0, 3, 0, 3]);
    expect(s.maxShared).toBe(3);
    expect(Array.from(s.table)).toEqual([0, 0, 0, 3, 2, 0, 0, 3]);
    const tokens = 6 + 7 + 3 + 5;
    expect(s.rows).toBe(tokens - 6);
    expect(s.passToTrunk.length).toBe(tokens);
    // Token rows 6..8 (sequence 1, positions 0..2) read sequence 0's trunk rows 0..2; row 9 is its own.
    expect(Array.from(s.passToTrunk.subarray(6, 10))).toEqual([0, 1, 2, 6]);
    expect(Array.from(s.passToOwn.subarray(6, 10))).toEqual([NO_ROW, NO_ROW, NO_ROW, 6]);
    // Sequence 3 (token rows 16..20) reads 0..2, then its own rows 13, 14.
    expect(Array.from(s.passToTrunk.subarray(16))).toEqual([0, 1, 2, 13, 14]);
    // trunkToPass inverts passToOwn.
    s.trunkToPass.forEach((r, c) => expect(s.passToOwn[r]).toBe(c));
    expect(Array.from(s.passToOwn).filter((v) => v === NO_ROW).length).toBe(6);
  });

  it('lets a sequence that shares a system prompt be the root of its own group\'s whole prompt', () => {
    const S = [5, 6, 7];                      // a system prompt, then each group's question
    const q1 = [...S, 20, 21, 22], q2 = [...S, 30, 31];
    const seqs = [[...q1, 1, 2], [...q1, 3], [...q2, 4, 5], [...q2, 6], [...q2, 7, 8]];
    const loss = seqs.map((s, b) => lossFrom(s.length, (b < 2 ? q1 : q2).length - 1));
    const s = planPrefixShare(seqs, loss, 0)!;
    // Sequence 2 shares the system prompt with 0; 3 and 4 share their prompt's 4 rows with 2.
    expect(Array.from(s.root)).toEqual([0, 0, 0, 2, 2]);
    expect(Array.from(s.shared)).toEqual([0, 5, 3, 4, 4]);
    // Token rows: sequence 0 at 0..7, 1 at 8..14, 2 at 15..21, 3 at 22..27, 4 at 28..34. Sequence
    // 2's row 3 (token row 18) is its first computed row; 3 and 4 read it and 0's rows 0..2.
    const own2 = s.passToOwn[18];
    expect(own2).not.toBe(NO_ROW);
    expect(Array.from(s.passToTrunk.subarray(22, 27))).toEqual([0, 1, 2, own2, s.passToOwn[26]]);
    expect(Array.from(s.passToTrunk.subarray(28, 33))).toEqual([0, 1, 2, own2, s.passToOwn[32]]);
    expect(Array.from(s.passToOwn.subarray(22, 26))).toEqual([NO_ROW, NO_ROW, NO_ROW, NO_ROW]);
    expect(s.rows).toBe(seqs.reduce((n, q) => n + q.length, 0) - (5 + 3 + 4 + 4));
    s.trunkToPass.forEach((r, c) => expect(s.passToOwn[r]).toBe(c));
  });

  it('keeps every sequence\'s last row, reads from the earliest best match, and gives null below the minimum saving or without a common first token', () => {
    // No loss rows at all: sequence 1 equals sequence 0 yet keeps its last row.
    const same = [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4, 5]];
    const none = same.map((q) => new Float32Array(q.length - 1));
    const s = planPrefixShare(same, none, 0)!;
    expect(Array.from(s.shared)).toEqual([0, 3, 4]);
    expect(Array.from(s.root)).toEqual([0, 0, 0]);   // sequence 0, the earliest of the two that share 4
    // A saving under the fraction: null.
    expect(planPrefixShare(same, none, 0.6)).toBeNull();
    expect(planPrefixShare(same, none, 0.5)).not.toBeNull();
    // Different first tokens: nothing shared.
    expect(planPrefixShare([[1, 2, 3], [2, 2, 3]], [new Float32Array(2), new Float32Array(2)], 0)).toBeNull();
    // A loss row at 0 shares nothing.
    expect(planPrefixShare([[1, 2, 3], [1, 2, 3]], [lossFrom(3, 0), lossFrom(3, 0)], 0)).toBeNull();
  });

  it('packs a pass by its computed rows when it shares enough, else by its token rows', () => {
    const P = Array.from({ length: 30 }, (_, i) => 10 + i);
    // Four episodes of 40 tokens on one 30-token prompt, loss from the prompt's last row.
    const seqs = [0, 1, 2, 3].map((e) => [...P, ...Array.from({ length: 10 }, (_, i) => 50 + e * 10 + i)]);
    const loss = seqs.map((s) => lossFrom(s.length, 29));
    expect(passEnd(seqs, null, 0, 100)).toBe(2);              // 80 token rows
    expect(passEnd(seqs, loss, 0, 100)).toBe(4);              // 40 + 3 x 11 = 73 computed rows
    expect(passEnd(seqs, loss, 0, 60)).toBe(2);               // 40 + 11 computed (80 tokens)
    expect(passEnd(seqs, loss, 2, 100)).toBe(4);
    // The token rows stay within SHARE_MAX_TOKENS x maxRows: eight episodes of 32 tokens, 3 computed
    // each after the first, in passes of 60 computed rows: seven (224 token rows, 50 computed).
    expect(SHARE_MAX_TOKENS).toBe(4);
    const short = [0, 1, 2, 3, 4, 5, 6, 7].map((e) => [...P, 90 + e, 91 + e]);
    expect(passEnd(short, short.map((s) => lossFrom(s.length, 29)), 0, 60)).toBe(7);
    // Sharing too little (under the minimum fraction): by token rows.
    expect(passEnd(seqs, loss, 0, 100, null, 0.9)).toBe(2);
    // Within a memory budget: 100 unshared rows at 3 floats each; a computed row costs 2, a token row 1.
    const cost = { trunk: 2, token: 1, budget: 300 };
    expect(passEnd(seqs, loss, 0, 100, cost)).toBe(3);         // 62 x 2 + 120 = 244; a fourth: 73 x 2 + 160 = 306
  });
});
