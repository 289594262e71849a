// CPU twin of shaders/bandwidth.wgsl: the per-invocation component-wise sums of a streaming read.
// Exercised by tests/unit/gpu/kernels-limits.test.ts.

/** Layouts of shaders/bandwidth.wgsl: `grid` strides by the invocation count, `chunk` reads one range each. */
export type StreamLayout = 'grid' | 'chunk';

/** partial [T, 4]: what invocation i of `layout` sums from src [n4, 4] (T = threads). */
export function stream_read(src: Float32Array, threads: number, layout: StreamLayout): Float32Array {
  const n4 = src.length / 4;
  const out = new Float32Array(threads * 4);
  const per = Math.ceil(n4 / threads);
  for (let i = 0; i < threads; i++) {
    const vecs: number[] = [];
    if (layout === 'grid') for (let k = i; k < n4; k += threads) vecs.push(k);
    else for (let k = i * per; k < Math.min(n4, (i + 1) * per); k++) vecs.push(k);
    for (const k of vecs) for (let c = 0; c < 4; c++) out[4 * i + c] += src[4 * k + c];
  }
  return out;
}
