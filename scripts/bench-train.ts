// `npm run bench -- train [--only stories|qwen|agent] [--layers N] [--batch B] [--seq T] [--steps N]
//  [--recompute on|off|both] [--rank R] [--warmup] [--loss-rows F] [--group G] [--share true|false] [--profile] [--profile-rows 20] [--limits false]`: training throughput of the GPU engine: tokens/s of one
// SFT update (forward + backward + AdamW), split into forward+backward and optimizer time, its share
// of the peak measured first and of the peak sampled again just before and after the timed updates,
// `--loss-rows F`: the last F of each sequence's rows in the loss mask (a prompt masked; the LM
// head runs on the masked rows only: TrainBatch.lossRows, as sftStep and GRPO pass it);
// `--group G`: each run of G sequences has the same tokens before its loss rows (a GRPO group's
// prompt), which the step then runs once (`--share false`: every sequence's rows; TrainStep.sharePrefixes),
// dispatches per update and peak GPU bytes. Default: stories260K in full mode, then a
// Qwen2.5-0.5B-shaped model (random weights, 2 layers) in NF4 + LoRA r=16 on all seven projections;
// `--only agent`: the shipped default agent (agent-tiny, heads of 16) in full mode.
import { getNodeGpu } from '../src/gpu/node-gpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { formatBytes } from '../src/gpu/errors';
import { GpuModel } from '../src/model/gpu/model';
import { loadModelFiles } from '../src/model/io/loader';
import { openNodeModelSource } from '../src/model/io/node-source';
import { qwen25_05bConfig, randomWeights } from '../src/model/random-weights';
import type { ModelConfig } from '../src/model/types';
import type { TensorReader } from '../src/model/gpu/upload';
import { Trainer, type TrainerConfig } from '../src/train/trainer';
import { rememberedVariants } from '../src/gpu/kernels/linear-tune';
import { DispatchProfiler } from '../src/gpu/profiler';
import { PeakProbe, describeLimits, measureLimits, ofPeak, type AdapterLimits } from '../src/gpu/limits';
import { masked_ce } from '../src/reference/loss';
import { getBool, getNumber, getString, parseArgs } from '../src/util/args';
import { sharedDir } from './shared-dir';
import { fileURLToPath } from 'node:url';

const args = parseArgs(process.argv.slice(2));
const { gpu } = await getNodeGpu();
const B = getNumber(args, 'batch', 2), T = getNumber(args, 'seq', 64);
const lossFraction = getNumber(args, 'loss-rows', 1);
if (!(lossFraction > 0 && lossFraction <= 1)) throw new Error(`--loss-rows ${lossFraction}: give the fraction of each sequence's rows in the loss, in (0, 1]`);
const recomputeArg = getString(args, 'recompute', 'both');
const profile = getBool(args, 'profile', false);
const group = getNumber(args, 'group', 1);
if (!(Number.isInteger(group) && group >= 1)) throw new Error(`--group ${group}: give the sequences per shared prompt, an integer >= 1`);
const share = getBool(args, 'share', true);
let limits: AdapterLimits | null = null;
// The peak sampled again just before and after each timed case (on the limits' own device): on a
// shared machine it moves by tens of per cent within minutes, so the case's share of those two
// samples is the steadier figure.
let probe: PeakProbe | null = null;
if (getBool(args, 'limits', true)) {
  const lrt = await GpuRuntime.create(gpu);
  limits = await measureLimits(lrt);
  console.log(describeLimits(limits));
  probe = await PeakProbe.create(lrt, limits);
}

/**
 * Useful flops of one update over `rows` tokens of which `headRows` reach the loss (the LM head
 * runs on those): the forward's matmuls and attention times 3 in full mode (forward, dX, dW) or
 * 2 with LoRA (forward, dX; the adapter's own flops are left out).
 */
