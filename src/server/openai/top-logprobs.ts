// `top_logprobs`: the k most likely tokens at every completion position, from a fresh forward over
// prompt + completion (the sampler keeps only the sampled id on the GPU). Rows are gathered in
// passes of at most maxRows tokens and read back [rows, V]; log softmax(logits / T) on the CPU.
// Used by completions.ts; tested by tests/unit/server/serve-openai.test.ts (top_logprobs vs logprob).
import type { GpuRuntime } from '../../gpu/runtime';
import type { GpuModel } from '../../model/gpu/model';

export interface TopEntry {
  id: number;
  logprob: number;
}

/** [tokens.length - promptLength] lists of the k best (id, logprob) at each completion position. */
export async function topLogprobs(rt: GpuRuntime, model: GpuModel, tokens: number[], promptLength: number, k: number, temperature: number): Promise<TopEntry[][]> {
  const V = model.cfg.vocabSize, invT = temperature > 0 ? 1 / temperature : 1;
  const out: TopEntry[][] = [];
  const cache = model.newCache(1, tokens.length);
  try {
    for (let start = 0; start < tokens.length; start += model.maxRows) {
      const ids = tokens.slice(start, start + model.maxRows);
      const step = cache.append([ids.length]);
      const h = model.forward(ids, step, cache);
      // Row r of this pass (position start + r) predicts token start + r + 1.
      const rows: number[] = [];
      for (let r = 0; r < ids.length; r++) {
        const pos = start + r;
        if (pos >= promptLength - 1 && pos < tokens.length - 1) rows.push(r);
      }
      if (!rows.length) {
        rt.submit();
        continue;
      }
      const buf = rt.storage(rows.length * V * 4, 'top-logprobs logits');
      try {
        model.logprobsOp.gatherLogits(h, rows, buf, model.lmHeadFn);
        const logits = await rt.readF32(buf, rows.length * V);
        for (let i = 0; i < rows.length; i++) out.push(topK(logits.subarray(i * V, (i + 1) * V), k, invT));
      } finally {
        rt.release(buf);
      }
    }
  } finally {
    cache.free();
  }
  return out;
}

function topK(row: Float32Array, k: number, invT: number): TopEntry[] {
  let max = -Infinity;
  for (const v of row) max = Math.max(max, v * invT);
  let sum = 0;
  for (const v of row) sum += Math.exp(v * invT - max);
  const logZ = max + Math.log(sum);
  const best: TopEntry[] = [];
  for (let id = 0; id < row.length; id++) {
    const lp = row[id] * invT - logZ;
    if (best.length < k || lp > best[best.length - 1].logprob) {
      best.push({ id, logprob: lp });
      best.sort((a, b) => b.logprob - a.logprob);
      if (best.length > k) best.pop();
    }
  }
  return best;
}
