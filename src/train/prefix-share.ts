// Which rows of a training pass are computed once for several sequences: sequences that start
// with the same tokens (a GRPO group's prompt, an SFT set's system prompt) have the same hidden
// states, keys and values on those rows, so a later sequence (a sharer) takes them from an
// earlier one (its root, which may share a shorter prefix in turn) instead of running them again. A shared row
// must not be a loss row of the sharer (its LM head runs on its own rows only), so sharing stops
// at the sharer's first loss row (the last prompt token, which predicts its first sampled token).
// TrainStep runs every per-row op on the computed (trunk) rows and the attention on every row;
// see src/train/train-step.ts. Tested by tests/unit/train/prefix-share.test.ts.
import { NO_ROW } from '../reference/rows';

/** Rows shared in a pass (TrainStep): the maps between the pass's rows and its computed rows. */
export interface PrefixShare {
  /** Per sequence: the sequence whose rows it reads (itself when it shares none). */
  root: Int32Array;
  /** Per sequence: its first rows read from the root (0 when it shares none). */
  shared: Int32Array;
  /** Rows computed (the trunk's rows): the pass's rows less the shared ones. */
  rows: number;
  /** [rows] the pass row of each computed row (pass rows: every sequence's T_b rows in order). */
  trunkToPass: Uint32Array;
  /** [pass rows] the computed row holding each pass row's values (a shared row: its root's row at that position). */
  passToTrunk: Uint32Array;
  /** [pass rows] the computed row of each pass row, NO_ROW for a shared one. */
  passToOwn: Uint32Array;
  /** [B, 2] (root, shared rows) per sequence: KvShare's table. */
  table: Uint32Array;
  /** Most rows any sequence shares. */
  maxShared: number;
}

/**
 * Least fraction of a pass's rows that sharing must save to be used: the attention still runs on
 * every row, with its inputs and outputs kept at the pass's size besides the trunk's, so a small
 * saving would cost more memory and dispatches than it saves.
 */
export const SHARE_MIN_FRACTION = 0.2;

/** Index of the first nonzero value (the length when none). */
function firstNonzero(v: ArrayLike<number>): number {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return i;
  return v.length;
}

function commonPrefix(a: number[], b: number[], cap: number): number {
  let n = 0;
  while (n < cap && a[n] === b[n]) n++;
  return n;
}

/**
 * Sequences added one at a time, each reading from the earlier sequence with which it shares the
 * most rows (up to its first loss row, never its last row; the earliest such one); planPrefixShare
 * and TrainStep's pass packing both use it, so they agree on every sequence's shared rows. A
 * sequence that shares rows is a root too: a group's first episode may share only the system
 * prompt with an earlier group's, and its group's other episodes the whole prompt with it; a
 * shared row then resolves through the roots to the sequence that computed it.
 */
export class PrefixSharer {
  readonly seqs: number[][] = [];
  readonly root: number[] = [];
  readonly shared: number[] = [];
  /** Token rows and rows shared so far. */
  tokens = 0;
  saved = 0;
  private readonly rootsByFirst = new Map<number, number[]>();

  /** The root and shared rows `seq` would get if added now. */
  peek(seq: number[], loss: ArrayLike<number>): { root: number; shared: number } {
    const b = this.seqs.length;
    let root = b, shared = 0;
    const cap = Math.min(firstNonzero(loss), seq.length - 1);
    for (const a of this.rootsByFirst.get(seq[0]) ?? []) {
      const n = commonPrefix(this.seqs[a], seq, Math.min(cap, this.seqs[a].length));
      if (n > shared) { shared = n; root = a; }
    }
    return { root, shared };
  }

  /** Adds `seq` with what peek gave it (`at`, when the caller peeked already). */
  add(seq: number[], loss: ArrayLike<number>, at = this.peek(seq, loss)): void {
    const { root, shared } = at;
    const b = this.seqs.length;
    this.seqs.push(seq);
    this.root.push(root);
    this.shared.push(shared);
    this.tokens += seq.length;
    this.saved += shared;
    const roots = this.rootsByFirst.get(seq[0]) ?? [];
    roots.push(b);
    this.rootsByFirst.set(seq[0], roots);
  }
}

