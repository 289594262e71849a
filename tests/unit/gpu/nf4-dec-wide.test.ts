// The wide NF4 decode kernels (nf4_dec_c32, nf4_dec_c64; scripts/gen-nf4-tiles.ts) against
// nf4_dec (8 columns per invocation) and the CPU twins: at 1, 3, 4 and 5 rows (partial and whole
// row blocks) each width must give nf4_dec's outputs bit for bit, with bias, LoRA over two
// segments, Y +=, SwiGLU with per-segment LoRA, column counts that leave the last invocation's
// groups partly or wholly past N, and the LM head fused with sampling (the partials). Prints
// maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { nf4Weight, swigluLoraRef } from '../helpers/nf4-layer';
import { Linear, nf4DecodeWidth, samplePartialBytes, type LinearSpec, type LinearOptions } from '../../../src/gpu/kernels/linear';
import { Sampler, type SamplingParams } from '../../../src/gpu/kernels/sampling';
import { linear_forward, lora_forward } from '../../../src/reference/linear';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import type { GpuRuntime } from '../../../src/gpu/runtime';

const K = 128;
// MR 1, 4 and 8 (three pipelines per layer and width: SwiftShader compiles the wide ones slowly); whole
// row blocks at 1 and 4 rows (store_tile8), partial ones at 3 and 5 (the per-element epilogue).
const ROWS = [1, 3, 4, 5];
const WIDTHS = [32, 64] as const;
const CHOICE = { decode1: 'dec', decode8: 'dec', prefill: 'dec', large: 'dec' } as const;

/** The layer at nf4_dec's width and at each wide one, all on the same buffers. */
async function layers(rt: GpuRuntime, spec: LinearSpec): Promise<Map<NonNullable<LinearOptions['decWidth']>, Linear>> {
  const out = new Map<NonNullable<LinearOptions['decWidth']>, Linear>();
  for (const w of [8, ...WIDTHS] as const) out.set(w, await Linear.create(rt, { ...spec, label: `${spec.label} c${w}` }, CHOICE, { decWidth: w }));
  return out;
}

/** Y after `lin.run` at M rows from `init` ([M, N]). */
async function runOnce(rt: GpuRuntime, lin: Linear, X: Float32Array, init: Float32Array, M: number, accumulate = false): Promise<Float32Array> {
  const xb = rt.upload(X, 'X'), yb = rt.upload(init, 'Y');
  lin.run(xb, yb, M, { variant: 'dec', accumulate });
  const y = await rt.readF32(yb, init.length);
  rt.release(xb, yb);
  return y;
}

