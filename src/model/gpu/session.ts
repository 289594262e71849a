// A batch of live sequences on the GPU: B slots sharing one KV cache. Each step appends tokens
// to any slots (a prompt, the last sampled token, or a tool response fed back into the live
// sequence), runs one forward pass over just those rows, and samples the next token of every
// slot that appended something — on the GPU, reading back only [R] ids and log-probs.
// Look-ahead (GpuModel.lookAhead): before waiting for a step's samples, the session records the
// next step as if every slot that sampled goes on with its sample (the ids copied on the GPU, the
// sampling step + 1), so the GPU computes it while the samples travel back and the caller decides.
// The next step() takes the rows whose slot does append exactly that token with the same sampling
// parameters (greedy or seeded draws: the same rows, kernels and noise as recording them then), rolls
// back the others (a finished slot, a tool response) and runs only those slots' tokens itself.
// Shared prompts: empty slots that append the same tokens in one step (GRPO's samples of a task)
// run the model once; the others copy its keys and values and draw from its last row.
// Seeded draws: each row's noise is keyed by (seed, its slot's stream, the index its token takes),
// never by its row in the draw, so a sequence draws the same tokens whichever slots step with it,
// taken from a look-ahead or not, shared prompt or not (the agent loop gives each episode its own
// stream: async rollouts do not depend on the tools' timing).
// Used by generate.ts and the agent loop; tested by tests/unit/model/model-gpu.test.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { KvCache } from '../../gpu/kv-cache';
import { samplerOutBytes, type SamplingParams } from '../../gpu/kernels/sampling';
import { samplePartialBytes } from '../../gpu/kernels/linear';
import type { LogitsFn } from '../../gpu/kernels/logprobs';
import { ROW_KEY_LIMIT, rowKeyPairs } from '../../reference/sampling';
import type { FusedHead, GpuModel } from './model';

import type { DecodeStepper, StepSample } from '../engine';

export type { StepSample };

/** The LM head of a draw's rows row0.. (X from its row 0): logits, or the fused sampling partials. */
type DrawHead = FusedHead['head'];

/** A step recorded ahead: each slot that sampled in the step before appends that sample. */
interface LookAhead {
  /** Its slots, in slot order: row i of `out` is slots[i]'s sample. */
  slots: number[];
  /** Per row, the token it appended (the step before's sample), set once that step's readback is in. */
  tokens: Int32Array | null;
  /** Per row: the slot was reset since (its length is 0 already, nothing to roll back). */
  gone: boolean[];
  params: SamplingParams;
  out: GPUBuffer;
  /** rt.queueEpoch once it was submitted: anything queued after it (a weight update) makes it stale. */
  epoch: number;
  loraOn: boolean;
}

/** Where each sampled slot's row lives: a sampler output buffer and its row there. */
type SampleSource = Map<number, { buf: GPUBuffer; row: number }>;

/** Look-ahead steps of a session: recorded, used (at least one row taken), wasted (none taken). */
export interface LookAheadStats {
  recorded: number;
  used: number;
  wasted: number;
  /** Rows recorded ahead and rolled back. */
  rowsRolledBack: number;
}

/** One forward pass of record(): rows per slot, and the slots whose tokens end in it. */
interface Pass {
  counts: number[];
  ends: Set<number>;
}

export class DecodeSession implements DecodeStepper {
  readonly cache: KvCache;
  readonly lookAheadStats: LookAheadStats = { recorded: 0, used: 0, wasted: 0, rowsRolledBack: 0 };
  /** Prompt rows not computed: copied from a slot that started with the same tokens (sharedPrompts). */
  readonly promptStats = { rowsShared: 0 };
  /** False: every slot's prompt runs through the model, shared or not (tests compare both). */
  sharePrompts = true;
  private logits: GPUBuffer | null = null;
  private out: GPUBuffer | null = null;
  /** The draw's noise keys (rowKeyPairs): record()'s, and each look-ahead buffer's own. */
  private keys: GPUBuffer | null = null;
  private readonly aheadKeys: (GPUBuffer | null)[] = [null, null];
  /** Each slot's noise stream (reset). */
  private readonly streams: Uint32Array;
  /** The look-ahead's ids [B] and its two sample buffers (alternating: one read while the next is recorded). */
  private aheadIds: GPUBuffer | null = null;
  private readonly aheadOut: (GPUBuffer | null)[] = [null, null];
  private aheadFlip = 0;
  private ahead: LookAhead | null = null;

