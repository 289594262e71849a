// `npm run bench -- attention [--batch B] [--seq T] [--heads NH,KVH,HS] [--variants thread,wg] [--wg N]
//  [--budget-ms 400] [--train-positions 16,4] [--dq-queries 8,4] [--dkv-keys 16,8,4] [--min-rows N] [--rounds 3]`: GPU time
// of the causal attention forward (with LSE; the training form, given the slot table, as
// TrainStep runs it) and its backward at training shapes (default stories260K: B=16, T=128, 8/4
// heads of 8), per variant; the thread variant's backward in its default form (fused at HS = 8,
// 16 x 16 tiles at multiples of 16 from 32), with P/dS kept (HS = 8, 16, 64) and with the scores
// recomputed; at the tile head sizes also the forward keeping its scores and the tile backward reading them
// (as TrainStep runs them). Figures are GFLOPS of useful work: forward 4 HS
// per (query, key) pair, backward 8 HS (the four products the gradients need) and also as
// FlashAttention's benchmarks count it (2.5x the forward's flops: 10 HS per pair, the scores'
// recompute included), so it compares with published figures. `--dq-queries` / `--dkv-keys` list
// the query / key positions per invocation of the kept-P/dS dQ / dK/dV kernels to time (default 8
// each; every pair runs), `--train-positions` those of the training forward (default: its own),
// `--min-rows` the backward's psMinRows (default PS_MIN_ROWS: smaller batches run the recomputing
// kernels).
// `--decode 1,8,32`: instead, the row-table forward of one decode row per sequence at position
// T - 1 (as generation runs it) for those batch sizes, the thread variant with two query heads per
// invocation (attn_thread_hs*_h2, where NH / KVH is even) and with one, and the wg variant.
// Random inputs: only the timing matters here (tests/unit/gpu/attention-backward.test.ts checks values).
import { getNodeGpu } from '../src/gpu/node-gpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { KvCache } from '../src/gpu/kv-cache';
import { Attention, ATTENTION_VARIANTS, REGISTER_HEAD_SIZES, scorePlaneBytes, type AttentionVariant } from '../src/gpu/kernels/attention';
import { AttentionBackward, PS_HEAD_SIZES, defaultDkvKeys, sequenceTable, tiledHeadSize, type AttentionBackwardOptions } from '../src/gpu/kernels/attention-backward';
import { timeRuns } from '../src/gpu/kernels/linear-tune';
import { randomArray } from '../src/gpu/selftest';
import { DispatchProfiler } from '../src/gpu/profiler';
import { PeakProbe, describeLimits, interleaved, measureLimits, ofPeak, ofPeakInterleaved } from '../src/gpu/limits';
import { getNumber, getString, parseArgs } from '../src/util/args';