function trainFlops(cfg: ModelConfig, T: number, full: boolean, rows: number, headRows: number): number {
  const C = cfg.hiddenSize, I = cfg.intermediateSize, HS = cfg.headDim, NQ = cfg.numHeads * HS, F = NQ + 2 * cfg.numKvHeads * HS;
  const linear = 2 * (C * F + NQ * C + 2 * C * I + I * C);
  const attention = 4 * NQ * ((T + 1) / 2);
  return (full ? 3 : 2) * (cfg.numLayers * (linear + attention) * rows + 2 * C * cfg.vocabSize * headRows);
}
const modes = recomputeArg === 'both' ? [false, true] : [recomputeArg === 'on'];

interface Case {
  name: string; cfg: ModelConfig; reader: TensorReader; quant: 'nf4' | 'none'; quantEmbeddings: boolean; params: TrainerConfig['params']; steps: number;
  /** Compile the pipelines on a short batch first (else the first update includes compiling). */
  warmup: boolean;
}
const t00 = performance.now();

async function bench(c: Case): Promise<void> {
  const rt = await GpuRuntime.create(gpu);
  const t0 = performance.now();
  const model = await GpuModel.load(rt, c.cfg, c.reader, { quant: c.quant, quantEmbeddings: c.quantEmbeddings, maxRows: B * T });
  console.log(`\n== ${c.name}: L=${c.cfg.numLayers} C=${c.cfg.hiddenSize} I=${c.cfg.intermediateSize} V=${c.cfg.vocabSize}, quant ${c.quant}${c.quantEmbeddings ? ' + embeddings' : ''}, ` +
    `${c.params.mode}${'config' in c.params ? ` r=${c.params.config.rank}` : ''}; weights ${formatBytes(model.weightBytes)}, load ${((performance.now() - t0) / 1000).toFixed(1)} s; batch ${B} x ${T} tokens`);
  const V = c.cfg.vocabSize;
  const batch = Array.from({ length: B }, (_, b) => {
    const first = Math.round((1 - lossFraction) * (T - 1));
    // Tokens up to the first loss row's are the group's (its prompt), the others the sequence's own.
    const ids = Array.from({ length: T }, (_, i) => (i * 7919 + (i <= first ? Math.floor(b / group) * 7 : b) * 104729 + 3) % V);
    return { ids, mask: ids.slice(1).map((_, t) => (t >= first ? 1 : 0)) };
  });
  const lossRows = batch.reduce((n, e) => n + e.mask.filter((m) => m === 1).length, 0);
  for (const recompute of modes) {
    const trainer = await Trainer.create(rt, model, { params: c.params, optimizer: { schedule: { kind: 'constant', lr: 1e-4 } }, recompute });
    trainer.step.sharePrefixes = share;
    // pipelines are built at their first dispatch: one untimed step at the timed shapes builds them all
    const tc = performance.now();
    if (c.warmup) await trainer.sftStep(batch);
    const compileS = (performance.now() - tc) / 1000;
    rt.pool.resetPeak();
    let fb = 0, opt = 0, loss = 0, gradNorm = 0;
    const d0 = rt.dispatchCount, shared0 = trainer.step.rowsShared, passes0 = trainer.step.passes;
    const peakBefore = probe ? await probe.sample() : 0;
    if (profile) rt.profiler = new DispatchProfiler(rt.device);
    for (let s = 0; s < c.steps; s++) {
      let t = performance.now();
      const { dlogp } = masked_ce(batch.map((e) => new Float32Array(e.ids.length - 1)), batch.map((e) => e.mask));
      const r = await trainer.accumulate({ seqs: batch.map((e) => e.ids), dlogp, lossRows: batch.map((e) => e.mask) });
      fb += performance.now() - t;
      loss = masked_ce(r.logprobs, batch.map((e) => e.mask)).loss;
      t = performance.now();
      gradNorm = (await trainer.optimizer.update()).gradNorm;
      opt += performance.now() - t;
    }
    const per = (fb + opt) / c.steps / 1000;
    const peakAfter = probe ? await probe.sample() : 0;
    if (rt.profiler) {
      await rt.profiler.collect();
      const rows = rt.profiler.report();
      const total = rows.reduce((n, r) => n + r.ms, 0);
      console.log(`GPU time per kernel over ${c.steps} update(s), ${total.toFixed(0)} ms in all:`);
      for (const r of rows.slice(0, getNumber(args, 'profile-rows', 20))) console.log(`  ${r.ms.toFixed(1).padStart(9)} ms ${(100 * r.ms / total).toFixed(1).padStart(5)}%  ${String(r.calls).padStart(5)} calls  ${r.kernel}`);
      rt.profiler.destroy();
      rt.profiler = null;
    }
    const gflops = trainFlops(c.cfg, T, c.params.mode === 'full', B * T, lossRows) / (per * 1e9);
    console.log(`recompute ${recompute ? 'on ' : 'off'}: ${((B * T) / per).toFixed(1)} tokens/s, ${limits ? `${ofPeak(gflops, limits.peakGflops, 'GFLOPS')}, ${((200 * gflops) / (peakBefore + peakAfter)).toFixed(0)}% of the peak sampled before and after it (${peakBefore.toFixed(2)}, ${peakAfter.toFixed(2)} GFLOPS)` : `${gflops.toFixed(2)} GFLOPS`} of useful work (${per.toFixed(2)} s per update: forward+backward ${(fb / c.steps / 1000).toFixed(2)} s, ` +
      `optimizer ${(opt / c.steps / 1000).toFixed(3)} s); LM head on ${lossRows} of ${B * T} rows; ${(trainer.step.rowsShared - shared0) / c.steps} rows shared in ${(trainer.step.passes - passes0) / c.steps} pass(es); ${((rt.dispatchCount - d0) / c.steps).toFixed(0)} dispatches per update; peak GPU ${formatBytes(rt.memory().peak)} ` +
      `(activations ${formatBytes(trainer.step.activationBytes)}, in use ${formatBytes(rt.memory().inUse)}); loss ${loss.toFixed(3)}, grad_norm ${gradNorm.toFixed(3)}; ` +
      `${c.warmup ? `untimed first step (pipelines built) ${compileS.toFixed(1)} s` : 'pipeline building included'}; linear variants for M >= 256 (gate|up): ${rememberedVariants(rt, c.quant === 'nf4' ? 'nf4' : 'f32', c.cfg.hiddenSize, 2 * c.cfg.intermediateSize, true).large}`);
    await trainer.dispose();
  }
  model.dispose();
  rt.destroy();
}

