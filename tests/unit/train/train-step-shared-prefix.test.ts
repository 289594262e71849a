// TrainStep with shared prefixes (src/train/prefix-share.ts) against the same batch with sharing
// off, on the shipped default agent (agent-tiny: heads of 16, 4 layers) and stories260K (heads of
// 8, the fused attention backward): GRPO-shaped groups of
// episodes on the same prompt (and a system prompt common to all), loss rows on the completions
// only, roots that share a shorter prefix of their own. The log-probs (returned, and
// left on the GPU by logprobsTo) and every parameter gradient (full mode; LoRA with recompute on
// and off) match within rounding while the trunk skips the shared rows. Prints maxdiff.
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { GpuModel } from '../../../src/model/gpu/model';
import { PROJECTIONS, type LoraWeights, type ModelConfig, type TensorMap } from '../../../src/model/types';
import { lora_init } from '../../../src/reference/lora';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { GpuFullParams } from '../../../src/train/full-params';
import { GpuLoraParams } from '../../../src/train/lora-params';
import { TrainStep, packedRows, type TrainBatch, type Trainable } from '../../../src/train/train-step';

const STORIES = `${STORIES_DIR}/stories260K.bin`;

/** Deterministic tokens in [3, 512) (both models' vocabularies). */
const toks = (n: number, seed: number) => Array.from({ length: n }, (_, i) => 3 + ((seed * 131 + i * 37 + i * i * 7) % 509));

/**
 * Three prompts (40, 25, 33 tokens, the first 6 a common system prompt) with 4, 3 and 1 episodes;
 * each episode: a call, a tool output (not in the loss), an answer. A later prompt's first episode
 * shares the system prompt with the first's root and is the root of its own group's prompt.
 */
function batch(): { seqs: number[][]; lossRows: Float32Array[]; shared: number } {
  const seqs: number[][] = [], lossRows: Float32Array[] = [];
  const system = toks(6, 99);
  let shared = 0;
  [[40, 4], [25, 3], [33, 1]].forEach(([P, G], g) => {
    const prompt = [...system, ...toks(P - system.length, 100 + g)];
    for (let e = 0; e < G; e++) {
      // The first two episodes of the first prompt start with the same call token.
      const call = e < 2 && g === 0 ? [7, ...toks(6 + e, 200 + e)] : toks(5 + 2 * e, 300 + 10 * g + e);
      const tool = toks(8, 400 + e), answer = toks(4 + e, 500 + g + e);
      const s = [...prompt, ...call, ...tool, ...answer];
      const m = new Float32Array(s.length - 1);
      // Row t scores token t + 1: the call and the answer are the model's own tokens.
      for (let t = P - 1; t < P - 1 + call.length; t++) m[t] = 1;
      for (let t = P - 1 + call.length + tool.length; t < s.length - 1; t++) m[t] = 1;
      seqs.push(s);
      lossRows.push(m);
      shared += e > 0 ? P - 1 : g > 0 ? system.length : 0;
    }
  });
  return { seqs, lossRows, shared };
}