const args = parseArgs(process.argv.slice(2));
const B = getNumber(args, 'batch', 16), T = getNumber(args, 'seq', 128);
const [NH, KVH, HS] = getString(args, 'heads', '8,4,8').split(',').map(Number);
const variants = getString(args, 'variants', ATTENTION_VARIANTS.join(',')).split(',') as AttentionVariant[];
const budget = getNumber(args, 'budget-ms', 400);
const dqForms = getString(args, 'dq-queries', '8').split(',').map(Number) as (4 | 8)[];
const dkvForms = (args.flags['dkv-keys'] === undefined ? [defaultDkvKeys(HS)] : getString(args, 'dkv-keys', '8').split(',').map(Number)) as (4 | 8 | 16)[];
// `--wg N`: invocations per workgroup of every kernel (default: the launchers' own).
const wgOption = args.flags.wg === undefined ? {} : { wg: getNumber(args, 'wg', 64) };
const minRows = args.flags['min-rows'] === undefined ? {} : { psMinRows: getNumber(args, 'min-rows', 0) };
const trainForms = args.flags['train-positions'] === undefined ? [undefined] : getString(args, 'train-positions', '16').split(',').map(Number) as (4 | 16)[];
const { gpu } = await getNodeGpu();
const rt = await GpuRuntime.create(gpu);
const limits = await measureLimits(rt);
console.log(describeLimits(limits));
const gf = (flops: number, ms: number) => ofPeak(flops / (ms * 1e6), limits.peakGflops, 'GFLOPS');
// `--rounds N` (default 3): each training figure is timed N times, each timing next to a fresh peak
// sample (PeakProbe), and printed as the median time with its share of the run's first peak and
// the range of the per-round shares (the steadier figure on a shared machine).
const rounds = getNumber(args, 'rounds', 3);
const probe = await PeakProbe.create(rt, limits);
const timeFig = (run: () => void, flops: number) => interleaved(probe, () => timeRuns(rt, run, budget), flops, rounds);
const decode = args.flags.decode;
if (decode !== undefined) {
  await benchDecode((decode === true ? '1,8,32' : decode).split(',').map(Number));
  process.exit(0);
}
const M = B * T;
const cache = new KvCache(rt, { numLayers: 1, B, KVH, HS, Tmax: T });
const step = cache.append(Array.from({ length: B }, () => T));
rt.write(cache.k[0], randomArray(cache.layerBytes / 4, 1));
rt.write(cache.v[0], randomArray(cache.layerBytes / 4, 2));
const act = M * NH * HS;
const Q = rt.upload(randomArray(act, 3), 'Q'), dO = rt.upload(randomArray(act, 4), 'dO');
const O = rt.storage(act * 4, 'O'), LSE = rt.storage(M * NH * 4, 'LSE'), dQ = rt.storage(act * 4, 'dQ');
const dK = rt.storage(cache.layerBytes, 'dK'), dV = rt.storage(cache.layerBytes, 'dV');
const rows = rt.upload(step.rows, 'rows'), seqs = rt.upload(sequenceTable(step.rows, B), 'seqs');
const pairs = B * NH * T * (T + 1) / 2;
// The score plane a forward keeps for the backward (where Attention.keepsScores).
const S = rt.storage(scorePlaneBytes(B, NH, T), 'scores');
let scoresKept = false;
console.log(`adapter ${rt.report.architecture}; B=${B} T=${T} NH=${NH} KVH=${KVH} HS=${HS}: ${pairs} (query, key) pairs per head set`);
for (const variant of variants) {
  for (const trainPositions of variant === 'thread' ? trainForms : [undefined]) {
    const fwd = await Attention.create(rt, { NH, KVH, HS, variant, lse: true, ...wgOption, ...(trainPositions ? { trainPositions } : {}) });
    // one untimed run first: SwiftShader compiles a pipeline at its first dispatch
    fwd.run(Q, rows, cache, 0, O, M, LSE, seqs);
    await rt.sync();
    const f = await timeFig(() => fwd.run(Q, rows, cache, 0, O, M, LSE, seqs), 4 * HS * pairs);
    const form = variant === 'thread' && REGISTER_HEAD_SIZES.includes(HS) ? ` (${fwd.opts.trainPositions} positions per invocation)` : '';
    console.log(`${variant.padEnd(7)} forward${form} ${f.ms.toFixed(1)} ms, ${ofPeakInterleaved(4 * HS * pairs, f, limits.peakGflops)}`);
    if (fwd.keepsScores) {
      fwd.run(Q, rows, cache, 0, O, M, LSE, seqs, S);
      await rt.sync();
      const fs = await timeFig(() => fwd.run(Q, rows, cache, 0, O, M, LSE, seqs, S), 4 * HS * pairs);
      console.log(`${variant.padEnd(7)} forward keeping the scores ${fs.ms.toFixed(1)} ms, ${ofPeakInterleaved(4 * HS * pairs, fs, limits.peakGflops)}`);
      scoresKept = true;
    }
  }
  const kept = variant === 'thread' && PS_HEAD_SIZES.includes(HS);
  const keptForms = kept ? dqForms.flatMap((dqQueries) => dkvForms.map((dkvKeys) => ({ fused: false, tiled: false, dqQueries, dkvKeys }))) : [];
  const wide = kept || (variant === 'thread' && tiledHeadSize(HS));
  // `scores`: the backward reads the plane the forward kept.
  const forms: (Partial<AttentionBackwardOptions> & { scores?: boolean })[] = wide ? [...(scoresKept ? [{ fused: true, scores: true }] : []), { fused: true }, ...keptForms, { psBudgetBytes: 0 }] : [{}];
  for (const { scores, ...form } of forms) {
    const bwd = await AttentionBackward.create(rt, { NH, KVH, HS, variant, maxRows: M, ...wgOption, ...minRows, ...form });
    const run = () => bwd.run({ Q, O, dO, LSE, rows, seqs, cache, layer: 0, M, dQ, dK, dV, ...(scores ? { S } : {}) });
    run();
    await rt.sync();
    const b = await timeFig(run, 8 * HS * pairs);
    const name = bwd.form === 'fused' ? 'fused dK/dV/dQ partials' : bwd.form === 'tiled' ? '16 x 16 tiles: P/dS, dQ, dK, dV'
      : bwd.form === 'tiled-scores' ? '16 x 16 tiles from the forward\'s scores: P/dS, dQ, dK, dV'
      : bwd.form === 'kept' ? `P/dS kept, ${bwd.dqQueriesPerInvocation} queries per dQ, ${bwd.dkvKeysPerInvocation} keys per dK/dV invocation` : 'scores recomputed';
    const fa = { ms: b.ms, shares: b.shares.map((x) => (10 / 8) * x) };
    console.log(`${variant.padEnd(7)} backward (${name}) ${b.ms.toFixed(1)} ms, ${ofPeakInterleaved(8 * HS * pairs, b, limits.peakGflops)}; as FlashAttention counts it ${ofPeakInterleaved(10 * HS * pairs, fa, limits.peakGflops)}`);
    if (rt.hasFeature('timestamp-query')) {
      rt.profiler = new DispatchProfiler(rt.device);
      run();
      await rt.sync();
      await rt.profiler.collect();
      console.log(`        backward kernels: ${rt.profiler.report().map((k) => `${k.kernel.split(':')[1]} ${k.ms.toFixed(1)} ms`).join(', ')}`);
      rt.profiler.destroy();
      rt.profiler = null;
    }
    bwd.destroy();
  }
}
process.exit(0);