/**
 * The shared rows of a pass of `seqs` whose loss rows are `lossRows` (per sequence [T_b - 1],
 * nonzero: in the loss), or null when sharing would save less than `minFraction` of the rows.
 * Each sequence reads from the earlier sequence with which it shares the most rows (PrefixSharer);
 * a sequence keeps at least its last row.
 */
export function planPrefixShare(seqs: number[][], lossRows: ArrayLike<number>[], minFraction = SHARE_MIN_FRACTION): PrefixShare | null {
  const sharer = new PrefixSharer();
  seqs.forEach((s, b) => sharer.add(s, lossRows[b]));
  const { saved, tokens: total } = sharer;
  if (saved === 0 || saved < minFraction * total) return null;
  const B = seqs.length, root = Int32Array.from(sharer.root), shared = Int32Array.from(sharer.shared);
  const rows = total - saved;
  const trunkToPass = new Uint32Array(rows), passToTrunk = new Uint32Array(total), passToOwn = new Uint32Array(total).fill(NO_ROW);
  const firstRow = new Int32Array(B);   // the token row of each sequence's row 0
  let r = 0, c = 0;
  for (let b = 0; b < B; b++) {
    firstRow[b] = r;
    for (let t = 0; t < seqs[b].length; t++, r++) {
      if (t < shared[b]) {
        passToTrunk[r] = passToTrunk[firstRow[root[b]] + t];   // the root (earlier) resolved it already
        continue;
      }
      trunkToPass[c] = r;
      passToTrunk[r] = c;
      passToOwn[r] = c;
      c++;
    }
  }
  const table = new Uint32Array(2 * B);
  for (let b = 0; b < B; b++) { table[2 * b] = root[b]; table[2 * b + 1] = shared[b]; }
  return { root, shared, rows, trunkToPass, passToTrunk, passToOwn, table, maxShared: Math.max(0, ...shared) };
}

/**
 * Most token rows of a pass that shares rows, in multiples of the pass's computed rows (maxRows):
 * the attention's inputs and outputs and the KV cache grow with the token rows.
 */
export const SHARE_MAX_TOKENS = 4;

/**
 * What a pass costs in memory per computed row and per token row (floats), and the most it may
 * cost: TrainStep's kept activations are per computed row, the shared rows' attention inputs and
 * outputs and the KV cache per token row; `budget` is what a pass of maxRows unshared rows holds.
 */
export interface PassCost {
  trunk: number;
  token: number;
  budget: number;
}

/**
 * The end (exclusive) of the pass that starts at sequence `start`: as many whole sequences as
 * `maxRows` token rows hold, or, with loss rows (sharing allowed), as many as maxRows computed
 * rows hold (at most SHARE_MAX_TOKENS x maxRows token rows, and within `cost`'s budget when
 * given) when that pass then shares at least `minFraction` of its rows (planPrefixShare gives it
 * a plan: its trunk fits maxRows).
 */
export function passEnd(seqs: number[][], lossRows: ArrayLike<number>[] | null, start: number, maxRows: number, cost: PassCost | null = null,
  minFraction = SHARE_MIN_FRACTION): number {
  let end = start, rows = 0;
  while (end < seqs.length && rows + seqs[end].length <= maxRows) rows += seqs[end++].length;
  if (!lossRows) return end;
  const sharer = new PrefixSharer();
  let e = start;
  for (; e < seqs.length; e++) {
    const at = sharer.peek(seqs[e], lossRows[e]), { shared } = at;
    const trunk = sharer.tokens - sharer.saved + seqs[e].length - shared, tokens = sharer.tokens + seqs[e].length;
    if (trunk > maxRows || tokens > SHARE_MAX_TOKENS * maxRows) break;
    if (cost && trunk * cost.trunk + tokens * cost.token > cost.budget) break;
    sharer.add(seqs[e], lossRows[e], at);
  }
  return e > end && sharer.saved >= minFraction * sharer.tokens ? e : end;
}