const only = getString(args, 'only', '');
if (!only || only === 'stories') {
  const loaded = await loadModelFiles(await openNodeModelSource(`${sharedDir()}/models/stories260K/stories260K.bin`));
  await bench({
    name: 'stories260K', cfg: loaded.config, reader: { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) },
    quant: 'none', quantEmbeddings: false, params: { mode: 'full' }, steps: getNumber(args, 'steps', 3), warmup: true,
  });
}
if (only === 'agent') {
  // The shipped default agent (public/models/agent-tiny: C=64, I=192, 4 layers, 4/2 heads of 16,
  // V=1024), trained from scratch by the engine: full mode, f32.
  const loaded = await loadModelFiles(await openNodeModelSource(fileURLToPath(new URL('../public/models/agent-tiny', import.meta.url))));
  await bench({
    name: 'agent-tiny', cfg: loaded.config, reader: { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) },
    quant: 'none', quantEmbeddings: false, params: { mode: 'full' }, steps: getNumber(args, 'steps', 3), warmup: true,
  });
}
if (!only || only === 'qwen') {
  const layers = getNumber(args, 'layers', 2);
  const cfg = qwen25_05bConfig(layers);
  await bench({
    name: `Qwen2.5-0.5B-shaped, random weights, ${layers} of 24 layers`, cfg, reader: randomWeights(cfg), quant: 'nf4', quantEmbeddings: true,
    params: { mode: 'lora', config: { rank: getNumber(args, 'rank', 16), alpha: 32, useRslora: false, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] }, seed: 1 },
    steps: getNumber(args, 'steps', 1), warmup: getBool(args, 'warmup', false),
  });
}
console.log(`\nbench-train: ${((performance.now() - t00) / 1000).toFixed(0)} s in all`);
process.exit(0);
