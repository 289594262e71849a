// Checks an ONNX export against our engine on the same tokens: log-probs in one pass and
// through past key/values, and greedy tokens. The two may run in any order in one page (separate
// GPU devices; see src/ort/env.ts). Used by `export --check`, the
// browser harness (src/harness/ort.harness.ts) and tests/e2e/ort.spec.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from '../model/gpu/model';
import { generate } from '../model/generate';
import type { OrtDecoder } from './decoder';

/** One engine's answers on the check inputs. */
export interface EngineAnswers {
  logprobs: number[][];
  /** The same sequences fed through the cache (ORT only; ours equals logprobs). */
  logprobsWithPast: number[][];
  greedy: number[];
}

export interface EngineComparison {
  /** Max |ours - ort| over every sequence's log-probs, one pass. */
  maxDiff: number;
  /** The same with the sequence fed through the cache (prefix of 2 tokens, then one by one). */
  maxDiffWithPast: number;
  oursGreedy: number[];
  ortGreedy: number[];
}

export async function engineAnswers(rt: GpuRuntime, ours: GpuModel, sequences: number[][], prompt: number[], maxNewTokens: number): Promise<EngineAnswers> {
  const lp = (await ours.logprobs(sequences)).logprobs.map((a) => Array.from(a));
  const [g] = await generate(rt, ours, null, [prompt], { temperature: 0, maxNewTokens });
  return { logprobs: lp, logprobsWithPast: lp, greedy: g.tokens };
}

export async function ortAnswers(ort: OrtDecoder, sequences: number[][], prompt: number[], maxNewTokens: number): Promise<EngineAnswers> {
  const r: EngineAnswers = { logprobs: [], logprobsWithPast: [], greedy: [] };
  for (const seq of sequences) {
    r.logprobs.push(Array.from(await ort.logprobs(seq)));
    r.logprobsWithPast.push(Array.from(await ort.logprobs(seq, 2)));
  }
  r.greedy = await ort.greedy(prompt, maxNewTokens);
  return r;
}

function maxAbs(a: number[][], b: number[][]): number {
  let m = 0;
  for (const [i, row] of a.entries()) {
    if (row.length !== b[i]?.length) return Infinity;
    for (let t = 0; t < row.length; t++) m = Math.max(m, Math.abs(row[t] - b[i][t]));
  }
  return m;
}

export function compareAnswers(ours: EngineAnswers, ort: EngineAnswers): EngineComparison {
  return {
    maxDiff: maxAbs(ours.logprobs, ort.logprobs),
    maxDiffWithPast: maxAbs(ours.logprobs, ort.logprobsWithPast),
    oursGreedy: ours.greedy,
    ortGreedy: ort.greedy,
  };
}