  constructor(private readonly rt: GpuRuntime, private readonly model: GpuModel, readonly B: number, readonly Tmax: number) {
    this.cache = model.newCache(B, Tmax);
    this.streams = Uint32Array.from({ length: B }, (_, s) => s);
  }

  /** Tokens held by each slot so far (a pending look-ahead's token not counted). */
  get lengths(): Int32Array {
    const la = this.ahead;
    if (!la) return this.cache.lengths;
    const l = this.cache.lengths.slice();
    la.slots.forEach((s, i) => { if (!la.gone[i]) l[s] -= 1; });
    return l;
  }

  /**
   * Appends newTokens[s] to slot s (empty: the slot sits out this step), runs the model over
   * those rows and samples one next token for every slot that appended tokens. Steps longer than
   * the model's maxRows are split into several forward passes over the same cache.
   */
  async step(newTokens: number[][], params: SamplingParams): Promise<StepSample> {
    if (newTokens.length !== this.B) throw new Error(`DecodeSession.step: ${newTokens.length} token lists for ${this.B} slots`);
    const V = this.model.cfg.vocabSize, held = this.lengths;
    for (const [s, toks] of newTokens.entries()) {
      for (const t of toks) {
        if (!Number.isInteger(t) || t < 0 || t >= V) throw new Error(`DecodeSession.step: token id ${t} for slot ${s} is outside the vocabulary [0, ${V})`);
      }
      // Checked before anything changes (a look-ahead taken, a pass appended): a refused step leaves the session as it was.
      if (held[s] + toks.length > this.Tmax) {
        throw new Error(`DecodeSession.step: slot ${s} holds ${held[s]} tokens and appends ${toks.length}, over its ${this.Tmax}; raise the maximum sequence length or stop generating earlier`);
      }
    }
    const taken = this.takeAhead(newTokens, params);
    const src: SampleSource = new Map();
    const parts: { buf: GPUBuffer; bytes: number }[] = [];
    if (taken) {
      taken.rows.forEach((row) => src.set(taken.la.slots[row], { buf: taken.la.out, row }));
      parts.push({ buf: taken.la.out, bytes: samplerOutBytes(taken.la.slots.length) });
    }
    const rest = taken ? newTokens.map((t, s) => (src.has(s) ? [] : t)) : newTokens;
    if (rest.some((t) => t.length > 0)) {
      const out = this.buffer('out', samplerOutBytes(this.B));
      const sampled = this.record(rest, params, out);
      sampled.forEach((slot, row) => src.set(slot, { buf: out, row }));
      parts.push({ buf: out, bytes: samplerOutBytes(sampled.length) });
    }
    const ids = new Int32Array(this.B).fill(-1);
    const logprobs = new Float32Array(this.B).fill(NaN);
    if (src.size === 0) return { ids, logprobs };
    const reading = this.rt.readParts(parts);
    reading.catch(() => {}); // awaited below; a throw in lookAhead must not leave it unhandled
    // A continuation (a slot appended one token): record the next step while these samples travel.
    if (this.model.lookAhead && newTokens.some((t) => t.length === 1)) this.lookAhead(src, params);
    // Each part as [n] ids then [n] log-probs (samplerOutBytes), keyed by the buffer it came from.
    const read = new Map((await reading).parts.map((b, i) => {
      const n = parts[i].bytes / 8;
      return [parts[i].buf, { ids: new Int32Array(b, 0, n), logprobs: new Float32Array(b, 4 * n, n) }] as const;
    }));
    for (const [slot, { buf, row }] of src) {
      const r = read.get(buf)!;
      ids[slot] = r.ids[row];
      logprobs[slot] = r.logprobs[row];
    }
    const la = this.ahead;
    if (la) la.tokens = Int32Array.from(la.slots, (s) => ids[s]);
    return { ids, logprobs };
  }

