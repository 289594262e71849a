// `npm run bench -- forward [--model PATH] [--layers N] [--quant nf4|none] [--quant-embeddings]
//  [--prompt-tokens N] [--new-tokens N] [--batches 1,8] [--tune false] [--fuse-sampling false] [--look-ahead false] [--rounds 3] [--profile]
//  [--group G]`: inference figures of the GPU engine:
// prefill tokens/s, decode tokens/s at batch 1 and 8 (or --batches), the batch-8 / batch-1 decode
// step ratio, dispatches per decoded token (and per layer), GPU bytes (weights, KV cache, peak).
// Default: stories260K, then a Qwen2.5-0.5B-shaped model with random weights and fewer layers
// (the full-depth weight bytes are extrapolated per layer). --tune false: the untuned kernel choices
// (defaultVariants: what the studio's engine worker runs), not the remembered or timed ones.
// --fuse-sampling false: logits, then the sampler, where the LM head would fuse sampling (GpuModel.fusedHead).
// --look-ahead false: each decode step waits for the one before's samples (GpuModel.lookAhead).
// --group G: every G sequences of a batch start with the same prompt (GRPO's samples of a task:
// the session computes it once and copies its keys and values, DecodeSession's shared prompts).
import { getNodeGpu } from '../src/gpu/node-gpu';
import { DispatchProfiler } from '../src/gpu/profiler';
import { GpuRuntime } from '../src/gpu/runtime';
import { formatBytes } from '../src/gpu/errors';
import { GpuModel } from '../src/model/gpu/model';
import { DecodeSession } from '../src/model/gpu/session';
import { openNodeModelSource } from '../src/model/io/node-source';
import { loadModelFiles } from '../src/model/io/loader';
import { qwen25_05bConfig, randomWeights } from '../src/model/random-weights';
import type { ModelConfig } from '../src/model/types';
import type { TensorReader } from '../src/model/gpu/upload';
import { getBool, getNumber, getString, parseArgs } from '../src/util/args';
import { median } from '../src/util/median';
import { parseQuant } from '../src/model/node-load';
import { sharedDir } from './shared-dir';

const args = parseArgs(process.argv.slice(2));
const profile = getBool(args, 'profile', false);
const { gpu } = await getNodeGpu();