/** The decode forward at each batch size: rows at position T - 1 over a cache of T keys. */
async function benchDecode(batches: number[]): Promise<void> {
  const forms: { name: string; variant: AttentionVariant; pairHeads: boolean }[] = [];
  for (const variant of variants) {
    if (variant === 'thread') forms.push({ name: 'thread, 2 heads', variant, pairHeads: true }, { name: 'thread, 1 head', variant, pairHeads: false });
    else forms.push({ name: variant, variant, pairHeads: false });
  }
  for (const b of batches) {
    const cache = new KvCache(rt, { numLayers: 1, B: b, KVH, HS, Tmax: T });
    cache.append(Array.from({ length: b }, () => T - 1));
    const step = cache.append(Array.from({ length: b }, () => 1));
    rt.write(cache.k[0], randomArray(cache.layerBytes / 4, 1));
    rt.write(cache.v[0], randomArray(cache.layerBytes / 4, 2));
    const Q = rt.upload(randomArray(b * NH * HS, 3), 'Q'), O = rt.storage(b * NH * HS * 4, 'O');
    const rows = rt.upload(step.rows, 'rows');
    const line: string[] = [];
    for (const f of forms) {
      const attn = await Attention.create(rt, { NH, KVH, HS, variant: f.variant, pairHeads: f.pairHeads });
      if (f.pairHeads && attn.headsPerInvocation(b) !== 2) continue;
      attn.run(Q, rows, cache, 0, O, b);
      await rt.sync();
      const ms = await timeRuns(rt, () => attn.run(Q, rows, cache, 0, O, b), budget);
      line.push(`${f.name} ${ms.toFixed(3)} ms (${gf(4 * HS * b * NH * T, ms)})`);
    }
    console.log(`decode batch ${b}, ${T} keys, NH=${NH} KVH=${KVH} HS=${HS}: ${line.join('; ')}`);
    rt.release(Q, O, rows);
    cache.free();
  }
}
