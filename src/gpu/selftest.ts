// The GPU self-test behind the GPU panel: runs the WGSL matmul (each variant) on random data,
// compares with the CPU reference, measures GFLOPS, and remembers the faster variant for this
// adapter. Tested in Node (tests/unit/gpu/gpu-runtime.test.ts and the kernel tests) and in the browser (tests/e2e).
import type { GpuRuntime } from './runtime';
import { Matmul, MATMUL_VARIANTS, type MatmulVariant } from './kernels/matmul';
import { matmul_forward, maxAbsDiff } from '../reference/matmul';
import { setTuning } from './tuning';

export interface VariantResult {
  variant: MatmulVariant;
  maxDiff: number;
  gflops: number;
  msPerRun: number;
}

export interface SelfTestResult {
  M: number;
  K: number;
  N: number;
  tolerance: number;
  passed: boolean;
  /** The fastest variant that matched the reference. */
  best: VariantResult;
  variants: VariantResult[];
}

export interface SelfTestOptions {
  M?: number;
  K?: number;
  N?: number;
  /** Timed runs per variant after one warm-up. */
  iters?: number;
  onProgress?: (msg: string) => void;
}

/** Deterministic uniform values in [-1, 1) (xorshift32), so failures reproduce. */
export function randomArray(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    out[i] = (s / 4294967296) * 2 - 1;
  }
  return out;
}

export async function runMatmulSelfTest(rt: GpuRuntime, opts: SelfTestOptions = {}): Promise<SelfTestResult> {
  const M = opts.M ?? 256, K = opts.K ?? 256, N = opts.N ?? 256, iters = opts.iters ?? 4;
  const progress = opts.onProgress ?? (() => {});
  const X = randomArray(M * K, 1), W = randomArray(N * K, 2);
  progress(`CPU reference ${M}x${K}x${N}`);
  const ref = matmul_forward(X, W, M, K, N);
  const tolerance = 1e-5 * K;
  const xb = rt.upload(X, 'selftest X'), wb = rt.upload(W, 'selftest W'), yb = rt.storage(M * N * 4, 'selftest Y');
  const variants: VariantResult[] = [];
  try {
    for (const variant of MATMUL_VARIANTS) {
      progress(`compiling ${variant}`);
      const mm = await Matmul.create(rt, { variant });
      mm.run(xb, wb, yb, M, K, N);
      const got = await rt.readF32(yb, M * N);
      const maxDiff = maxAbsDiff(got, ref);
      progress(`timing ${variant}`);
      const t0 = performance.now();
      for (let i = 0; i < iters; i++) mm.run(xb, wb, yb, M, K, N);
      await rt.sync();
      const msPerRun = (performance.now() - t0) / iters;
      variants.push({ variant, maxDiff, msPerRun, gflops: (2 * M * N * K) / (msPerRun * 1e6) });
    }
  } finally {
    rt.release(xb, wb, yb);
  }
  const ok = variants.filter((v) => v.maxDiff <= tolerance);
  const best = (ok.length ? ok : variants).reduce((a, b) => (b.gflops > a.gflops ? b : a));
  if (ok.length) setTuning(rt.report, 'matmul_f32', best.variant);
  return { M, K, N, tolerance, passed: ok.length === variants.length, best, variants };
}
