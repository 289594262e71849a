// Checks an ONNX export against our engine on the same tokens: log-probs in one pass and
// through past key/values, and greedy tokens. Used by `export --format onnx --check`, the
// browser harness (src/harness/ort.harness.ts) and the tests of both.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from '../model/gpu/model';
import { generate } from '../model/generate';
import type { OrtDecoder } from './decoder';

export interface EngineComparison {
  /** Max |ours - ort| over every sequence's log-probs, one pass. */
  maxDiff: number;
  /** The same with the sequence fed through the cache (prefix of 2 tokens, then one by one). */
  maxDiffWithPast: number;
  oursGreedy: number[];
  ortGreedy: number[];
  ours: number[][];
  ort: number[][];
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

export async function compareWithEngine(rt: GpuRuntime, ours: GpuModel, ort: OrtDecoder, sequences: number[][], prompt: number[], maxNewTokens: number): Promise<EngineComparison> {
  const ref = (await ours.logprobs(sequences)).logprobs;
  const r: EngineComparison = { maxDiff: 0, maxDiffWithPast: 0, oursGreedy: [], ortGreedy: [], ours: [], ort: [] };
  for (const [i, seq] of sequences.entries()) {
    const full = await ort.logprobs(seq);
    const cached = await ort.logprobs(seq, 2);
    r.maxDiff = Math.max(r.maxDiff, maxAbs(full, ref[i]));
    r.maxDiffWithPast = Math.max(r.maxDiffWithPast, maxAbs(cached, ref[i]));
    r.ours.push(Array.from(ref[i]));
    r.ort.push(Array.from(full));
  }
  const [g] = await generate(rt, ours, null, [prompt], { temperature: 0, maxNewTokens });
  r.oursGreedy = g.tokens;
  r.ortGreedy = await ort.greedy(prompt, maxNewTokens);
  return r;
}