  /** Empties a slot for a new sequence, drawing from noise stream `stream` (default: the slot's index). */
  reset(slot: number, stream = slot): void {
    if (!Number.isInteger(stream) || stream < 0 || stream >= ROW_KEY_LIMIT) throw new Error(`DecodeSession.reset: stream ${stream} for slot ${slot}; it must be an integer in [0, 2^24)`);
    this.streams[slot] = stream;
    const la = this.ahead;
    if (la) la.slots.forEach((s, i) => { if (s === slot) la.gone[i] = true; });
    this.cache.reset(slot);
  }

  free(): void {
    this.ahead = null; // its commands finish on the queue; nothing reads them
    this.cache.free();
    const bufs = [this.logits, this.out, this.keys, this.aheadIds, ...this.aheadOut, ...this.aheadKeys].filter((b): b is GPUBuffer => b !== null);
    if (bufs.length) this.rt.release(...bufs);
    this.logits = this.out = this.keys = this.aheadIds = this.aheadOut[0] = this.aheadOut[1] = this.aheadKeys[0] = this.aheadKeys[1] = null;
  }

  /**
   * Records the passes (at most maxRows rows each) that append newTokens and samples the next
   * token of every slot that appended any into `out`; returns those slots in row order.
   */
  private record(newTokens: number[][], params: SamplingParams, out: GPUBuffer): number[] {
    const { copyOf, copies } = this.sharedPrompts(newTokens);
    const remaining = newTokens.map((t, s) => (copyOf[s] >= 0 ? [] : t.slice()));
    const source = (s: number) => (copyOf[s] >= 0 ? copyOf[s] : s);
    const passes = this.planPasses(remaining.map((t) => t.length));
    // Per pass, the slots it samples: those whose own (or shared) tokens end in it. A copy
    // samples from its source's last row, in its own row of the draw (its own stream).
    const sampledBy = passes.map((pass) => newTokens.flatMap((t, s) => (t.length > 0 && pass.ends.has(source(s)) ? [s] : [])));
    const sampled = sampledBy.flat(); // row -> slot
    const R = sampled.length;
    const keyed = this.keyed(params, sampled, sampled.map((s) => this.cache.lengths[s] + newTokens[s].length), 'keys');
    const { head, rowBytes, draw } = this.headFor(R, keyed);
    const logits = this.buffer('logits', R * rowBytes);
    let row0 = 0;
    for (const [i, pass] of passes.entries()) {
      const ids = remaining.flatMap((t, s) => t.splice(0, pass.counts[s]));
      const step = this.cache.append(pass.counts);
      const h = this.model.forward(ids, step, this.cache);
      for (const [s, to] of copies) {
        if (!pass.ends.has(s)) continue;
        this.cache.copySlot(s, to);
        this.promptStats.rowsShared += to.length * newTokens[s].length;
      }
      const rows = sampledBy[i].map((s) => step.lastRow[source(s)]);
      if (rows.length) this.gather(h, rows, logits, row0, head, rowBytes);
      row0 += rows.length;
      // The next pass rewrites the step's ids and row table on the queue: submit this one first.
      if (i + 1 < passes.length) this.rt.submit();
    }
    draw(logits, R, out);
    return sampled;
  }

  /**
   * The passes over `left` tokens per slot: at most maxRows rows each, slots in order; per pass
   * the rows each slot appends and the slots whose tokens end in it.
   */
  private planPasses(left: number[]): Pass[] {
    const rest = left.slice(), passes: Pass[] = [];
    while (rest.some((n) => n > 0)) {
      let budget = this.model.maxRows;
      const counts = rest.map((n) => {
        const c = Math.min(n, budget);
        budget -= c;
        return c;
      });
      const ends = new Set<number>();
      counts.forEach((c, s) => {
        rest[s] -= c;
        if (c > 0 && rest[s] === 0) ends.add(s);
      });
      passes.push({ counts, ends });
    }
    return passes;
  }