describe('TrainStep: shared prefixes run once', () => {
  let rt: GpuRuntime;
  let cfg: ModelConfig;
  let weights: TensorMap;
  const models = new Map<string, { cfg: ModelConfig; weights: TensorMap }>();
  const { seqs, lossRows, shared } = batch();
  const dlogp = seqs.map((s, b) => Float32Array.from(randomArray(s.length - 1, 60 + b), (x, t) => 0.3 * x * lossRows[b][t]));

  beforeAll(async () => {
    rt = await nodeRuntime();
    for (const [name, src] of [['agent-tiny', new NodeDirSource('public/models/agent-tiny')], ['stories260K', await openNodeModelSource(STORIES)]] as const) {
      const m = await loadModelFiles(src);
      models.set(name, { cfg: m.config, weights: new Map(await Promise.all([...m.weights.tensors.keys()].map(async (n) => [n, await m.weights.read(n)] as const))) });
    }
    ({ cfg, weights } = models.get('agent-tiny')!);
  });

  /** A PEFT-initialised adapter on every projection with B made nonzero (dA is then nonzero too). */
  function adapter(): LoraWeights {
    const w = lora_init(cfg, { rank: 4, alpha: 8, useRslora: false, targets: [...PROJECTIONS] }, 5);
    let i = 0;
    for (const pair of w.pairs.values()) pair.B.set(Float32Array.from(randomArray(pair.B.length, 80 + i++), (x) => 0.05 * x));
    return w;
  }

  async function run(mode: 'full' | 'lora', sharePrefixes: boolean, recompute: boolean, maxRows?: number) {
    const model = await GpuModel.load(rt, cfg, { has: (n) => weights.has(n), read: async (n) => weights.get(n)! }, { quant: 'none', quantEmbeddings: false, tune: false });
    const full = mode === 'full' ? GpuFullParams.create(rt, model) : null;
    const lora = mode === 'lora' ? GpuLoraParams.fromHost(rt, cfg, adapter()) : null;
    const trainable: Trainable = full ? { mode: 'full', params: full } : { mode: 'lora', params: lora! };
    const step = await TrainStep.create(rt, model, trainable, { sharePrefixes, recompute, maxRows });
    const b: TrainBatch = { seqs, dlogp, lossRows };
    const res = await step.run(b);
    const lpBuf = rt.storage(packedRows(seqs) * 4, 'log-probs on the GPU');
    await step.run({ seqs, dlogp: null, lossRows, logprobsTo: lpBuf });
    const onGpu = await rt.readF32(lpBuf, packedRows(seqs));
    const grads = full ? [...(await full.gradsToHost()).values()].flatMap((t) => [...t.data])
      : [...(await lora!.gradsToHost()).values()].flatMap((g) => [...g.dA, ...g.dB]);
    const { rowsShared, passes } = step;
    rt.release(lpBuf);
    step.dispose(); full?.dispose(); lora?.dispose(); model.dispose();
    return { res, onGpu, grads, rowsShared, passes };
  }

  it('stories260K (heads of 8, the fused backward), full mode: log-probs and gradients as without sharing', async () => {
    ({ cfg, weights } = models.get('stories260K')!);
    try {
      const off = await run('full', false, false), on = await run('full', true, false);
      expect(on.rowsShared).toBe(2 * shared);
      const dLp = Math.max(...seqs.map((_, b) => maxAbsDiff(on.res.logprobs[b], off.res.logprobs[b])));
      const mag = off.grads.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      const dG = maxAbsDiff(Float32Array.from(on.grads), Float32Array.from(off.grads));
      console.log(`stories260K full: log-probs maxdiff=${dLp.toExponential(2)}, logprobsTo ${maxAbsDiff(on.onGpu, off.onGpu).toExponential(2)}; grads maxdiff=${dG.toExponential(2)} (max |grad| ${mag.toExponential(2)})`);
      expect(dLp).toBeLessThan(1e-5);
      expect(maxAbsDiff(on.onGpu, off.onGpu)).toBeLessThan(1e-5);
      expect(mag).toBeGreaterThan(1e-4);
      expect(dG).toBeLessThan(1e-4 * mag);
    } finally {
      ({ cfg, weights } = models.get('agent-tiny')!);
    }
  }, 120_000);

  for (const [mode, recompute] of [['full', false], ['lora', false], ['lora', true]] as const) {
    it(`${mode} mode${recompute ? ', recompute on' : ''}: log-probs and gradients as without sharing`, async () => {
      const off = await run(mode, false, recompute), on = await run(mode, true, recompute);
      expect(off.rowsShared).toBe(0);
      expect(on.rowsShared, 'two passes (training, log-probs), the shared prompt rows each').toBe(2 * shared);
      const dLp = Math.max(...seqs.map((_, b) => maxAbsDiff(on.res.logprobs[b], off.res.logprobs[b])));
      const dEnt = Math.max(...seqs.map((_, b) => maxAbsDiff(on.res.entropy[b], off.res.entropy[b])));
      const dGpu = maxAbsDiff(on.onGpu, off.onGpu);
      const mag = off.grads.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      const dG = maxAbsDiff(Float32Array.from(on.grads), Float32Array.from(off.grads));
      console.log(`${mode}${recompute ? ' recompute' : ''}: ${shared} of ${packedRows(seqs)} rows shared; log-probs maxdiff=${dLp.toExponential(2)}, entropy ${dEnt.toExponential(2)}, logprobsTo ${dGpu.toExponential(2)}; grads maxdiff=${dG.toExponential(2)} (max |grad| ${mag.toExponential(2)})`);
      // The loss rows' log-probs are nonzero and the others 0 in both.
      expect(on.res.logprobs[1].some((v) => v !== 0)).toBe(true);
      expect(dLp).toBeLessThan(1e-5);
      expect(dEnt).toBeLessThan(1e-5);
      expect(dGpu).toBeLessThan(1e-5);
      expect(mag).toBeGreaterThan(1e-4);
      expect(dG).toBeLessThan(1e-4 * mag);
    }, 120_000);
  }

  it('passes of at most 160 computed rows hold more sequences than passes of 160 token rows, with the same results', async () => {
    const off = await run('full', false, false, 160), on = await run('full', true, false, 160);
    console.log(`maxRows 160: ${on.passes} passes with sharing (${on.rowsShared} rows shared), ${off.passes} without`);
    expect(on.passes).toBeLessThan(off.passes);
    expect(on.rowsShared).toBeGreaterThan(0);
    const dLp = Math.max(...seqs.map((_, b) => maxAbsDiff(on.res.logprobs[b], off.res.logprobs[b])));
    const mag = off.grads.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    const dG = maxAbsDiff(Float32Array.from(on.grads), Float32Array.from(off.grads));
    console.log(`maxRows 160: log-probs maxdiff=${dLp.toExponential(2)}, logprobsTo ${maxAbsDiff(on.onGpu, off.onGpu).toExponential(2)}; grads maxdiff=${dG.toExponential(2)} (max |grad| ${mag.toExponential(2)})`);
    expect(dLp).toBeLessThan(1e-5);
    expect(maxAbsDiff(on.onGpu, off.onGpu)).toBeLessThan(1e-5);
    expect(dG).toBeLessThan(1e-4 * mag);
  }, 120_000);
});
