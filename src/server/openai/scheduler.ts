// Continuous batching for the server: every choice of every request is a sequence; sequences
// that share sampling settings (temperature, top_p, seed) run together in one DecodeSession of
// `maxBatch` slots, one forward pass per step for all of them (a joining prompt is prefilled in
// the same pass as the others' decode tokens). A finished or cancelled sequence frees its slot
// for the next waiting request at once. Tested by tests/unit/server/serve-openai.test.ts (concurrent
// requests share steps) and exercised by scripts/load-serve.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { GpuModel } from '../../model/gpu/model';
import { DecodeSession } from '../../model/gpu/session';
import type { Tokenizer } from '../../model/tokenizer';
import { StreamDecoder } from '../../model/tokenizer/stream';
import { ROW_KEY_LIMIT } from '../../reference/sampling';

export type SeqFinish = 'stop_token' | 'stop_string' | 'length' | 'cancelled';

export interface SeqSpec {
  prompt: number[];
  maxNewTokens: number;
  stopIds: number[];
  stopStrings: string[];
  /** New text that can no longer be cut by a stop string, as it is produced. */
  onText?: (text: string) => void;
}

export interface SeqResult {
  /** Every sampled id, the stop token included. */
  tokens: number[];
  /** Sampling log-prob of each token: log softmax(logits / T)[id]. */
  logprobs: number[];
  /** The text (special tokens skipped, cut before a stop string). */
  text: string;
  finish: SeqFinish;
}

export interface SamplingKey {
  temperature: number;
  topP: number;
  /** Undefined: any seed (such requests batch together). */
  seed?: number;
}

export interface SchedulerOptions {
  /** Slots of the shared session (sequences decoded together). */
  maxBatch: number;
  /** Most tokens per sequence (prompt + completion): the KV cache length. */
  maxContext: number;
}

export interface SchedulerStats {
  steps: number;
  /** Sum over steps of the sequences sampled in that step. */
  sampledRows: number;
  /** Largest number of sequences that ran in one step. */
  maxConcurrent: number;
}

interface Seq {
  spec: SeqSpec;
  out: SeqResult;
  decoder: StreamDecoder;
  /** Text handed to onText so far. */
  emitted: number;
  slot: number;
  cancelled: boolean;
}

interface Group {
  key: SamplingKey;
  seqs: Seq[];
  resolve: (r: SeqResult[]) => void;
  reject: (e: Error) => void;
}

const sameKey = (a: SamplingKey, b: SamplingKey) => a.temperature === b.temperature && a.topP === b.topP && a.seed === b.seed;

export class Scheduler {
  readonly stats: SchedulerStats = { steps: 0, sampledRows: 0, maxConcurrent: 0 };
  private readonly pending: Group[] = [];
  private readonly active = new Set<Group>();
  private session: DecodeSession | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  /** The last noise stream given to an unseeded sequence (nextStream). */
  private streamCounter = 0;

  constructor(private readonly rt: GpuRuntime, private readonly model: GpuModel, private readonly tok: Tokenizer, readonly opts: SchedulerOptions) {
    if (!(opts.maxBatch >= 1)) throw new Error(`Scheduler: maxBatch must be >= 1, got ${opts.maxBatch}`);
    if (opts.maxContext > model.cfg.maxPositions) throw new Error(`Scheduler: maxContext ${opts.maxContext} exceeds the model's ${model.cfg.maxPositions} positions`);
  }

  /**
   * Runs the sequences (the n choices of one request) together; resolves with one result each.
   * The returned cancel() ends them early (a client that went away).
   */
  submit(key: SamplingKey, specs: SeqSpec[]): { done: Promise<SeqResult[]>; cancel: () => void } {
    if (this.closed) throw new Error('the server is shutting down');
    if (specs.length > this.opts.maxBatch) throw new Error(`${specs.length} choices exceed the batch of ${this.opts.maxBatch} slots`);
    for (const s of specs) {
      if (s.prompt.length === 0) throw new Error('a prompt needs at least one token');
      if (s.prompt.length + s.maxNewTokens > this.opts.maxContext) throw new Error(`prompt ${s.prompt.length} + ${s.maxNewTokens} new tokens exceed the context of ${this.opts.maxContext}`);
    }
    const seqs: Seq[] = specs.map((spec) => ({
      spec, out: { tokens: [], logprobs: [], text: '', finish: 'length' }, decoder: new StreamDecoder(this.tok, { skipSpecialTokens: true }),
      emitted: 0, slot: -1, cancelled: false,
    }));
    let group!: Group;
    const done = new Promise<SeqResult[]>((resolve, reject) => { group = { key, seqs, resolve, reject }; });
    this.pending.push(group);
    this.running ??= this.loop().finally(() => { this.running = null; });
    return { done, cancel: () => { for (const s of seqs) s.cancelled = true; } };
  }

