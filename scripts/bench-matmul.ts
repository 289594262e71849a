// `npx tsx scripts/bench-matmul.ts [--model qwen|stories|agent] [--m 1,8,64] [--budget-ms 400]
// [--variants rb,rb8,...] [--repeat 1]`: GFLOPS of the Linear kernels (f32 and NF4 weights, every variant) at
// Qwen2.5-0.5B projection shapes (C=896, q 896, kv 128, I=4864), stories260K's (C=64, I=172,
// V=512) or the default agent's (agent-tiny: C=64, I=192, V=1024; training M = 16 x 80 = 1280)
// for a few row counts M, printed as a table with the tuned choice of each (row bucket,
// shape class) and its speed relative to the best variant measured (goal: >= 90%). Quick (~1 min
// on SwiftShader): each cell is the best of two timings (timeBest, as the tuner times); `--repeat
// N`: the median of N such figures, the variants taken in turn N times (cells of 0.05-0.2 ms,
// most of it the dispatch, move by tens of percent from one timing to the next).
// With M = 1 and 8 both measured, a last table gives the tuned M=8 / M=1 time per format and shape
// (goal <= 1.5) next to the ratio of the two roofline floors on this adapter (floor at M rows =
// max(bytes/bandwidth, flops/peak)): an adapter with few flops per byte (a CPU) cannot reach 1.5
// with f32 weights. Its last column is the M = 1 run's share of the bandwidth and the share of
// peak GFLOPS that 50 % of the bandwidth would take (NF4 moves 0.56 bytes per multiply-add, so
// on a CPU adapter that is most of the peak, before any unpacking).
import { getNodeGpu } from '../src/gpu/node-gpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { Linear, LINEAR_VARIANTS, DECODE_MAX_M, type LinearVariant, type LinearWeight } from '../src/gpu/kernels/linear';
import { Nf4Quantizer } from '../src/gpu/kernels/nf4';
import { timeBest, tuneLinear } from '../src/gpu/kernels/linear-tune';
import { mBucket, shapeClass } from '../src/gpu/kernels/linear';
import { randomArray } from '../src/gpu/selftest';
import { getString, getNumber, parseArgs } from '../src/util/args';
import { describeLimits, measureLimits } from '../src/gpu/limits';

const args = parseArgs(process.argv.slice(2));
const Ms = getString(args, 'm', '1,8,64').split(',').map(Number);
const budget = getNumber(args, 'budget-ms', 400);
const repeat = Math.max(1, getNumber(args, 'repeat', 1));
const variants = getString(args, 'variants', LINEAR_VARIANTS.join(',')).split(',') as LinearVariant[];
const model = getString(args, 'model', 'qwen');
const agentShapes = [
  { name: 'qkv 128x64', N: 128, K: 64 },
  { name: 'o 64x64', N: 64, K: 64 },
  { name: 'gate|up+silu 2x192x64', N: 192, K: 64, swiglu: true },
  { name: 'down 64x192', N: 64, K: 192 },
  { name: 'lm_head 1024x64', N: 1024, K: 64 },
];
const shapes: { name: string; N: number; K: number; swiglu?: boolean }[] = model === 'agent' ? agentShapes : model === 'stories' ? [
  { name: 'qkv 128x64', N: 128, K: 64 },
  { name: 'gate|up 344x64', N: 344, K: 64 },
  { name: 'down 64x172', N: 64, K: 172 },
  { name: 'lm_head 512x64', N: 512, K: 64 },
] : [
  { name: 'q/o 896x896', N: 896, K: 896 },
  { name: 'k/v 128x896', N: 128, K: 896 },
  { name: 'gate|up+silu 2x4864x896', N: 4864, K: 896, swiglu: true },
  { name: 'down 896x4864', N: 896, K: 4864 },
];

