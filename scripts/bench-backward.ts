// `npx tsx scripts/bench-backward.ts [--model qwen|agent] [--m 64,512] [--variants rb16] [--budget-ms 300] [--rounds 3]`:
// GFLOPS of the linear backward kernels (shaders/linear_bwd.wgsl) at Qwen2.5-0.5B shapes (C=896,
// I=4864, R=16): dX through f32 and NF4 weights, full-mode dW, and the LoRA gradients (dY B, dB,
// dA; X A^T given), per row count M; `--model agent`: the default agent's full-mode training
// shapes (C=64, I=192, V=1024; f32 dX and dW, try --m 1280) with % of the adapter's measured peak.
// Each cell is the best of two timings (timeBest, as bench matmul and the tuner time: a single
// timing of a few-millisecond cell moved by 20-40 % on a shared machine), taken `--rounds N` times
// (default 3; `--repeat` is the old name), each next to a fresh sample of the peak (PeakProbe): the
// median time, its share of the first peak, and the median and range of the per-round shares. Quick (well under 2 min on SwiftShader with the rb variant).
import { getNodeGpu } from '../src/gpu/node-gpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { Nf4Quantizer } from '../src/gpu/kernels/nf4';
import { LinearBackward, defaultBackwardVariant, type BackwardVariant, type LinearGrads } from '../src/gpu/kernels/linear-backward';
import type { LinearSpec, LinearWeight } from '../src/gpu/kernels/linear';
import { timeBest } from '../src/gpu/kernels/linear-tune';
import { randomArray } from '../src/gpu/selftest';
import { getNumber, getString, parseArgs } from '../src/util/args';
import { PeakProbe, interleaved, measureLimits, shareRange } from '../src/gpu/limits';

const args = parseArgs(process.argv.slice(2));
const Ms = getString(args, 'm', '64,512').split(',').map(Number);
const budget = getNumber(args, 'budget-ms', 300);
const rounds = Math.max(1, getNumber(args, 'rounds', getNumber(args, 'repeat', 3)));
const R = 16;
const agent = getString(args, 'model', 'qwen') === 'agent';
const shapes: { name: string; NW: number; K: number; S: number }[] = agent ? [
  { name: 'qkv 128x64', NW: 128, K: 64, S: 1 },
  { name: 'o 64x64', NW: 64, K: 64, S: 1 },
  { name: 'gate|up 384x64', NW: 384, K: 64, S: 1 },
  { name: 'down 64x192', NW: 64, K: 192, S: 1 },
  { name: 'lm_head 1024x64', NW: 1024, K: 64, S: 1 },
] : [
  { name: 'qkv 1152x896', NW: 1152, K: 896, S: 3 },
  { name: 'o 896x896', NW: 896, K: 896, S: 1 },
  { name: 'gate|up 9728x896', NW: 9728, K: 896, S: 2 },
  { name: 'down 896x4864', NW: 896, K: 4864, S: 1 },
];

const { gpu } = await getNodeGpu();
const rt = await GpuRuntime.create(gpu);
// Default: the variant training runs on this adapter (rb16 on a CPU adapter).
const variants = getString(args, 'variants', defaultBackwardVariant(rt)).split(',') as BackwardVariant[];
console.log(`adapter: ${rt.report.vendor} ${rt.report.architecture}; GFLOPS = flops / time; dX, dW: 2 M NW K; LoRA grads: 2 M R (2 NW + S K)`);
const limits = await measureLimits(rt);
const { peakGflops } = limits;
console.log(`measured peak ${peakGflops.toFixed(2)} GFLOPS`);
const probe = await PeakProbe.create(rt, limits);
const quant = await Nf4Quantizer.create(rt);
const maxM = Math.max(...Ms);
const rows: string[][] = [];
for (const sh of shapes) {
  const { NW, K, S } = sh;
  const W = rt.upload(randomArray(NW * K, 1), 'bench W');
  const { weight: q } = await quant.quantize(W, NW, K, 'bench W');
  const A = rt.upload(randomArray(S * R * K, 2), 'bench A'), B = rt.upload(randomArray(NW * R, 3), 'bench B');
  const X = rt.upload(randomArray(maxM * K, 4), 'bench X'), dY = rt.upload(randomArray(maxM * NW, 5), 'bench dY');
  const dX = rt.storage(maxM * K * 4, 'bench dX'), dW = rt.storage(NW * K * 4, 'bench dW');
  const dA = rt.storage(S * R * K * 4, 'bench dA'), dB = rt.storage(NW * R * 4, 'bench dB'), xa = rt.storage(maxM * S * R * 4, 'bench xa');
  const starts = S === 3 ? [896, 1024] : S === 2 ? [NW / 2] : undefined;
  const lora = { A, B, R, scale: 2, segmentStarts: starts };
  for (const variant of variants) {
    for (const w of (agent ? [{ format: 'f32', W }] : [{ format: 'f32', W }, { format: 'nf4', q }]) as LinearWeight[]) {
      const spec: LinearSpec = { label: 'bench', K, N: NW, weight: w, lora };
      const bwd = await LinearBackward.create(rt, spec, variant);
      for (const M of Ms) {
        const cell = (what: string, flops: number, g: LinearGrads, loraOn: boolean) => async () => {
          bwd.loraEnabled = loraOn;
          const t = await interleaved(probe, () => timeBest(rt, () => bwd.run(dY, X, M, g), budget), flops, rounds); // best of two, as bench matmul
          const gflops = flops / (t.ms * 1e6);
          const r = shareRange(t);
          const row = [sh.name, w.format, variant, String(M), what, t.ms.toFixed(2), gflops.toFixed(2), `${((100 * gflops) / peakGflops).toFixed(0)}%`,
            `${r.median}% (${r.lo}%-${r.hi}%)`];
          rows.push(row);
          console.log(row.join('\t'));
        };
        await cell('dX', 2 * M * NW * K, { dX }, false)();
        if (w.format === 'f32') await cell('dW', 2 * M * NW * K, { full: { dW } }, false)();
        if (w.format === 'f32' && !agent) await cell('LoRA dA+dB', 2 * M * R * (2 * NW + S * K), { lora: { dA, dB }, xa }, true)();
      }
      bwd.dispose();
    }
  }
  rt.release(W, q.codes, q.absmax, A, B, X, dY, dX, dW, dA, dB, xa);
}
const header = ['shape', 'W', 'variant', 'M', 'kernel', 'ms', 'GFLOPS', 'of peak', 'of the peak next to it (range)'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const fmt = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(`\n${fmt(header)}\n${rows.map(fmt).join('\n')}`);
process.exit(0);