async function bench(name: string, cfg: ModelConfig, reader: TensorReader, fullLayers: number): Promise<void> {
  const rt = await GpuRuntime.create(gpu);
  const quant = parseQuant(args), quantEmbeddings = getBool(args, 'quant-embeddings', cfg.vocabSize > 50000);
  const t0 = performance.now();
  const model = await GpuModel.load(rt, cfg, reader, { quant, quantEmbeddings, tune: getBool(args, 'tune', true) });
  model.fuseSampling = getBool(args, 'fuse-sampling', true);
  model.lookAhead = getBool(args, 'look-ahead', true);
  const G = Math.max(1, getNumber(args, 'group', 1));
  const loadS = (performance.now() - t0) / 1000;
  const P = getNumber(args, 'prompt-tokens', 64), N = getNumber(args, 'new-tokens', 16);
  const V = cfg.vocabSize;
  const prompt = (b: number) => Array.from({ length: P }, (_, i) => (i * 7 + Math.floor(b / G) * 13 + 3) % V);
  console.log(`\n== ${name}: L=${cfg.numLayers} C=${cfg.hiddenSize} I=${cfg.intermediateSize} V=${V}, quant ${quant}${quantEmbeddings ? ' + embeddings' : ''}, load ${loadS.toFixed(1)} s` +
    (G > 1 ? `; prompts shared by groups of ${G}` : ''));
  const weights = model.weightBytes;
  const perLayer = model.weights.layers.length ? (weights - nonLayerBytes(model)) / cfg.numLayers : 0;
  console.log(`weights on GPU: ${formatBytes(weights)}${fullLayers !== cfg.numLayers ? `; at ${fullLayers} layers: ${formatBytes(weights + perLayer * (fullLayers - cfg.numLayers))} (${formatBytes(perLayer)} per layer)` : ''}`);
  const params = { temperature: 0, topK: 0, topP: 1, seed: 1, step: 0 };
  const batches = getString(args, 'batches', '1,8').split(',').map(Number);
  // `--rounds R` (default 3): each batch size's N decode steps run as R blocks, the batch sizes
  // taking turns block by block, so a change in the machine's load moves every batch size alike;
  // the batch-8 / batch-1 ratio is the median of the rounds' ratios. Each block starts with one
  // untimed step (N + R steps in all).
  const rounds = Math.max(1, Math.min(getNumber(args, 'rounds', 3), N));
  const blocks = Array.from({ length: rounds }, (_, r) => Math.floor((N * (r + 1)) / rounds) - Math.floor((N * r) / rounds));
  const runs = [];
  for (const B of batches) {
    // Untimed warm-up: the same prefill (its rows decide the linears' row bucket, hence which
    // pipelines run; a shorter one left the large bucket's to be built inside the timed prefill)
    // and one decode step, so kernels built on first use are not timed.
    const warm = new DecodeSession(rt, model, B, P + 2);
    const w = await warm.step(Array.from({ length: B }, (_, b) => prompt(b)), params);
    await warm.step(Array.from(w.ids, (id) => [id]), params);
    warm.free();
    const session = new DecodeSession(rt, model, B, P + N + rounds + 1);
    const t = performance.now();
    const r = await session.step(Array.from({ length: B }, (_, b) => prompt(b)), params);
    runs.push({ B, session, ids: r.ids, prefillS: (performance.now() - t) / 1000, blockMs: [] as number[], steps: 0, timed: 0, dispatches: 0 });
  }
  for (const [i, n] of blocks.entries()) {
    for (const run of runs) {
      // The other session's last look-ahead pass finishes outside the window; one untimed step then
      // takes this session's pending look-ahead, so the window holds n steps' GPU work (the last
      // one's look-ahead is recorded inside it and runs after it), as a steady stream of steps does.
      const next = async () => {
        run.ids = (await run.session.step(Array.from(run.ids, (id) => [id]), { ...params, step: ++run.steps })).ids;
      };
      await rt.sync();
      await next();
      const d0 = rt.dispatchCount;
      if (profile && i === 0) rt.profiler = new DispatchProfiler(rt.device);
      const t = performance.now();
      for (let k = 0; k < n; k++) await next();
      run.blockMs.push((performance.now() - t) / n);
      run.timed += n;
      run.dispatches += rt.dispatchCount - d0;
      if (rt.profiler) await printProfile(rt, `batch ${run.B}, ${n} decode steps`);
    }
  }
  for (const { B, session, prefillS, blockMs, timed, dispatches } of runs) {
    const la = session.lookAheadStats;
    const perStep = dispatches / timed;
    const fused = model.fusedHead(B, params), nonLayerDispatches = fused ? 4 : 5;
    const head = `LM head ${model.lmHeadVariant(B)}${fused ? `, sampling fused into it (${fused.group} columns per partial)` : ''}`;
    const ms = median(blockMs);
    console.log(`batch ${B}: prefill ${B * P} tokens ${((B * P) / prefillS).toFixed(1)} tok/s; decode ${(B * 1000 / ms).toFixed(2)} tok/s ` +
      `(${ms.toFixed(0)} ms/step, median of ${rounds} blocks: ${blockMs.map((x) => x.toFixed(0)).join(' / ')}); dispatches/step ${perStep.toFixed(0)} = ${(perStep / B).toFixed(1)} per token, ` +
      `${((perStep - nonLayerDispatches) / cfg.numLayers).toFixed(1)} per layer + ${nonLayerDispatches} outside layers (${head}); ` +
      `KV cache ${formatBytes(session.cache.bytes)}; ` +
      (model.lookAhead ? `look-ahead steps recorded ${la.recorded}, taken ${la.used}` : 'look-ahead off'));
    session.free();
  }
  console.log(`peak allocated ${formatBytes(rt.memory().peak)} (the sessions of every batch size at once)`);
  const r1 = runs.find((r) => r.B === 1), r8 = runs.find((r) => r.B === 8);
  if (r1 && r8) {
    const ratios = r8.blockMs.map((x, i) => x / r1.blockMs[i]);
    console.log(`decode step batch 8 / batch 1: ${median(ratios).toFixed(2)} (goal <= 1.5; per round ${ratios.map((x) => x.toFixed(2)).join(' / ')})`);
  }
  model.dispose();
  rt.destroy();
}

async function printProfile(rt: GpuRuntime, what: string): Promise<void> {
  const p = rt.profiler!;
  await p.collect();
  const rows = p.report(), total = rows.reduce((n, r) => n + r.ms, 0);
  console.log(`GPU time per kernel, ${what}: ${total.toFixed(0)} ms in all`);
  for (const r of rows.slice(0, 12)) console.log(`  ${r.ms.toFixed(1).padStart(9)} ms ${(100 * r.ms / total).toFixed(1).padStart(5)}%  ${String(r.calls).padStart(5)} calls  ${r.kernel}`);
  p.destroy();
  rt.profiler = null;
}

// Dispatches per decode step outside the layers: embedding, first norm, LM head, sampling (greedy
// here: chunks, then their merge; fused into the LM head, only the merge).

function nonLayerBytes(model: GpuModel): number {
  const w = model.weights;
  const bufs = new Set<GPUBuffer>([w.finalNorm]);
  if (w.embed.format === 'f32') bufs.add(w.embed.wte); else { bufs.add(w.embed.q.codes); bufs.add(w.embed.q.absmax); }
  if (w.lmHead.format === 'f32') bufs.add(w.lmHead.W); else { bufs.add(w.lmHead.q.codes); bufs.add(w.lmHead.q.absmax); }
  return [...bufs].reduce((n, b) => n + b.size, 0);
}

const modelPath = getString(args, 'model');
if (modelPath) {
  const loaded = await loadModelFiles(await openNodeModelSource(modelPath));
  await bench(modelPath, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, loaded.config.numLayers);
} else {
  const loaded = await loadModelFiles(await openNodeModelSource(`${sharedDir()}/models/stories260K/stories260K.bin`));
  await bench('stories260K', loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, loaded.config.numLayers);
  const layers = getNumber(args, 'layers', 2);
  const cfg = qwen25_05bConfig(layers);
  await bench(`Qwen2.5-0.5B-shaped, random weights, ${layers} of 24 layers`, cfg, randomWeights(cfg), 24);
}
process.exit(0);
