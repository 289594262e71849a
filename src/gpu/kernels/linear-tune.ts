// Chooses a Linear's kernel variants per adapter by timing the candidates once, at the first
// layer's shape, and remembering the winners (src/gpu/tuning.ts pickFastest; localStorage in
// the browser). Families: `linear:<f32|nf4>:<decode|prefill>`. Tested by tests/unit/kernels-a-tune.test.ts.
import type { GpuRuntime } from '../runtime';
import { getTuning, pickFastest } from '../tuning';
import { randomArray } from '../selftest';
import { DECODE_CANDIDATES, DECODE_MAX_M, PREFILL_CANDIDATES, defaultVariants, type Linear, type LinearVariant, type LinearVariantChoice } from './linear';

export interface TuneOptions {
  /** Rows for the decode and prefill timings. */
  decodeM?: number;
  prefillM?: number;
  /** Rough time per candidate, milliseconds. */
  budgetMs?: number;
}

/** Milliseconds per run of `run`: one run, then a batch in one step if that run was quick. */
export async function timeRuns(rt: GpuRuntime, run: () => void, budgetMs: number): Promise<number> {
  let t0 = performance.now();
  run();
  await rt.sync();
  const first = performance.now() - t0;
  if (first > budgetMs / 4) return first;
  const n = Math.min(32, Math.max(2, Math.floor(budgetMs / Math.max(first, 0.05))));
  t0 = performance.now();
  for (let i = 0; i < n; i++) run();
  await rt.sync();
  return (performance.now() - t0) / n;
}

/**
 * Sets lin.variants to the remembered or measured fastest decode and prefill variants for this
 * adapter and weight format, compiling what it needs. Runs on scratch X/Y; LoRA is left as is.
 */
export async function tuneLinear(rt: GpuRuntime, lin: Linear, opts: TuneOptions = {}): Promise<LinearVariantChoice> {
  const budget = opts.budgetMs ?? 150;
  const { K, N } = lin.spec;
  const maxM = Math.max(opts.decodeM ?? 1, opts.prefillM ?? 64);
  const X = rt.upload(randomArray(maxM * K, 1), 'tune X');
  const Y = rt.storage(maxM * N * 4, 'tune Y');
  try {
    const pick = (bucket: 'decode' | 'prefill', M: number, candidates: readonly LinearVariant[]) =>
      pickFastest(rt.report, `linear:${lin.format}:${bucket}`, candidates, async (v) => {
        await lin.prepare(v);
        // The best of two timings: one noisy burst on a shared machine must not decide for good.
        const run = () => lin.run(X, Y, M, { variant: v });
        return Math.min(await timeRuns(rt, run, budget), await timeRuns(rt, run, budget));
      });
    const decode = await pick('decode', Math.min(opts.decodeM ?? 1, DECODE_MAX_M), DECODE_CANDIDATES);
    const prefill = await pick('prefill', Math.max(opts.prefillM ?? 64, DECODE_MAX_M + 1), PREFILL_CANDIDATES);
    await lin.prepare(decode);
    await lin.prepare(prefill);
    lin.variants = { decode, prefill };
    return lin.variants;
  } finally {
    rt.release(X, Y);
  }
}

/** The variants remembered for this adapter and format (by tuneLinear), else the defaults. */
export function rememberedVariants(rt: GpuRuntime, format: 'f32' | 'nf4'): LinearVariantChoice {
  const d = defaultVariants(rt);
  const get = <T extends LinearVariant>(bucket: string, candidates: readonly T[], fallback: LinearVariant): LinearVariant =>
    candidates.find((c) => c === getTuning(rt.report, `linear:${format}:${bucket}`)) ?? fallback;
  return { decode: get('decode', DECODE_CANDIDATES, d.decode), prefill: get('prefill', PREFILL_CANDIDATES, d.prefill) };
}
