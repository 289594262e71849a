// The Linear launcher (shaders/linear.wgsl and shaders/matmul_nf4.wgsl) against the CPU twins:
// bias, LoRA (switched off and on at run time with no new allocation), accumulate (Y +=),
// fused SwiGLU with per-segment LoRA, fused q|k|v segments, f32 and NF4 weights, every variant.
// Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Linear, DECODE_MAX_M, linearVariants, type LinearWeight, type LinearSpec } from '../../../src/gpu/kernels/linear';
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import { linear_forward, lora_forward } from '../../../src/reference/linear';
import { swiglu_forward } from '../../../src/reference/swiglu';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';
import type { GpuRuntime } from '../../../src/gpu/runtime';

type Format = 'f32' | 'nf4';

async function weightOf(rt: GpuRuntime, fmt: Format, W: Float32Array, rows: number, K: number): Promise<{ w: LinearWeight; eff: Float32Array; bufs: GPUBuffer[] }> {
  const wb = rt.upload(W, 'W');
  if (fmt === 'f32') return { w: { format: 'f32', W: wb }, eff: W, bufs: [wb] };
  const { weight } = await (await Nf4Quantizer.create(rt)).quantize(wb, rows, K, 'W');
  rt.release(wb);
  return { w: { format: 'nf4', q: weight }, eff: nf4_roundtrip(W), bufs: [weight.codes, weight.absmax] };
}

/** Rows [r0, r1) of a row-major [*, C] matrix. */
const rows = (a: Float32Array, C: number, r0: number, r1: number) => a.slice(r0 * C, r1 * C);
const add = (a: Float32Array, b: Float32Array) => a.map((v, i) => v + b[i]);

/** Runs every variant valid for M and returns the largest maxdiff against ref. */
async function allVariants(rt: GpuRuntime, lin: Linear, X: Float32Array, M: number, outN: number, ref: Float32Array,
  opts: { accumulateOnto?: Float32Array } = {}): Promise<Record<string, number>> {
  const xb = rt.upload(X, 'X'), yb = rt.storage(M * outN * 4, 'Y');
  const out: Record<string, number> = {};
  for (const variant of linearVariants(rt)) {
    if (variant === 'gemv' && M > DECODE_MAX_M) continue;
    await lin.prepare(variant);
    rt.write(yb, opts.accumulateOnto ?? new Float32Array(M * outN).fill(NaN));
    lin.run(xb, yb, M, { variant, accumulate: Boolean(opts.accumulateOnto) });
    out[variant] = maxAbsDiff(await rt.readF32(yb, M * outN), ref);
  }
  rt.release(xb, yb);
  return out;
}

function report(name: string, d: Record<string, number>): number {
  console.log(`${name}: ${Object.entries(d).map(([v, x]) => `${v} maxdiff=${x.toExponential(2)}`).join(' ')}`);
  return Math.max(...Object.values(d));
}

