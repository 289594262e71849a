// onnxruntime-web behind the engine-agnostic DecoderEngine (src/model/engine.ts), so generation,
// agent rollouts and evaluation run on an ONNX export exactly as on our engine: one ORT session,
// one past-key/values cache per slot (the graph runs batch 1, slot after slot), and sampling by
// the CPU twin of our GPU sampler (src/reference/sampling.ts: same greedy argmax, same seeded
// Gumbel draw per row), so greedy tokens match ours whenever the logits agree.
// Tested by tests/unit/ort/ort-engine.test.ts (wasm in Node) and tests/e2e/ort.spec.ts (Chromium).
import type { DecoderEngine, DecodeStepper, StepSample } from '../model/engine';
import type { ModelConfig } from '../model/types';
import { ROW_KEY_LIMIT, sample_forward, type SamplingParams } from '../reference/sampling';
import type { PastKv } from './decoder';
import { OrtDecoder } from './decoder';

/** B sequences on one ORT session. */
export class OrtStepper implements DecodeStepper {
  readonly lengths: Int32Array;
  private readonly caches: (PastKv | null)[];
  /** Each slot's noise stream (reset). */
  private readonly streams: Uint32Array;

  constructor(private readonly decoder: OrtDecoder, readonly B: number, readonly Tmax: number) {
    this.lengths = new Int32Array(B);
    this.streams = Uint32Array.from({ length: B }, (_, s) => s);
    this.caches = Array.from({ length: B }, () => null);
  }

  async step(newTokens: number[][], params: SamplingParams): Promise<StepSample> {
    if (newTokens.length !== this.B) throw new Error(`OrtStepper.step: ${newTokens.length} token lists for ${this.B} slots`);
    const V = this.decoder.shape.vocabSize;
    for (const [s, toks] of newTokens.entries()) {
      for (const t of toks) if (!Number.isInteger(t) || t < 0 || t >= V) throw new Error(`OrtStepper.step: token id ${t} for slot ${s} is outside the vocabulary [0, ${V})`);
      if (this.lengths[s] + toks.length > this.Tmax) throw new Error(`OrtStepper.step: slot ${s} would hold ${this.lengths[s] + toks.length} tokens, more than the ${this.Tmax} it was opened with`);
    }
    // Each row's noise keyed by (its slot's stream, the index its token takes), as DecodeSession does.
    const slots = newTokens.flatMap((t, s) => (t.length ? [s] : []));
    const logits = new Float32Array(slots.length * V);
    for (const [row, s] of slots.entries()) {
      const toks = newTokens[s];
      const r = await this.decoder.forward(toks, this.caches[s]);
      this.decoder.disposePast(this.caches[s]);
      this.caches[s] = r.past;
      this.lengths[s] += toks.length;
      logits.set(r.logits.subarray((toks.length - 1) * V, toks.length * V), row * V);
    }
    const ids = new Int32Array(this.B).fill(-1);
    const logprobs = new Float32Array(this.B).fill(NaN);
    if (!slots.length) return { ids, logprobs };
    const keys = { streams: slots.map((s) => this.streams[s]), positions: slots.map((s) => this.lengths[s]) };
    const res = sample_forward(logits, slots.length, V, { ...params, keys });
    for (const [row, s] of slots.entries()) {
      ids[s] = res.ids[row];
      logprobs[s] = res.logprobs[row];
    }
    return { ids, logprobs };
  }

  reset(slot: number, stream = slot): void {
    if (!Number.isInteger(stream) || stream < 0 || stream >= ROW_KEY_LIMIT) throw new Error(`OrtStepper.reset: stream ${stream} for slot ${slot}; it must be an integer in [0, 2^24)`);
    this.streams[slot] = stream;
    this.decoder.disposePast(this.caches[slot]);
    this.caches[slot] = null;
    this.lengths[slot] = 0;
  }

  free(): void {
    for (let s = 0; s < this.B; s++) this.reset(s);
  }
}

/** An ONNX export (src/export/onnx) as a DecoderEngine. */
export class OrtEngine implements DecoderEngine {
  readonly label: string;
  readonly vocabSize: number;
  readonly maxPositions: number;
  readonly eosTokenIds: readonly number[];

  constructor(readonly decoder: OrtDecoder, config: ModelConfig) {
    this.label = `onnxruntime-web ${decoder.backend}`;
    this.vocabSize = config.vocabSize;
    this.maxPositions = config.maxPositions;
    this.eosTokenIds = config.eosTokenIds;
    if (decoder.shape.vocabSize !== config.vocabSize) throw new Error(`OrtEngine: the graph has V = ${decoder.shape.vocabSize} but config.json says vocab_size ${config.vocabSize}`);
  }

  open(slots: number, maxTokens: number): OrtStepper {
    if (!(Number.isInteger(slots) && slots >= 1)) throw new Error(`OrtEngine.open: slots must be an integer >= 1, got ${slots}`);
    return new OrtStepper(this.decoder, slots, Math.min(maxTokens, this.maxPositions));
  }

  release(): Promise<void> {
    return this.decoder.release();
  }
}
