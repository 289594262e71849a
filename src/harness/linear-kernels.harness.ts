// Harness function for the decode linears in the browser: every decode variant the device offers
// (dec, gemv, rb1, and sg where Chromium exposes `subgroups`) with f32 and NF4 weights, bias,
// LoRA and fused SwiGLU, at 1 and 5 rows, against the CPU twins. Used by
// tests/e2e/linear-kernels.spec.ts; the same checks run in Node in
// tests/unit/gpu/{linear-forward,nf4-matmul}.test.ts.
import type { Harness } from './types';
import { getBrowserGpu } from '../gpu/browser-gpu';
import { GpuRuntime } from '../gpu/runtime';
import { Linear, linearVariants, type LinearWeight } from '../gpu/kernels/linear';
import { Nf4Quantizer } from '../gpu/kernels/nf4';
import { randomArray } from '../gpu/selftest';
import { linear_forward, lora_forward } from '../reference/linear';
import { swiglu_forward } from '../reference/swiglu';
import { maxAbsDiff } from '../reference/matmul';
import { nf4_roundtrip } from '../reference/nf4';

export interface LinearKernelsReport {
  adapter: string;
  /** The device's `subgroups` feature (the sg variant runs only with it). */
  subgroups: boolean;
  /** Largest maxdiff per `<format> <variant>` over the cases, relative to the case's largest
   * |output| (SwiGLU outputs reach ~100 here, so absolute differences of 1e-4 are f32 rounding). */
  maxdiff: Record<string, number>;
}

let rt: Promise<GpuRuntime> | undefined;

/** Y of the CPU twin: X W^T + bias + LoRA, then SiLU(gate) * up when swiglu (W = [gate; up]). */
function reference(X: Float32Array, W: Float32Array, b: Float32Array, A: Float32Array, B: Float32Array, M: number, K: number, N: number, R: number, swiglu: boolean): Float32Array {
  const NW = swiglu ? 2 * N : N;
  const y = linear_forward(X, W, b, M, K, NW);
  const l = lora_forward(X, A, B, 2, M, K, NW, R);
  const full = y.map((v, i) => v + l[i]);
  if (!swiglu) return full;
  const gate = new Float32Array(M * N), up = new Float32Array(M * N);
  for (let m = 0; m < M; m++) {
    gate.set(full.subarray(m * NW, m * NW + N), m * N);
    up.set(full.subarray(m * NW + N, (m + 1) * NW), m * N);
  }
  return swiglu_forward(gate, up);
}

async function check(r: GpuRuntime, format: 'f32' | 'nf4', swiglu: boolean, out: Record<string, number>): Promise<void> {
  const K = 128, N = 36, R = 4, NW = swiglu ? 2 * N : N;
  const W = randomArray(NW * K, 61), b = randomArray(NW, 62), A = randomArray(R * K, 63), B = randomArray(NW * R, 64);
  const wb = r.upload(W, 'W');
  let weight: LinearWeight = { format: 'f32', W: wb };
  if (format === 'nf4') {
    weight = { format: 'nf4', q: (await (await Nf4Quantizer.create(r)).quantize(wb, NW, K, 'W')).weight };
    r.release(wb);
  }
  const eff = format === 'nf4' ? nf4_roundtrip(W) : W;
  const bb = r.upload(b, 'bias'), ab = r.upload(A, 'A'), Bb = r.upload(B, 'B');
  const lin = await Linear.create(r, { label: `harness ${format}`, K, N, weight, bias: bb, swiglu, lora: { A: ab, B: Bb, R, scale: 2 } });
  for (const M of [1, 5]) {
    const X = randomArray(M * K, 65 + M);
    const want = reference(X, eff, b, A, B, M, K, N, R, swiglu);
    const scale = Math.max(1, ...want.map(Math.abs));
    const xb = r.upload(X, 'X'), yb = r.storage(M * N * 4, 'Y');
    for (const variant of linearVariants(r).filter((v) => ['dec', 'gemv', 'rb1', 'sg'].includes(v))) {
      await lin.prepare(variant);
      lin.run(xb, yb, M, { variant });
      const key = `${format} ${variant}`;
      out[key] = Math.max(out[key] ?? 0, maxAbsDiff(await r.readF32(yb, M * N), want) / scale);
    }
    r.release(xb, yb);
  }
  lin.dispose();
  r.release(bb, ab, Bb, ...(weight.format === 'f32' ? [weight.W] : [weight.q.codes, weight.q.absmax]));
}

export function register(h: Harness): void {
  h.linearKernelsCheck = async (): Promise<LinearKernelsReport> => {
    rt ??= GpuRuntime.create(getBrowserGpu());
    const r = await rt;
    const maxdiff: Record<string, number> = {};
    for (const format of ['f32', 'nf4'] as const) {
      for (const swiglu of [false, true]) await check(r, format, swiglu, maxdiff);
    }
    return { adapter: `${r.report.vendor} ${r.report.architecture}`, subgroups: r.hasFeature('subgroups'), maxdiff };
  };
}
