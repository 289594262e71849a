// Chooses a Linear's kernel variants per adapter, weight format, row bucket (decode1 M = 1,
// decode8 2 <= M <= 8, prefill, large M >= 256) and shape class (in/out features rounded up to
// powers of two: shapeClass) by timing the candidates once and remembering the winners (src/gpu/tuning.ts pickFastest; localStorage in the
// browser, a JSON file in Node). Families: `linear:<f32|nf4>:<bucket>:<shape class>@<candidates>#<fingerprint>`:
// the candidate list is part of the key, so a new variant is timed against the old winner, and
// so is the code's fingerprint (linear-fingerprint.ts), so changed kernels are timed again.
// Tested by tests/unit/gpu/linear-tune.test.ts; `bench matmul` compares choices with the best.
import type { GpuRuntime } from '../runtime';
import { LINEAR_KERNELS_FINGERPRINT } from './linear-fingerprint';
import { getTuning, pickFastest } from '../tuning';
import { randomArray } from '../selftest';
import {
  DECODE_MAX_M, LARGE_MIN_M, M_BUCKETS, PREFILL_CANDIDATES, decodeCandidates, decodeVariants, defaultVariants, linearVariants,
  prefillCandidates, shapeClass,
  type Linear, type LinearVariant, type LinearVariantChoice, type LinearWeight, type MBucket,
} from './linear';

export interface TuneOptions {
  /** Rows for the decode8, prefill and large timings (defaults 8, 64, 256; decode1 is timed at 1). */
  decodeM?: number;
  prefillM?: number;
  largeM?: number;
  /** Rough time per candidate, milliseconds. */
  budgetMs?: number;
  /**
   * Rows of the weight whose shape class remembers the choices, when `lin` runs only the first
   * rows of it (a slice of a very wide weight, such as a 151,936-token LM head: every variant's
   * time grows with the rows alike, so a slice of TUNE_SLICE_ROWS ranks them as the whole does).
   */
  familyNW?: number;
}

/**
 * Most weight rows tuneFormats times a layer on: wider weights (LM heads) are timed on their first
 * rows. The Qwen2.5-0.5B-shaped NF4 LM head timed whole took 15-20 minutes on SwiftShader.
 */
export const TUNE_SLICE_ROWS = 16384;

/** The first `rows` rows of a weight, on the same buffers (both formats are row-major): what tuneFormats times a wide weight on. */
export function firstRows(weight: LinearWeight, rows: number): LinearWeight {
  return weight.format === 'f32' ? weight : { format: 'nf4', q: { ...weight.q, rows: Math.min(rows, weight.q.rows) } };
}

/** Most runs in one timed batch (timeRuns). */
export const MAX_BATCH = 256;

/**
 * Milliseconds per run of `run`: an untimed run (pipelines are built at their first dispatch, and
 * SwiftShader / Chromium's GPU process compile then), one timed run, then, if that run took less
 * than a quarter of `budgetMs`, a batch in one step of as many runs as fill about that quarter
 * (batchSize). For a run much shorter than the submit-and-wait the one run is mostly that wait,
 * so the batch is sized from a probe of PROBE_RUNS runs in one step instead (sized from the one
 * run, a 0.1 ms kernel got batches of 30-70, whose one wait still moved the figure by 10-30 %
 * and the tuner's pick between variants 30-40 % apart). Why not a fixed 32: docs/speed.md
 * "Tuning per shape".
 */
export async function timeRuns(rt: GpuRuntime, run: () => void, budgetMs: number): Promise<number> {
  run();
  await rt.sync();
  return timed(rt, run, budgetMs);
}

/**
 * As timeRuns, the best of two timings after the one untimed run: one noisy burst on a shared
 * machine must not decide. With `beat` (the best time of the other candidates so far), a first
 * timing over 1.5 times it is returned without the second: a clear loser (the tuner then times
 * about a third less).
 */
export async function timeBest(rt: GpuRuntime, run: () => void, budgetMs: number, beat = Infinity): Promise<number> {
  run();
  await rt.sync();
  const first = await timed(rt, run, budgetMs);
  return first > 1.5 * beat ? first : Math.min(first, await timed(rt, run, budgetMs));
}

/** Runs of the probe batch that sizes the timed batch when one run is short (see timeRuns). */
export const PROBE_RUNS = 8;

async function timed(rt: GpuRuntime, run: () => void, budgetMs: number): Promise<number> {
  let t0 = performance.now();
  run();
  await rt.sync();
  const first = performance.now() - t0;
  if (first > budgetMs / 4) return first;
  let perRun = first;
  if (batchSize(first, budgetMs) < MAX_BATCH) {
    t0 = performance.now();
    for (let i = 0; i < PROBE_RUNS; i++) run();
    await rt.sync();
    perRun = Math.min(first, (performance.now() - t0) / PROBE_RUNS);
  }
  const n = batchSize(perRun, budgetMs);
  t0 = performance.now();
  for (let i = 0; i < n; i++) run();
  await rt.sync();
  return (performance.now() - t0) / n;
}