  /**
   * The draw's parameters with its rows' noise keys (the sampled slots' streams, the index each
   * sampled token takes), and the buffer they are written to (queued before the draw's commands:
   * every earlier reader of that buffer was submitted).
   */
  private keyed(params: SamplingParams, slots: number[], positions: number[], kind: 'keys' | 0 | 1): { params: SamplingParams; keys: GPUBuffer } {
    const keys = { streams: slots.map((s) => this.streams[s]), positions };
    const data = rowKeyPairs(keys, slots.length);
    let buf: GPUBuffer;
    if (kind === 'keys') buf = this.buffer('keys', data.byteLength);
    else {
      const cur = this.aheadKeys[kind];
      if (cur && cur.size < data.byteLength) this.rt.release(cur);
      buf = cur && cur.size >= data.byteLength ? cur : this.rt.storage(Math.max(data.byteLength, 16), 'session look-ahead keys');
      this.aheadKeys[kind] = buf;
    }
    this.rt.write(buf, data);
    return { params: { ...params, keys }, keys: buf };
  }

  /**
   * Per slot, the earlier slot whose prompt it shares (copyOf, -1: none), and per such source its
   * copies: both empty, appending the same tokens (GRPO's samples of one task). The forward runs
   * the source only; the others get its keys and values (KvCache.copySlot) and sample from its last row.
   */
  private sharedPrompts(newTokens: number[][]): { copyOf: Int32Array; copies: Map<number, number[]> } {
    const copyOf = new Int32Array(this.B).fill(-1), copies = new Map<number, number[]>();
    if (!this.sharePrompts) return { copyOf, copies };
    const first = new Map<string, number>();
    newTokens.forEach((t, s) => {
      if (t.length < 2 || this.cache.lengths[s] !== 0) return;
      const key = t.join(',');
      const f = first.get(key);
      if (f === undefined) {
        first.set(key, s);
        return;
      }
      copyOf[s] = f;
      copies.set(f, [...(copies.get(f) ?? []), s]);
    });
    return { copyOf, copies };
  }

  /**
   * Records and submits the next step ahead: every slot of `src` with room left appends its sample
   * (copied on the GPU into the step's ids), sampled with params at step + 1.
   */
  private lookAhead(src: SampleSource, params: SamplingParams): void {
    const slots = [...src.keys()].filter((s) => this.cache.lengths[s] < this.Tmax).sort((a, b) => a - b);
    if (slots.length === 0 || slots.length > this.model.maxRows) return;
    const idsBuf = this.aheadIds ??= this.rt.storage(Math.max(16, 4 * this.B), 'session look-ahead ids');
    // One copy per run of rows that sit next to each other in the same sample buffer.
    for (let i = 0; i < slots.length;) {
      const { buf, row } = src.get(slots[i])!;
      let n = 1;
      while (i + n < slots.length && src.get(slots[i + n])!.buf === buf && src.get(slots[i + n])!.row === row + n) n++;
      this.rt.copy(buf, 4 * row, idsBuf, 4 * i, 4 * n);
      i += n;
    }
    const next = { ...params, step: (params.step + 1) >>> 0 };
    const counts = new Array<number>(this.B).fill(0);
    for (const s of slots) counts[s] = 1;
    this.aheadFlip ^= 1;
    const keyed = this.keyed(next, slots, slots.map((s) => this.cache.lengths[s] + 1), this.aheadFlip as 0 | 1);
    const step = this.cache.append(counts);
    const out = this.aheadOut[this.aheadFlip] ??= this.rt.storage(samplerOutBytes(this.B), 'session look-ahead samples');
    try {
      const h = this.model.forward({ gpu: idsBuf }, step, this.cache);
      const R = slots.length;
      const { head, rowBytes, draw } = this.headFor(R, keyed);
      const logits = this.buffer('logits', R * rowBytes);
      this.gather(h, slots.map((s) => step.lastRow[s]), logits, 0, head, rowBytes);
      draw(logits, R, out);
      this.rt.submit();
    } catch (e) {
      for (const s of slots) this.cache.lengths[s] -= 1;
      throw e;
    }
    this.ahead = { slots, tokens: null, gone: slots.map(() => false), params: next, out, epoch: this.rt.queueEpoch, loraOn: this.model.loraEnabled };
    this.lookAheadStats.recorded++;
  }