const { gpu } = await getNodeGpu();
const rt = await GpuRuntime.create(gpu);
console.log(`adapter: ${rt.report.vendor} ${rt.report.architecture}; budget ${budget} ms per cell; GFLOPS (2*M*N_w*K / time)`);
const limits = await measureLimits(rt);
console.log(`${describeLimits(limits)}\ncells: GFLOPS / % of peak GFLOPS / % of bandwidth (weight bytes read once per run)`);
const quant = await Nf4Quantizer.create(rt);
const header = ['format', 'shape', 'M', ...variants, 'tuned (class)', 'tuned/best'];
const rows: string[][] = [];
const ratios: string[][] = [];
const maxM = Math.max(...Ms);
for (const shape of shapes) {
  const NW = shape.swiglu ? 2 * shape.N : shape.N;
  const Wb = rt.upload(randomArray(NW * shape.K, 7), 'bench W');
  // NF4 needs K a multiple of 64 (one absmax per 64 inputs): f32 only otherwise.
  const q = shape.K % 64 === 0 ? (await quant.quantize(Wb, NW, shape.K, 'bench W')).weight : null;
  const X = rt.upload(randomArray(maxM * shape.K, 8), 'bench X');
  const Y = rt.storage(maxM * shape.N * 4, 'bench Y');
  const weights: LinearWeight[] = [{ format: 'f32', W: Wb }, ...(q ? [{ format: 'nf4' as const, q }] : [])];
  for (const w of weights) {
    const lin = await Linear.create(rt, { label: 'bench', K: shape.K, N: shape.N, weight: w, swiglu: shape.swiglu });
    await tuneLinear(rt, lin); // remembered choice, or measured now (once per class)
    const tunedMs = new Map<number, number>();
    const bytes = NW * shape.K * (w.format === 'f32' ? 4 : 0.5 + 4 / 64);
    for (const M of Ms) {
      const row = [w.format, shape.name, String(M)];
      const speed = new Map<string, number>();
      const runs = variants.filter((v) => !(v === 'gemv' && M > DECODE_MAX_M));
      const times = new Map<string, number[]>(runs.map((v) => [v, []]));
      for (let r = 0; r < repeat; r++) {
        for (const v of runs) {
          await lin.prepare(v);
          times.get(v)!.push(await timeBest(rt, () => lin.run(X, Y, M, { variant: v }), budget)); // as the tuner times
        }
      }
      for (const v of variants) {
        if (!times.has(v)) { row.push('-'); continue; }
        const ms = times.get(v)!.sort((a, b) => a - b)[Math.floor(repeat / 2)];
        if (v === lin.variantFor(M)) tunedMs.set(M, ms);
        const gflops = (2 * M * NW * shape.K) / (ms * 1e6);
        speed.set(v, gflops);
        const gbs = bytes / (ms * 1e6);
        row.push(`${gflops.toFixed(2)}/${((100 * gflops) / limits.peakGflops).toFixed(0)}%/${((100 * gbs) / limits.bandwidthGBs).toFixed(0)}%`);
      }
      const tuned = lin.variantFor(M);
      const best = Math.max(...speed.values());
      row.push(`${tuned} (${mBucket(M)} ${shapeClass(shape.K, NW, shape.swiglu)})`, speed.has(tuned) ? `${((100 * speed.get(tuned)!) / best).toFixed(0)}%` : '-');
      rows.push(row);
      console.log(row.join('\t'));
    }
    const t1 = tunedMs.get(1), t8 = tunedMs.get(8);
    if (t1 && t8) {
      const floor = (M: number) => Math.max(bytes / (limits.bandwidthGBs * 1e6), (2 * M * NW * shape.K) / (limits.peakGflops * 1e6));
      // The M = 1 goal (>= 50 % of bandwidth) as a share of peak GFLOPS: over 100 % it cannot be
      // reached here at all, and the closer to it the less room the unpacking has.
      const needs = (2 * NW * shape.K) / (bytes / (0.5 * limits.bandwidthGBs)) / limits.peakGflops;
      ratios.push([w.format, shape.name, `${lin.variantFor(1)}/${lin.variantFor(8)}`, t1.toFixed(2), t8.toFixed(2), (t8 / t1).toFixed(2), (floor(8) / floor(1)).toFixed(2),
        `${(100 * (bytes / (t1 * 1e6)) / limits.bandwidthGBs).toFixed(0)}% (needs ${(100 * needs).toFixed(0)}% of peak)`]);
    }
    lin.dispose();
  }
  rt.release(Wb, X, Y, ...(q ? [q.codes, q.absmax] : []));
}
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const fmt = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(`\n${fmt(header)}\n${rows.map(fmt).join('\n')}`);
if (ratios.length) {
  const rh = ['format', 'shape', 'tuned M=1/M=8', 'ms M=1', 'ms M=8', 'M=8 / M=1', 'floor ratio', 'M=1 bandwidth (goal 50 %)'];
  const rw = rh.map((h, i) => Math.max(h.length, ...ratios.map((r) => r[i].length)));
  const f = (r: string[]) => r.map((c, i) => c.padEnd(rw[i])).join('  ');
  console.log(`\n${f(rh)}\n${ratios.map(f).join('\n')}`);
}
process.exit(0);