/** Runs in a timed batch after one run of `firstMs`: about a quarter of the budget, 2 to MAX_BATCH. */
export function batchSize(firstMs: number, budgetMs: number): number {
  return Math.min(MAX_BATCH, Math.max(2, Math.floor(budgetMs / 4 / Math.max(firstMs, 0.01))));
}

/** The tuning family of a bucket for a weight format and shape on this device (and this code: LINEAR_KERNELS_FINGERPRINT). */
export function tuningFamily(rt: GpuRuntime, format: 'f32' | 'nf4', bucket: MBucket, K: number, NW: number, swiglu = false): string {
  return `linear:${format}:${bucket}:${shapeClass(K, NW, swiglu)}@${candidates(rt, bucket).join(',')}#${LINEAR_KERNELS_FINGERPRINT}`;
}

const isDecode = (bucket: MBucket) => bucket === 'decode1' || bucket === 'decode8';

/** A bucket's candidates on this device (decodeCandidates / prefillCandidates): the ones timed. */
function candidates(rt: GpuRuntime, bucket: MBucket): readonly LinearVariant[] {
  return isDecode(bucket) ? decodeCandidates(rt, bucket) : prefillCandidates(rt);
}

/** A remembered choice for a bucket is used when it is any of the bucket's variants this device
 * can run (a choice written by hand or by a test may name one the tuner would not time here). */
function usable(rt: GpuRuntime, bucket: MBucket, v: string | undefined): LinearVariant | undefined {
  const known = isDecode(bucket) ? decodeVariants(bucket) : PREFILL_CANDIDATES;
  return known.find((c) => c === v && linearVariants(rt).includes(c));
}

/**
 * Sets lin.variants to the remembered or measured fastest variant of each row bucket for this
 * adapter, weight format and shape class, compiling what it needs. Runs on scratch X/Y; LoRA is
 * left as is.
 */
export async function tuneLinear(rt: GpuRuntime, lin: Linear, opts: TuneOptions = {}): Promise<LinearVariantChoice> {
  const budget = opts.budgetMs ?? 150;
  const { K, N } = lin.spec;
  const rowsOf: Record<MBucket, number> = {
    decode1: 1,
    decode8: Math.min(Math.max(opts.decodeM ?? DECODE_MAX_M, 2), DECODE_MAX_M),
    prefill: Math.min(Math.max(opts.prefillM ?? 64, DECODE_MAX_M + 1), LARGE_MIN_M - 1),
    large: Math.max(opts.largeM ?? LARGE_MIN_M, LARGE_MIN_M),
  };
  const maxM = Math.max(...Object.values(rowsOf));
  const X = rt.upload(randomArray(maxM * K, 1), 'tune X');
  const Y = rt.storage(maxM * N * 4, 'tune Y');
  try {
    const choice = { ...lin.variants };
    for (const bucket of M_BUCKETS) {
      const M = rowsOf[bucket];
      const family = tuningFamily(rt, lin.format, bucket, K, opts.familyNW ?? lin.NW, Boolean(lin.spec.swiglu));
      choice[bucket] = usable(rt, bucket, getTuning(rt.report, family)) ?? await pickFastest(rt.report, family, candidates(rt, bucket), async (v, bestMs) => {
        await lin.prepare(v, M, true);
        return timeBest(rt, () => lin.run(X, Y, M, { variant: v }), budget, bestMs);
      });
      await lin.prepare(choice[bucket]);
    }
    lin.variants = choice;
    return choice;
  } finally {
    rt.release(X, Y);
  }
}

/** True when every bucket of this format and shape (with the fused SwiGLU or not) has a remembered choice. */
export function isTuned(rt: GpuRuntime, format: 'f32' | 'nf4', K: number, NW: number, swiglu = false): boolean {
  return M_BUCKETS.every((b) => usable(rt, b, getTuning(rt.report, tuningFamily(rt, format, b, K, NW, swiglu))) !== undefined);
}

/** The variants remembered for this adapter, format and shape (by tuneLinear), else the defaults. */
export function rememberedVariants(rt: GpuRuntime, format: 'f32' | 'nf4', K: number, NW: number, swiglu = false): LinearVariantChoice {
  const d = defaultVariants(rt, format);
  const out = { ...d };
  for (const b of M_BUCKETS) {
    const known = getTuning(rt.report, tuningFamily(rt, format, b, K, NW, swiglu));
    out[b] = usable(rt, b, known) ?? d[b];
  }
  return out;
}
