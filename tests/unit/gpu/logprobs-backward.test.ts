// Chunked log-prob/entropy backward (shaders/logprobs.wgsl logprobs_backward_rows) on Dawn:
// dH through the f32 LM head against the twin chain matmul_forward -> logprobs_backward ->
// matmul (dlogits W), for V = 1000 and 1003, chunk boundaries inside M, temperature, with and
// without dentropy; the in-place kernel alone on V = 151936. The dH callback is the existing f32
// Matmul on W^T (test only). Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { ChunkedLogprobsBackward, type DlogitsFn } from '../../../src/gpu/kernels/logprobs-backward';
import { f32LmHead } from '../../../src/gpu/kernels/logprobs';
import { Matmul } from '../../../src/gpu/kernels/matmul';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { logprobs_backward } from '../../../src/reference/logprobs';
import { matmul_forward, maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

function targetsFor(M: number, V: number, seed: number): Uint32Array {
  const r = randomArray(M, seed);
  return Uint32Array.from(r, (x) => Math.min(V - 1, Math.floor(((x + 1) / 2) * V)));
}

/** W^T [C, Vp] with zero columns V..Vp-1 (Vp = V rounded up to 4, as Matmul needs K % 4 = 0). */
function transposedPadded(W: Float32Array, V: number, C: number, Vp: number): Float32Array {
  const out = new Float32Array(C * Vp);
  for (let v = 0; v < V; v++) for (let c = 0; c < C; c++) out[c * Vp + v] = W[v * C + c];
  return out;
}

/**
 * Test-only dH callback: dH rows r0.. = dlogits W through Matmul (X Wt^T with Wt = W^T), the
 * dlogits rows first copied into a [chunkRows, Vp] buffer whose padding columns stay 0. Also
 * copies the hidden rows it is handed into hSeen, to check them.
 */
function f32DhCallback(rt: GpuRuntime, mm: Matmul, Wt: GPUBuffer, dims: { C: number; V: number; Vp: number; chunkRows: number },
  dH: GPUBuffer, hSeen: GPUBuffer, calls: [number, number][]): { fn: DlogitsFn; scratch: GPUBuffer[] } {
  const { C, V, Vp, chunkRows } = dims;
  const pad = rt.upload(new Float32Array(chunkRows * Vp), 'dlogits padded'), dHc = rt.storage(chunkRows * C * 4, 'dH chunk');
  const fn: DlogitsFn = (dlogits, rows, r0, hRows) => {
    calls.push([rows, r0]);
    for (let i = 0; i < rows; i++) rt.copy(dlogits, i * V * 4, pad, i * Vp * 4, V * 4);
    mm.run(pad, Wt, dHc, rows, Vp, C);
    rt.copy(dHc, 0, dH, r0 * C * 4, rows * C * 4);
    rt.copy(hRows, 0, hSeen, r0 * C * 4, rows * C * 4);
  };
  return { fn, scratch: [pad, dHc] };
}

const cases = [
  { M: 5, C: 32, V: 1000, chunkRows: 16, temperature: 1, dent: false },
  { M: 37, C: 64, V: 1003, chunkRows: 16, temperature: 1, dent: true },
  { M: 9, C: 16, V: 1000, chunkRows: 4, temperature: 0.7, dent: true },
  { M: 7, C: 16, V: 1003, chunkRows: 3, temperature: 1.3, dent: false },
];

describe('chunked logprobs backward', () => {
  // wg 4: the CPU-adapter default (one SIMD group per row); 64: the GPU default.
  for (const { M, C, V, chunkRows, temperature, dent } of cases) for (const wg of [4, 64]) {
    it(`M=${M} C=${C} V=${V} chunkRows=${chunkRows} T=${temperature} dentropy=${dent} wg=${wg}`, async () => {
      const rt = await nodeRuntime();
      const Vp = Math.ceil(V / 4) * 4;
      const H = randomArray(M * C, M + 1).map((x) => 3 * x), W = randomArray(V * C, V + 2);
      const targets = targetsFor(M, V, 9);
      const dlogp = randomArray(M, 31), dentropy = dent ? randomArray(M, 32).map((x) => 0.1 * x) : null;
      const mm = await Matmul.create(rt, { variant: 'rb' });
      const bwd = await ChunkedLogprobsBackward.create(rt, { V, C, chunkRows, wg });
      const hb = rt.upload(H, 'H'), wb = rt.upload(W, 'W'), wtb = rt.upload(transposedPadded(W, V, C, Vp), 'W^T padded');
      const tb = rt.upload(targets, 'targets'), gb = rt.upload(dlogp, 'dlogp');
      const eb = dentropy ? rt.upload(dentropy, 'dentropy') : null;
      const dH = rt.storage(M * C * 4, 'dH'), hSeen = rt.storage(M * C * 4, 'H seen');
      const calls: [number, number][] = [];
      const cb = f32DhCallback(rt, mm, wtb, { C, V, Vp, chunkRows }, dH, hSeen, calls);
      bwd.run(hb, tb, M, gb, eb, f32LmHead(mm, wb, C, V), cb.fn, temperature);
      const got = await rt.readF32(dH, M * C), seen = await rt.readF32(hSeen, M * C);

      // Twin chain: logits / T -> logprobs_backward -> / T -> dlogits W (= dlogits (W^T)^T).
      const z = matmul_forward(H, W, M, C, V).map((x) => x / temperature);
      const dlogits = logprobs_backward(dlogp, dentropy, z, targets, M, V).map((x) => x / temperature);
      const Wt = transposedPadded(W, V, C, V);
      const ref = matmul_forward(dlogits, Wt, M, V, C);
      const d = maxAbsDiff(got, ref);
      const mag = Math.max(...ref.map(Math.abs));
      console.log(`logprobs backward M=${M} C=${C} V=${V} chunk=${chunkRows} T=${temperature} dentropy=${dent} wg=${wg} ` +
        `maxdiff dH=${d.toExponential(2)} (max |dH| ${mag.toFixed(3)}, scratch ${bwd.scratchBytes} bytes)`);
      expect(d).toBeLessThan(1e-5 * Math.max(1, mag));
      expect(maxAbsDiff(seen, H)).toBe(0);
      const expectedCalls: [number, number][] = [];
      for (let r0 = 0; r0 < M; r0 += chunkRows) expectedCalls.push([Math.min(chunkRows, M - r0), r0]);
      expect(calls).toEqual(expectedCalls);
      // Only [chunkRows, V] logits (and [chunkRows, C] hidden rows) ever exist.
      expect(bwd.scratchBytes).toBeLessThanOrEqual(Math.ceil(chunkRows * V / 4) * 16 + Math.ceil(chunkRows * C / 4) * 16);
      rt.release(hb, wb, wtb, tb, gb, dH, hSeen, ...cb.scratch);
      if (eb) rt.release(eb);
      bwd.destroy();
    });
  }

  it('dlogits in place alone on V = 151936 (Qwen vocabulary), with dentropy', async () => {
    const rt = await nodeRuntime();
    const N = 2, V = 151936, r0 = 1;
    const logits = randomArray(N * V, 4).map((x) => 8 * x);
    logits[V + 151645] = 30; // one confident row
    const targets = Uint32Array.from([0, 12345, 151645]), dlogp = Float32Array.from([0, -0.5, 0.25]);
    const dentropy = Float32Array.from([0, 0.01, -0.02]);
    const bwd = await ChunkedLogprobsBackward.create(rt, { V, C: 4, chunkRows: 1 });
    const lb = rt.upload(logits, 'logits'), tb = rt.upload(targets, 'targets');
    const gb = rt.upload(dlogp, 'dlogp'), eb = rt.upload(dentropy, 'dentropy');
    bwd.dlogitsInPlace(lb, N, r0, tb, gb, eb);
    const got = await rt.readF32(lb, N * V);
    const ref = logprobs_backward(dlogp.subarray(r0), dentropy.subarray(r0), logits, targets.subarray(r0), N, V);
    const d = maxAbsDiff(got, ref);
    console.log(`logprobs backward in place V=${V} maxdiff dlogits=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-6);
    expect(() => bwd.dlogitsInPlace(lb, 3, 0, tb, gb, eb)).toThrow(/logprobs_backward: expected logits of \[3, 151936\]/);
    expect(() => bwd.dlogitsInPlace(lb, 2, 3, tb, gb, eb)).toThrow(/logprobs_backward: expected targets of \[5\]/);
    expect(() => bwd.dlogitsInPlace(lb, 2, 0, tb, gb, null, 0)).toThrow(ShapeError);
    rt.release(lb, tb, gb, eb);
    bwd.destroy();
  });
});
