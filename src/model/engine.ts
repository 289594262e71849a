// The engine-agnostic decoder the generation, agent-rollout and evaluation code runs on: an
// engine opens steppers (B slots, each a growing token sequence with its own KV cache) that
// append tokens and sample one next token per slot. Two implementations: our WebGPU engine
// (src/model/gpu/engine.ts, a DecodeSession) and onnxruntime-web (src/ort/engine.ts, an ONNX
// export). Exercised by tests/unit/ort/ort-engine.test.ts and tests/e2e/ort.spec.ts.
import type { SamplingParams } from '../reference/sampling';

/** One sampled token per slot: what DecodeSession.step returns. */
export interface StepSample {
  /** Per slot: the sampled next token, or -1 for slots that appended nothing this step. */
  ids: Int32Array;
  /** Per slot: log softmax(logits / T)[id] (NaN for slots without a sample). */
  logprobs: Float32Array;
}

/** B live sequences on one engine. */
export interface DecodeStepper {
  /** Slots (live sequences) the stepper holds. */
  readonly B: number;
  /** Tokens held per slot. */
  readonly lengths: Int32Array;
  /**
   * Appends newTokens[s] to slot s and samples one next token per slot that appended any. A
   * seeded draw's noise is keyed by (seed, the slot's stream, the index the sampled token takes),
   * so a sequence draws the same tokens whichever slots step with it; params.keys is set here.
   */
  step(newTokens: number[][], params: SamplingParams): Promise<StepSample>;
  /** Empties a slot for a new sequence, which draws from noise stream `stream` (default: the slot's index; an integer below 2^24). */
  reset(slot: number, stream?: number): void;
  /** Frees every slot's cache. */
  free(): void;
}

/** The engine names the CLI and the playground accept. */
export type EngineName = 'ours' | 'ort';

export interface DecoderEngine {
  /** For logs: "ours (WebGPU)", "onnxruntime-web wasm", ... */
  readonly label: string;
  readonly vocabSize: number;
  /** The longest sequence a slot may hold. */
  readonly maxPositions: number;
  /** Generation ends after one of these (config.json, generation_config.json, tokenizer). */
  readonly eosTokenIds: readonly number[];
  /** A stepper with `slots` sequences of at most `maxTokens` tokens each. */
  open(slots: number, maxTokens: number): DecodeStepper;
}