  /**
   * The pending look-ahead's rows that this step's tokens confirm: slot s appends exactly the token
   * it appended, with the same sampling parameters, nothing queued since. The other rows are rolled
   * back (their cache entries are rewritten by whatever the slot appends next).
   */
  private takeAhead(newTokens: number[][], params: SamplingParams): { la: LookAhead; rows: number[] } | null {
    const la = this.ahead;
    this.ahead = null;
    if (!la) return null;
    const valid = la.tokens !== null && la.epoch === this.rt.queueEpoch && la.loraOn === this.model.loraEnabled && sameParams(la.params, params);
    const rows: number[] = [];
    la.slots.forEach((s, i) => {
      if (la.gone[i]) return;
      const t = newTokens[s];
      if (valid && t.length === 1 && t[0] === la.tokens![i]) rows.push(i);
      else {
        this.cache.lengths[s] -= 1;
        this.lookAheadStats.rowsRolledBack++;
      }
    });
    if (rows.length === 0) {
      this.lookAheadStats.wasted++;
      return null;
    }
    this.lookAheadStats.used++;
    return { la, rows };
  }

  /**
   * The LM head for a draw of R rows, fused with sampling where it fuses (partials, not logits:
   * GpuModel.fusedHead), and the sampler pass that turns what it wrote into tokens. `head` takes
   * the draw's row of its X's row 0 (a pass of a split step), which the fused noise is keyed by.
   */
  private headFor(R: number, { params, keys }: { params: SamplingParams; keys: GPUBuffer }): { head: DrawHead; rowBytes: number; draw: (logits: GPUBuffer, R: number, out: GPUBuffer) => void } {
    const fused = this.model.fusedHead(R, params, keys), sampler = this.model.sampler, V = this.model.cfg.vocabSize;
    if (fused) return { head: fused.head, rowBytes: samplePartialBytes(1, V, fused.group), draw: (l, n, o) => sampler.runFused(l, n, o, params, fused.group, keys) };
    return { head: this.model.lmHeadFn, rowBytes: V * 4, draw: (l, n, o) => sampler.run(l, n, o, params, keys) };
  }

  /** Records rows [row0, row0 + rows.length) of `logits` (rowBytes each) = `head` of those rows of h. */
  private gather(h: GPUBuffer, rows: number[], logits: GPUBuffer, row0: number, head: DrawHead, rowBytes: number): void {
    const lp = this.model.logprobsOp;
    const fn: LogitsFn = (X, n, out) => head(X, n, out, row0);
    if (row0 === 0) {
      lp.gatherLogits(h, rows, logits, fn, rowBytes);
      return;
    }
    const tmp = this.rt.storage(rows.length * rowBytes, 'gathered logits (split step)');
    lp.gatherLogits(h, rows, tmp, fn, rowBytes);
    this.rt.copy(tmp, 0, logits, row0 * rowBytes, rows.length * rowBytes);
    this.rt.release(tmp); // commands run in order: a later reuse of tmp comes after this copy
  }

  private buffer(kind: 'logits' | 'out' | 'keys', bytes: number): GPUBuffer {
    const cur = this[kind];
    if (cur && cur.size >= bytes) return cur;
    if (cur) this.rt.release(cur);
    const b = this.rt.storage(Math.max(bytes, 16), `session ${kind}`);
    this[kind] = b;
    return b;
  }
}

function sameParams(a: SamplingParams, b: SamplingParams): boolean {
  return a.temperature === b.temperature && a.topK === b.topK && a.topP === b.topP && a.seed >>> 0 === b.seed >>> 0 && a.step >>> 0 === b.step >>> 0;
}