  /** Waiting and running requests (for /health and the load script). */
  get load(): { pending: number; active: number } {
    return { pending: this.pending.length, active: this.active.size };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running;
    this.session?.free();
    this.session = null;
  }

  private async loop(): Promise<void> {
    let key: SamplingKey | null = null, batchSeed = 0, step = 0;
    while (this.pending.length || this.active.size) {
      if (!this.active.size) {
        key = this.pending[0].key;
        batchSeed = key.seed ?? Math.floor(Math.random() * 0xffffffff);
        step = 0;
      }
      const next = this.admit(key!);
      const session = this.session!;
      const live = [...this.active].flatMap((g) => g.seqs.filter((s) => s.slot >= 0));
      let r;
      try {
        r = await session.step(next, { temperature: key!.temperature, topK: 0, topP: key!.topP, seed: batchSeed >>> 0, step: step++ });
      } catch (e) {
        for (const g of this.active) this.endGroup(g, e as Error);
        continue;
      }
      this.stats.steps++;
      this.stats.sampledRows += live.length;
      this.stats.maxConcurrent = Math.max(this.stats.maxConcurrent, live.length);
      for (const s of live) this.take(s, r.ids[s.slot], r.logprobs[s.slot], session);
      for (const g of [...this.active]) if (g.seqs.every((s) => s.slot < 0)) this.endGroup(g);
    }
  }

  /** Moves waiting groups of the running key into free slots; returns this step's new tokens. */
  private admit(key: SamplingKey): number[][] {
    const B = this.opts.maxBatch;
    this.session ??= new DecodeSession(this.rt, this.model, B, this.opts.maxContext);
    const used = new Set<number>();
    const next: number[][] = Array.from({ length: B }, () => []);
    for (const g of this.active) {
      for (const s of g.seqs) {
        if (s.slot < 0) continue;
        used.add(s.slot);
        next[s.slot] = [s.out.tokens[s.out.tokens.length - 1]];
      }
    }
    for (let i = 0; i < this.pending.length; i++) {
      const g = this.pending[i];
      if (g.seqs.every((s) => s.cancelled)) {
        // The client left before its request got a slot.
        this.pending.splice(i--, 1);
        for (const s of g.seqs) s.out.finish = 'cancelled';
        g.resolve(g.seqs.map((s) => s.out));
        continue;
      }
      // First come, first served: an older request with other settings waits for this batch to drain.
      if (!sameKey(g.key, key) || g.seqs.length > B - used.size) break;
      this.pending.splice(i--, 1);
      this.active.add(g);
      for (const [i, s] of g.seqs.entries()) {
        let slot = 0;
        while (used.has(slot)) slot++;
        used.add(slot);
        s.slot = slot;
        // Seeded: choice i draws from stream i whatever else runs (the batch shares the seed);
        // unseeded requests share a random seed, so each sequence takes a stream of its own.
        this.session.reset(slot, g.key.seed === undefined ? this.nextStream() : i);
        next[slot] = s.spec.prompt.slice();
      }
    }
    return next;
  }

  /** A noise stream no running unseeded sequence has (they share their batch's seed). */
  private nextStream(): number {
    this.streamCounter = (this.streamCounter + 1) % ROW_KEY_LIMIT;
    return this.streamCounter;
  }

  /** One sampled token of a running sequence; frees its slot when it ends. */
  private take(s: Seq, id: number, logprob: number, session: DecodeSession): void {
    const o = s.out, spec = s.spec;
    o.tokens.push(id);
    o.logprobs.push(logprob);
    o.text += s.decoder.push(id);
    const hit = spec.stopStrings.find((x) => o.text.includes(x));
    let finish: SeqFinish | null = null;
    if (s.cancelled) finish = 'cancelled';
    else if (spec.stopIds.includes(id)) finish = 'stop_token';
    else if (hit !== undefined) {
      o.text = o.text.slice(0, o.text.indexOf(hit));
      finish = 'stop_string';
    } else if (o.tokens.length >= spec.maxNewTokens || session.lengths[s.slot] >= this.opts.maxContext) finish = 'length';
    if (finish) {
      if (finish !== 'stop_string') o.text += s.decoder.flush();
      o.finish = finish;
      s.slot = -1;
    }
    this.emit(s, finish !== null);
  }

  /** Hands out new text, holding back a tail that may still grow into a stop string. */
  private emit(s: Seq, final: boolean): void {
    const hold = final ? 0 : Math.max(0, ...s.spec.stopStrings.map((x) => x.length - 1));
    const upto = Math.max(s.emitted, s.out.text.length - hold);
    if (upto > s.emitted) {
      s.spec.onText?.(s.out.text.slice(s.emitted, upto));
      s.emitted = upto;
    }
  }

  private endGroup(g: Group, err?: Error): void {
    this.active.delete(g);
    for (const s of g.seqs) s.slot = -1;
    if (err) g.reject(err);
    else g.resolve(g.seqs.map((s) => s.out));
  }
}
