// A batch of live sequences on the GPU: B slots sharing one KV cache. Each step appends tokens
// to any slots (a prompt, the last sampled token, or a tool response fed back into the live
// sequence), runs one forward pass over just those rows, and samples the next token of every
// slot that appended something — on the GPU, reading back only [R] ids and log-probs.
// Used by generate.ts and the agent loop; tested by tests/unit/model/model-gpu.test.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { KvCache } from '../../gpu/kv-cache';
import { samplerOutBytes, type SamplingParams } from '../../gpu/kernels/sampling';
import { samplePartialBytes } from '../../gpu/kernels/linear';
import type { LogitsFn } from '../../gpu/kernels/logprobs';
import type { GpuModel } from './model';

import type { DecodeStepper, StepSample } from '../engine';

export type { StepSample };

export class DecodeSession implements DecodeStepper {
  readonly cache: KvCache;
  private logits: GPUBuffer | null = null;
  private out: GPUBuffer | null = null;

  constructor(private readonly rt: GpuRuntime, private readonly model: GpuModel, readonly B: number, readonly Tmax: number) {
    this.cache = model.newCache(B, Tmax);
  }

  /** Tokens held by each slot so far. */
  get lengths(): Int32Array {
    return this.cache.lengths;
  }

  /**
   * Appends newTokens[s] to slot s (empty: the slot sits out this step), runs the model over
   * those rows and samples one next token for every slot that appended tokens. Steps longer than
   * the model's maxRows are split into several forward passes over the same cache.
   */
  async step(newTokens: number[][], params: SamplingParams): Promise<StepSample> {
    if (newTokens.length !== this.B) throw new Error(`DecodeSession.step: ${newTokens.length} token lists for ${this.B} slots`);
    const V = this.model.cfg.vocabSize;
    for (const [s, toks] of newTokens.entries()) {
      for (const t of toks) {
        if (!Number.isInteger(t) || t < 0 || t >= V) throw new Error(`DecodeSession.step: token id ${t} for slot ${s} is outside the vocabulary [0, ${V})`);
      }
    }
    // Passes of at most maxRows rows; a slot's last token may land in any pass.
    const remaining = newTokens.map((t) => t.slice());
    const sampleRow = new Map<number, number>(); // slot -> row of the gathered logits
    const R = newTokens.filter((t) => t.length > 0).length;
    // The LM head fused with sampling where it fuses (partials, not logits: GpuModel.fusedHead).
    const fused = this.model.fusedHead(R, params);
    const head = fused ?? this.model.lmHeadFn, rowBytes = fused ? samplePartialBytes(1, V) : V * 4;
    const logits = this.buffer('logits', R * rowBytes);
    while (remaining.some((t) => t.length > 0)) {
      let budget = this.model.maxRows;
      const counts = remaining.map((t) => {
        const n = Math.min(t.length, budget);
        budget -= n;
        return n;
      });
      const ids = remaining.flatMap((t, s) => t.splice(0, counts[s]));
      const step = this.cache.append(counts);
      const h = this.model.forward(ids, step, this.cache);
      const rows: number[] = [];
      for (let s = 0; s < this.B; s++) {
        if (counts[s] > 0 && remaining[s].length === 0) {
          sampleRow.set(s, sampleRow.size);
          rows.push(step.lastRow[s]);
        }
      }
      if (rows.length) this.gather(h, rows, logits, sampleRow.size - rows.length, head, rowBytes);
      // The next pass rewrites the step's ids and row table on the queue: submit this one first.
      if (remaining.some((t) => t.length > 0)) this.rt.submit();
    }
    const ids = new Int32Array(this.B).fill(-1);
    const logprobs = new Float32Array(this.B).fill(NaN);
    if (R === 0) return { ids, logprobs };
    const out = this.buffer('out', samplerOutBytes(R));
    if (fused) this.model.sampler.runFused(logits, R, out, params);
    else this.model.sampler.run(logits, R, out, params);
    const res = await this.model.sampler.read(out, R);
    for (const [s, row] of sampleRow) {
      ids[s] = res.ids[row];
      logprobs[s] = res.logprobs[row];
    }
    return { ids, logprobs };
  }

  /** Empties a slot for a new sequence. */
  reset(slot: number): void {
    this.cache.reset(slot);
  }

  free(): void {
    this.cache.free();
    if (this.logits) this.rt.release(this.logits);
    if (this.out) this.rt.release(this.out);
    this.logits = this.out = null;
  }

  /** Records rows [row0, row0 + rows.length) of `logits` (rowBytes each) = `head` of those rows of h. */
  private gather(h: GPUBuffer, rows: number[], logits: GPUBuffer, row0: number, head: LogitsFn, rowBytes: number): void {
    const lp = this.model.logprobsOp;
    if (row0 === 0) {
      lp.gatherLogits(h, rows, logits, head, rowBytes);
      return;
    }
    const tmp = this.rt.storage(rows.length * rowBytes, 'gathered logits (split step)');
    lp.gatherLogits(h, rows, tmp, head, rowBytes);
    this.rt.copy(tmp, 0, logits, row0 * rowBytes, rows.length * rowBytes);
    this.rt.release(tmp); // commands run in order: a later reuse of tmp comes after this copy
  }

  private buffer(kind: 'logits' | 'out', bytes: number): GPUBuffer {
    const cur = this[kind];
    if (cur && cur.size >= bytes) return cur;
    if (cur) this.rt.release(cur);
    const b = this.rt.storage(Math.max(bytes, 16), `session ${kind}`);
    this[kind] = b;
    return b;
  }
}