describe('NF4 wide decode kernels', () => {
  it('nf4DecodeWidth: 64 from 8,192 weight rows, 32 from 768, else 8; 8 below 512 Ki weights', () => {
    const at = (K: number, rows: number[]) => rows.map((NW) => nf4DecodeWidth(NW, K));
    expect(at(896, [128, 512, 767, 768, 896, 4864, 8191, 8192, 9728, 151936])).toEqual([8, 8, 8, 32, 32, 32, 32, 64, 64, 64]);
    // A small model's layers (the default agent's 1,024-row head at K = 64) keep nf4_dec.
    expect(at(64, [1024, 8191, 8192])).toEqual([8, 8, 64]);
    expect(at(128, [1024, 4095, 4096])).toEqual([8, 8, 32]);
  });

  it('bias + LoRA over two segments (=, then +=) and plain N=200 equal nf4_dec bit for bit', async () => {
    const rt = await nodeRuntime();
    // N = 72: one invocation of 64 columns and a second with a single group; 200: a partial group.
    const N = 72, R = 4, scale = 2, seg = 40;
    const W = randomArray(N * K, 2), b = randomArray(N, 3), A = randomArray(2 * R * K, 4), B = randomArray(N * R, 5);
    const { spec: weight, eff, bufs } = await nf4Weight(rt, W, N, K);
    const bb = rt.upload(b, 'bias'), ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
    const lora = await layers(rt, { label: 'wide lora', K, N, weight, bias: bb, lora: { A: ab, B: Bb, R, scale, segmentStarts: [seg] } });
    const W200 = randomArray(200 * K, 6);
    const plain = await nf4Weight(rt, W200, 200, K);
    const plainLayers = await layers(rt, { label: 'wide plain', K, N: 200, weight: plain.spec });
    for (const M of ROWS) {
      const X = randomArray(M * K, M), Y0 = randomArray(M * N, M + 1);
      const loraOut = new Float32Array(M * N);
      const l0 = lora_forward(X, A.slice(0, R * K), B.slice(0, seg * R), scale, M, K, seg, R);
      const l1 = lora_forward(X, A.slice(R * K), B.slice(seg * R), scale, M, K, N - seg, R);
      for (let m = 0; m < M; m++) {
        loraOut.set(l0.subarray(m * seg, (m + 1) * seg), m * N);
        loraOut.set(l1.subarray(m * (N - seg), (m + 1) * (N - seg)), m * N + seg);
      }
      const ref = linear_forward(X, eff, b, M, K, N).map((v, i) => v + loraOut[i]);
      for (const accumulate of [false, true]) {
        const init = accumulate ? Y0 : new Float32Array(M * N).fill(NaN);
        const base = await runOnce(rt, lora.get(8)!, X, init, M, accumulate);
        expect(maxAbsDiff(base, accumulate ? ref.map((v, i) => v + Y0[i]) : ref)).toBeLessThan(1e-4);
        for (const w of WIDTHS) {
          const got = await runOnce(rt, lora.get(w)!, X, init, M, accumulate);
          const d = maxAbsDiff(got, accumulate ? ref.map((v, i) => v + Y0[i]) : ref);
          console.log(`nf4_dec_c${w} M=${M} bias+lora ${accumulate ? '+=' : '='}: maxdiff=${d.toExponential(2)} (nf4_dec identical: ${got.every((v, i) => Object.is(v, base[i]))})`);
          expect(got, `c${w} M=${M} ${accumulate ? '+=' : '='}`).toEqual(base);
        }
      }
      const init = new Float32Array(M * 200).fill(NaN);
      const base = await runOnce(rt, plainLayers.get(8)!, X, init, M);
      expect(maxAbsDiff(base, linear_forward(X, plain.eff, null, M, K, 200))).toBeLessThan(1e-4);
      for (const w of WIDTHS) expect(await runOnce(rt, plainLayers.get(w)!, X, init, M), `c${w} M=${M} plain N=200`).toEqual(base);
    }
    for (const l of [...lora.values(), ...plainLayers.values()]) l.dispose();
    rt.release(bb, ab, Bb, ...bufs, ...plain.bufs);
  });

  it('fused gate|up with SwiGLU and per-segment LoRA (I=44) equals nf4_dec bit for bit', async () => {
    const rt = await nodeRuntime();
    const I = 44, R = 4, scale = 0.5;
    const W = randomArray(2 * I * K, 7), A = randomArray(2 * R * K, 8), B = randomArray(2 * I * R, 9);
    const { spec: weight, eff, bufs } = await nf4Weight(rt, W, 2 * I, K);
    const ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
    const ls = await layers(rt, { label: 'wide swiglu', K, N: I, weight, swiglu: true, lora: { A: ab, B: Bb, R, scale, segmentStarts: [I] } });
    for (const M of ROWS) {
      const X = randomArray(M * K, M + 2);
      const ref = swigluLoraRef(X, eff, A, B, scale, M, K, I, R);
      const init = new Float32Array(M * I).fill(NaN);
      const base = await runOnce(rt, ls.get(8)!, X, init, M);
      expect(maxAbsDiff(base, ref)).toBeLessThan(1e-4);
      for (const w of WIDTHS) {
        const got = await runOnce(rt, ls.get(w)!, X, init, M);
        console.log(`nf4_dec_c${w} M=${M} swiglu+lora: maxdiff=${maxAbsDiff(got, ref).toExponential(2)}`);
        expect(got, `c${w} M=${M}`).toEqual(base);
      }
    }
    for (const l of ls.values()) l.dispose();
    rt.release(ab, Bb, ...bufs);
  });

  it('the LM head fused with sampling (V=1001: partial groups) writes nf4_dec\'s partials bit for bit', async () => {
    const rt = await nodeRuntime();
    const V = 1001;
    const { spec: weight, bufs } = await nf4Weight(rt, randomArray(V * K, 71).map((x) => 3 * x), V, K);
    const heads = await layers(rt, { label: 'wide head', K, N: V, weight });
    const sampler = await Sampler.create(rt, { V });
    const params: SamplingParams[] = [
      { temperature: 0, topK: 0, topP: 1, seed: 0, step: 0 },
      { temperature: 0.8, topK: 0, topP: 1, seed: 99, step: 5 },
    ];
    for (const M of ROWS) {
      const xb = rt.upload(randomArray(M * K, 72 + M), 'X');
      const bytes = samplePartialBytes(M, V, 8);
      for (const s of params) {
        const parts = new Map<number, Float32Array>();
        for (const [w, head] of heads) {
          const part = rt.upload(new Float32Array(bytes / 4 + 4).fill(NaN), 'partials');
          expect(head.runSample(xb, part, M, sampler.epilogue(s), 'dec')).toBe(8);
          parts.set(w, await rt.readF32(part));
          rt.release(part);
        }
        const base = parts.get(8)!;
        // The last 4 floats lie past the partials: nothing may be written there.
        expect(base.slice(-4).every(Number.isNaN)).toBe(true);
        for (const w of WIDTHS) expect(parts.get(w), `c${w} M=${M} T=${s.temperature}`).toEqual(base);
      }
      rt.release(xb);
    }
    console.log(`nf4_dec_c32/c64 fused sampling: partials identical to nf4_dec at M=${ROWS.join(',')}`);
    for (const h of heads.values()) h.dispose();
    rt.release(...bufs);
  });
});