describe('Linear', () => {
  for (const fmt of ['f32', 'nf4'] as Format[]) {
    for (const M of [3, 17]) {
      it(`${fmt} M=${M}: bias + LoRA, then LoRA off, then accumulate`, async () => {
        const rt = await nodeRuntime();
        const K = 128, N = 40, R = 4, scale = 2;
        const X = randomArray(M * K, 1 + M), W = randomArray(N * K, 2), b = randomArray(N, 3);
        const A = randomArray(R * K, 4), B = randomArray(N * R, 5);
        const { w, eff, bufs } = await weightOf(rt, fmt, W, N, K);
        const bb = rt.upload(b, 'bias'), ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
        const lin = await Linear.create(rt, { label: 'test', K, N, weight: w, bias: bb, lora: { A: ab, B: Bb, R, scale } });
        const base = linear_forward(X, eff, b, M, K, N);
        const withLora = add(base, lora_forward(X, A, B, scale, M, K, N, R));
        expect(report(`linear ${fmt} M=${M} bias+lora`, await allVariants(rt, lin, X, M, N, withLora))).toBeLessThan(1e-4);
        const before = rt.memory();
        lin.loraEnabled = false;
        expect(report(`linear ${fmt} M=${M} bias, lora off`, await allVariants(rt, lin, X, M, N, base))).toBeLessThan(1e-4);
        lin.loraEnabled = true;
        const Y0 = randomArray(M * N, 6);
        expect(report(`linear ${fmt} M=${M} Y += bias+lora`, await allVariants(rt, lin, X, M, N, add(Y0, withLora), { accumulateOnto: Y0 }))).toBeLessThan(1e-4);
        const after = rt.memory();
        expect(after.created).toBe(before.created); // toggling LoRA allocated nothing
        lin.dispose();
        rt.release(bb, ab, Bb, ...bufs);
      });
    }

    if (fmt === 'f32') {
      // X A^T of the register-blocked variants runs in a workgroup shaped by S*R (narrowXA):
      // 24 columns -> 3 x 5 invocations, 40 -> 4 x 4 (the last column group partial); M = 37 rows.
      for (const R of [24, 40]) {
        it(`f32 M=37: LoRA rank ${R} (X A^T in a ${R === 24 ? '3 x 5' : '4 x 4'} workgroup)`, async () => {
          const rt = await nodeRuntime();
          const M = 37, K = 64, N = 40, scale = 0.5;
          const X = randomArray(M * K, 31), W = randomArray(N * K, 32), A = randomArray(R * K, 33), B = randomArray(N * R, 34);
          const { w, eff, bufs } = await weightOf(rt, fmt, W, N, K);
          const ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
          const lin = await Linear.create(rt, { label: `rank ${R}`, K, N, weight: w, lora: { A: ab, B: Bb, R, scale } });
          const ref = add(linear_forward(X, eff, null, M, K, N), lora_forward(X, A, B, scale, M, K, N, R));
          expect(report(`linear f32 M=${M} lora rank ${R}`, await allVariants(rt, lin, X, M, N, ref))).toBeLessThan(1e-4);
          lin.dispose();
          rt.release(ab, Bb, ...bufs);
        });
      }
    }

    if (fmt === 'f32') {
      // lin_rb8 reads its workgroup layout and SwiGLU from the flags, so rb8's 4 x 4, X A^T's narrow
      // 1 x 16 (rank 8) and 2 x 8 (rank 16), and dec's 16 x 1 at 5-8 rows, plain or SwiGLU, run one
      // pipeline of 16 invocations.
      it('f32 lin_rb8 layouts of up to 16 invocations, plain or SwiGLU, share one pipeline, each with its own rows and columns', async () => {
        const rt = await nodeRuntime();
        const K = 64, N = 72, scale = 0.5;
        for (const [R, M] of [[8, 37], [16, 21], [8, 6]] as const) {
          const X = randomArray(M * K, 51 + R), W = randomArray(N * K, 52), A = randomArray(R * K, 53), B = randomArray(N * R, 54);
          const wb = rt.upload(W, 'W'), ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
          const lin = await Linear.create(rt, { label: `flat rank ${R}`, K, N, weight: { format: 'f32', W: wb }, lora: { A: ab, B: Bb, R, scale } });
          const ref = add(linear_forward(X, W, null, M, K, N), lora_forward(X, A, B, scale, M, K, N, R));
          for (const variant of ['rb8', 'dec'] as const) {
            await lin.prepare(variant, M);
            const xb = rt.upload(X, 'X'), yb = rt.storage(M * N * 4, 'Y');
            lin.run(xb, yb, M, { variant });
            const d = maxAbsDiff(await rt.readF32(yb, M * N), ref);
            console.log(`lin_rb8 flat: ${variant} M=${M} rank ${R}: maxdiff=${d.toExponential(2)}`);
            expect(d, `${variant} M=${M} rank ${R}`).toBeLessThan(1e-4);
            rt.release(xb, yb);
          }
          lin.dispose();
          rt.release(wb, ab, Bb);
        }
        // A SwiGLU layer (gate | up, I = 20) runs the same pipeline, told so by the flags.
        const I = 20, M = 13, X = randomArray(M * K, 61), W = randomArray(2 * I * K, 62);
        const wb = rt.upload(W, 'W'), xb = rt.upload(X, 'X'), yb = rt.storage(M * I * 4, 'Y');
        const glu = await Linear.create(rt, { label: 'flat swiglu', K, N: I, weight: { format: 'f32', W: wb }, swiglu: true });
        const want = swiglu_forward(linear_forward(X, W.subarray(0, I * K), null, M, K, I), linear_forward(X, W.subarray(I * K), null, M, K, I));
        for (const variant of ['rb8', 'dec'] as const) {
          await glu.prepare(variant, M);
          glu.run(xb, yb, M, { variant });
          const d = maxAbsDiff(await rt.readF32(yb, M * I), want);
          console.log(`lin_rb8 flat: ${variant} SwiGLU M=${M}: maxdiff=${d.toExponential(2)}`);
          expect(d, `${variant} SwiGLU`).toBeLessThan(1e-4);
        }
        glu.dispose();
        rt.release(wb, xb, yb);
        const small = rt.pipelines.builtKeys().filter((k) => k.startsWith('linear:lin_rb8:') && !/WG_X=8,WG_Y=8/.test(k));
        console.log(`lin_rb8 pipelines of <= 16 invocations built in this file: ${small.join(' | ')}`);
        expect(small.length).toBeGreaterThan(0);
        for (const k of small) expect(k, 'one workgroup shape for every small layout').toMatch(/WG_X=16,WG_Y=1$/);
        expect(small.filter((k) => !k.includes('MR=')), 'rb8 shares dec\'s eight-row pipeline (MR=8 spelled out)').toEqual([]);
        expect(small.filter((k) => !k.includes('SWIGLU=0,SWIGLU_FLAG=1')), 'SwiGLU from the flags, not compiled in').toEqual([]);
      });
    }

    if (fmt === 'f32') {
      // rb16 runs one of two pipelines: without LoRA and with whole column groups the lean one
      // (every tile, rows past M clamped: put8_row), else the general one. Shapes with whole tiles,
      // partial rows (M = 24, 40, 12 < 16, and the decode8 bucket's 2-8 rows, where the tuner may
      // pick rb16), partial columns; plain and SwiGLU, bias, LoRA on and off, = and +=; the rows
      // past M (Y is 16 rows longer) must stay untouched. The lean pipeline's stores are fixed at
      // compile time (= or +=): built for the layer's `accumulate`, and for the other mode on first
      // use, so both hints run both modes.
      for (const [M, N, swiglu, hint] of [[32, 32, false, false], [24, 32, false, true], [12, 32, false, false], [32, 40, false, true], [32, 16, true, false],
        [40, 16, true, true], [9, 16, true, false], [8, 16, true, false], [2, 32, false, true], [32, 32, false, true]] as const) {
        it(`f32 rb16 lean / general pipeline: M=${M}, ${swiglu ? `SwiGLU I=${N}` : `N=${N}`}, bias, LoRA on and off, = and += (built for ${hint ? '+=' : '='})`, async () => {
          const rt = await nodeRuntime();
          const K = 64, R = 4, scale = 1.5, NW = swiglu ? 2 * N : N, S = swiglu ? 2 : 1;
          const X = randomArray(M * K, 41), W = randomArray(NW * K, 42), b = randomArray(NW, 43);
          const A = randomArray(S * R * K, 44), B = randomArray(NW * R, 45), Y0 = randomArray(M * N, 46);
          const wb = rt.upload(W, 'W'), bb = rt.upload(b, 'bias'), ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
          const lin = await Linear.create(rt, { label: 'rb16 split', K, N, weight: { format: 'f32', W: wb }, bias: bb, swiglu,
            lora: { A: ab, B: Bb, R, scale, segmentStarts: swiglu ? [N] : undefined }, accumulate: hint });
          await lin.prepare('rb16');
          const half = (h: number, withLora: boolean) => {
            const r0 = h * N, y = linear_forward(X, rows(W, K, r0, r0 + N), b.slice(r0, r0 + N), M, K, N);
            return withLora ? add(y, lora_forward(X, rows(A, K, h * R, (h + 1) * R), rows(B, R, r0, r0 + N), scale, M, K, N, R)) : y;
          };
          const ref = (withLora: boolean) => (swiglu ? swiglu_forward(half(0, withLora), half(1, withLora)) : half(0, withLora));
          const xb = rt.upload(X, 'X'), yb = rt.storage((M + 16) * N * 4, 'Y');
          const sentinel = new Float32Array(16 * N).fill(7.25);
          for (const on of [true, false]) {
            for (const acc of [false, true]) {
              lin.loraEnabled = on;
              const init = new Float32Array((M + 16) * N);
              init.set(acc ? Y0 : new Float32Array(M * N).fill(NaN));
              init.set(sentinel, M * N);
              rt.write(yb, init);
              lin.run(xb, yb, M, { variant: 'rb16', accumulate: acc });
              const y = await rt.readF32(yb, (M + 16) * N);
              const d = maxAbsDiff(y.subarray(0, M * N), acc ? add(Y0, ref(on)) : ref(on));
              console.log(`rb16 M=${M} N=${N}${swiglu ? ' swiglu' : ''} lora ${on ? 'on' : 'off'} ${acc ? '+=' : '='}: maxdiff=${d.toExponential(2)}`);
              expect(d).toBeLessThan(1e-4);
              expect(y.subarray(M * N), 'rows past M untouched').toEqual(sentinel);
            }
          }
          lin.dispose();
          rt.release(wb, bb, ab, Bb, xb, yb);
        });
      }
    }

    it(`${fmt} M=17: no bias or LoRA (lin_rb8's direct stores; N=44 leaves a partial column group)`, async () => {
      const rt = await nodeRuntime();
      const M = 17, K = 64, N = 44;
      const X = randomArray(M * K, 21), W = randomArray(N * K, 22), Y0 = randomArray(M * N, 23);
      const { w, eff, bufs } = await weightOf(rt, fmt, W, N, K);
      const lin = await Linear.create(rt, { label: 'test plain', K, N, weight: w });
      const ref = linear_forward(X, eff, null, M, K, N);
      expect(report(`linear ${fmt} plain M=${M}`, await allVariants(rt, lin, X, M, N, ref))).toBeLessThan(1e-4);
      expect(report(`linear ${fmt} plain Y += M=${M}`, await allVariants(rt, lin, X, M, N, add(Y0, ref), { accumulateOnto: Y0 }))).toBeLessThan(1e-4);
      lin.dispose();
      rt.release(...bufs);
    });

    it(`${fmt}: fused gate|up with SwiGLU epilogue and per-segment LoRA`, async () => {
      const rt = await nodeRuntime();
      const M = 6, K = 64, I = 24, R = 2, scale = 0.5;
      const X = randomArray(M * K, 11), W = randomArray(2 * I * K, 12);
      const A = randomArray(2 * R * K, 13), B = randomArray(2 * I * R, 14);
      const { w, eff, bufs } = await weightOf(rt, fmt, W, 2 * I, K);
      const ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
      const lin = await Linear.create(rt, { label: 'gate_up', K, N: I, weight: w, swiglu: true, lora: { A: ab, B: Bb, R, scale, segmentStarts: [I] } });
      const withLora = (x: Float32Array, m: number) => swiglu_forward(
        add(linear_forward(x, rows(eff, K, 0, I), null, m, K, I), lora_forward(x, rows(A, K, 0, R), rows(B, R, 0, I), scale, m, K, I, R)),
        add(linear_forward(x, rows(eff, K, I, 2 * I), null, m, K, I), lora_forward(x, rows(A, K, R, 2 * R), rows(B, R, I, 2 * I), scale, m, K, I, R)));
      expect(report(`swiglu-fused ${fmt} M=${M}`, await allVariants(rt, lin, X, M, I, withLora(X, M)))).toBeLessThan(1e-4);
      // M = 40: whole 8-row tiles, where gate (segment 0) and up (segment 1) take LoRA in registers.
      const M3 = 40, X3 = randomArray(M3 * K, 16);
      expect(report(`swiglu-fused ${fmt} M=${M3}`, await allVariants(rt, lin, X3, M3, I, withLora(X3, M3)))).toBeLessThan(1e-4);
      const M2 = 19, X2 = randomArray(M2 * K, 15);
      lin.loraEnabled = false;
      const ref2 = swiglu_forward(linear_forward(X2, rows(eff, K, 0, I), null, M2, K, I), linear_forward(X2, rows(eff, K, I, 2 * I), null, M2, K, I));
      expect(report(`swiglu-fused ${fmt} M=${M2} lora off`, await allVariants(rt, lin, X2, M2, I, ref2))).toBeLessThan(1e-4);
      lin.dispose();
      rt.release(ab, Bb, ...bufs);
    });

    it(`${fmt}: SwiGLU without bias or LoRA, then with a bias (whole tiles from registers, the rest through the vector epilogue; I=22 leaves a partial column group)`, async () => {
      const rt = await nodeRuntime();
      const M = 40, K = 64, I = 22;
      const X = randomArray(M * K, 31), W = randomArray(2 * I * K, 32), Y0 = randomArray(M * I, 33);
      const { w, eff, bufs } = await weightOf(rt, fmt, W, 2 * I, K);
      const lin = await Linear.create(rt, { label: 'gate_up plain', K, N: I, weight: w, swiglu: true });
      const ref = swiglu_forward(linear_forward(X, rows(eff, K, 0, I), null, M, K, I), linear_forward(X, rows(eff, K, I, 2 * I), null, M, K, I));
      expect(report(`swiglu-fused ${fmt} plain M=${M}`, await allVariants(rt, lin, X, M, I, ref))).toBeLessThan(1e-4);
      expect(report(`swiglu-fused ${fmt} plain Y += M=${M}`, await allVariants(rt, lin, X, M, I, add(Y0, ref), { accumulateOnto: Y0 }))).toBeLessThan(1e-4);
      lin.dispose();
      // With a bias (gate rows 0..I-1, up rows I..2I-1), added in registers on whole tiles.
      const b = randomArray(2 * I, 34), bb = rt.upload(b, 'bias');
      const linB = await Linear.create(rt, { label: 'gate_up bias', K, N: I, weight: w, swiglu: true, bias: bb });
      const refB = swiglu_forward(linear_forward(X, rows(eff, K, 0, I), b.slice(0, I), M, K, I), linear_forward(X, rows(eff, K, I, 2 * I), b.slice(I), M, K, I));
      expect(report(`swiglu-fused ${fmt} bias M=${M}`, await allVariants(rt, linB, X, M, I, refB))).toBeLessThan(1e-4);
      linB.dispose();
      rt.release(bb, ...bufs);
    });
  }

  // M = 17: whole 8 x 8 tiles take lin_rb8's in-register bias + LoRA; NQ = 12 puts segment starts
  // inside a tile (those tiles take the per-element epilogue).
  for (const [M, NQ] of [[5, 16], [17, 16], [17, 12]]) it(`f32: fused q|k|v with bias and three LoRA segments (M=${M}, segments at ${NQ}, ${NQ + 8})`, async () => {
    const rt = await nodeRuntime();
    const K = 32, NKV = 8, N = NQ + 2 * NKV, R = 3, scale = 1.5;
    const X = randomArray(M * K, 21), W = randomArray(N * K, 22), b = randomArray(N, 23);
    const A = randomArray(3 * R * K, 24), B = randomArray(N * R, 25);
    const wb = rt.upload(W, 'W'), bb = rt.upload(b, 'b'), ab = rt.upload(A, 'A'), Bb = rt.upload(B, 'B');
    const lin = await Linear.create(rt, { label: 'qkv', K, N, weight: { format: 'f32', W: wb }, bias: bb, lora: { A: ab, B: Bb, R, scale, segmentStarts: [NQ, NQ + NKV] } });
    const ref = linear_forward(X, W, b, M, K, N);
    const seg = [[0, NQ], [NQ, NQ + NKV], [NQ + NKV, N]];
    seg.forEach(([r0, r1], s) => {
      const d = lora_forward(X, rows(A, K, s * R, (s + 1) * R), rows(B, R, r0, r1), scale, M, K, r1 - r0, R);
      for (let m = 0; m < M; m++) for (let n = r0; n < r1; n++) ref[m * N + n] += d[m * (r1 - r0) + n - r0];
    });
    expect(report(`qkv-fused f32 M=${M}`, await allVariants(rt, lin, X, M, N, ref))).toBeLessThan(1e-4);
    lin.dispose();
    rt.release(wb, bb, ab, Bb);
  });

  it('rejects wrong shapes with the op and the expected shape', async () => {
    const rt = await nodeRuntime();
    const wb = rt.storage(8 * 16 * 4, 'W');
    const spec: LinearSpec = { label: 'shape', K: 16, N: 8, weight: { format: 'f32', W: wb } };
    await expect(Linear.create(rt, { ...spec, N: 9 })).rejects.toThrow(/linear shape: expected W of \[9, 16\]/);
    await expect(Linear.create(rt, { ...spec, K: 18 })).rejects.toThrow(/multiple of 4/);
    const lin = await Linear.create(rt, spec);
    const xb = rt.storage(2 * 16 * 4, 'X'), yb = rt.storage(2 * 8 * 4, 'Y');
    expect(() => lin.run(xb, yb, 3)).toThrow(ShapeError);
    expect(() => lin.run(xb, yb, 2, { variant: 'gemv' })).toThrow(/not prepared|gemv/);
    lin.dispose();
    rt.release(wb, xb, yb);
  });
});
