// Batched text generation on any DecoderEngine (our GPU engine by default): prompts prefilled together, then one decode step per
// token for the sequences still running (finished ones stop costing work), sampling on the GPU
// (greedy / temperature / top-k / top-p, seeded), stop token ids, stop strings and a token
// budget per sequence, streamed text. Used by the CLI `generate` command and the studio.
// Tested by tests/unit/model/model-gpu.test.ts (stories260K greedy text, tiny Qwen2 vs the reference).
import type { GpuRuntime } from '../gpu/runtime';
import type { DecoderEngine } from './engine';
import { gpuEngine } from './gpu/engine';
import type { GpuModel } from './gpu/model';
import type { Tokenizer } from './tokenizer';
import { StreamDecoder } from './tokenizer/stream';

export interface GenerateOptions {
  maxNewTokens: number;
  /** 0: greedy. */
  temperature: number;
  /** 0: off. */
  topK: number;
  /** 1: off. */
  topP: number;
  seed: number;
  /** Generation of a sequence ends after one of these ids (kept in its tokens). */
  stopTokenIds: number[];
  /** Generation ends when the text contains one of these (the text is cut before it). */
  stopStrings: string[];
  /** Called with every piece of new text of a sequence. */
  onText?: (seq: number, text: string) => void;
}

export type FinishReason = 'stop_token' | 'stop_string' | 'length';

export interface Generation {
  tokens: number[];
  /** Sampling log-probability of each token (log softmax(logits / T) over the whole vocabulary). */
  logprobs: number[];
  text: string;
  finishReason: FinishReason;
}

export const DEFAULT_GENERATE: GenerateOptions = {
  maxNewTokens: 256, temperature: 1, topK: 0, topP: 1, seed: 0, stopTokenIds: [], stopStrings: [],
};

export async function generate(rt: GpuRuntime, model: GpuModel, tok: Tokenizer | null, prompts: number[][], options: Partial<GenerateOptions> = {}): Promise<Generation[]> {
  return generateOn(gpuEngine(rt, model), tok, prompts, options);
}

/** The same on any engine (ours, or onnxruntime-web through src/ort/engine.ts). */
export async function generateOn(engine: DecoderEngine, tok: Tokenizer | null, prompts: number[][], options: Partial<GenerateOptions> = {}): Promise<Generation[]> {
  const o = { ...DEFAULT_GENERATE, ...options };
  if (prompts.some((p) => p.length === 0)) throw new Error('generate: every prompt needs at least one token (start from BOS for an empty prompt)');
  const maxPrompt = Math.max(...prompts.map((p) => p.length));
  const Tmax = Math.min(engine.maxPositions, maxPrompt + o.maxNewTokens);
  const session = engine.open(prompts.length, Tmax);
  const out: Generation[] = prompts.map(() => ({ tokens: [], logprobs: [], text: '', finishReason: 'length' }));
  const decoders = prompts.map(() => (tok ? new StreamDecoder(tok, { skipSpecialTokens: true }) : null));
  const running = prompts.map(() => true);
  let next: number[][] = prompts.map((p) => p.slice());
  try {
    for (let step = 0; running.some(Boolean); step++) {
      const r = await session.step(next, { temperature: o.temperature, topK: o.topK, topP: o.topP, seed: o.seed >>> 0, step });
      next = prompts.map(() => []);
      for (let s = 0; s < prompts.length; s++) {
        if (!running[s]) continue;
        const g = out[s], id = r.ids[s];
        g.tokens.push(id);
        g.logprobs.push(r.logprobs[s]);
        const piece = decoders[s]?.push(id) ?? '';
        if (piece) {
          g.text += piece;
          o.onText?.(s, piece);
        }
        const hit = o.stopStrings.find((x) => x && g.text.includes(x));
        if (o.stopTokenIds.includes(id)) finish(s, 'stop_token');
        else if (hit !== undefined) {
          g.text = g.text.slice(0, g.text.indexOf(hit));
          finish(s, 'stop_string');
        } else if (g.tokens.length >= o.maxNewTokens || session.lengths[s] >= Tmax) finish(s, 'length');
        else next[s] = [id];
      }
    }
  } finally {
    session.free();
  }
  return out;

  function finish(s: number, reason: FinishReason): void {
    running[s] = false;
    out[s].finishReason = reason;
    const rest = decoders[s]?.flush() ?? '';
    if (rest && reason !== 'stop_string') out[s].text += rest;
  }
}
