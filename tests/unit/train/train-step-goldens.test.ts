// The GPU training step against PyTorch (tests/fixtures/goldens/grads.json) on the tiny Qwen2:
// LoRA gradients of the masked CE (f32 base, and NF4 base quantized on the GPU with down_proj fed
// as PyTorch's dequantized NF4, since our loader keeps in-features 160 in f32), the adapter after
// 3 AdamW steps with clipping through Trainer.sftStep, and full-mode gradients of every weight
// (against the goldens' norms/sums/values and model_backward). Prints maxdiff per figure.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { parseModelConfig } from '../../../src/model/hf-config';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { openWeights } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { GpuModel } from '../../../src/model/gpu/model';
import { hfNames, type LoraWeights, type ModelConfig, type TensorMap } from '../../../src/model/types';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { model_backward } from '../../../src/reference/model_backward';
import { model_logprobs } from '../../../src/reference/model';
import { masked_ce } from '../../../src/reference/loss';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { GpuLoraParams } from '../../../src/train/lora-params';
import { GpuFullParams } from '../../../src/train/full-params';
import { TrainStep } from '../../../src/train/train-step';
import { Trainer } from '../../../src/train/trainer';
import { readGradGoldens } from '../../fixtures/goldens';

const DIR = join(__dirname, '../../fixtures/goldens');
const REL_TOL = 1e-4; // max |gpu - torch| / max |torch| per tensor

const golden = readGradGoldens();
const maxAbs = (a: ArrayLike<number>) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i])); return m; };
const rel = (ours: ArrayLike<number>, ref: ArrayLike<number>) => maxAbsDiff(ours, ref) / maxAbs(ref);

describe('GPU training step vs PyTorch training goldens (tiny Qwen2, masked CE)', () => {
  let rt: GpuRuntime;
  let cfg: ModelConfig;
  let f32: TensorMap;
  let lora: LoraWeights;
  const { ids, masks } = golden.batch;
  const dlogp = () => masked_ce(ids.map((s) => new Float32Array(s.length - 1)), masks).dlogp;

  /** The fixture on the GPU; 'nf4': linear layers quantized on the GPU, down_proj (kept f32) as torch's NF4 round trip. */
  const load = (kind: 'f32' | 'nf4') => GpuModel.load(rt, cfg, {
    has: (n) => f32.has(n),
    read: async (n) => {
      const t = f32.get(n);
      if (!t) throw new Error(`missing ${n}`);
      return kind === 'nf4' && n.endsWith('mlp.down_proj.weight') ? { shape: t.shape, data: nf4_roundtrip(t.data, 64) } : t;
    },
  }, { quant: kind === 'nf4' ? 'nf4' : 'none', quantEmbeddings: false, tune: false });

  beforeAll(async () => {
    rt = await nodeRuntime();
    const src = new NodeDirSource(join(DIR, 'tiny-qwen2'));
    cfg = parseModelConfig(await readJson(src, 'config.json'));
    f32 = await (await openWeights(src)).readAll();
    lora = await readPeftAdapter(new NodeDirSource(join(DIR, 'tiny-qwen2-lora')), cfg);
  });

  for (const kind of ['f32', 'nf4'] as const) {
    it(`${kind} base: loss and the LoRA gradients of all 14 pairs`, async () => {
      const model = await load(kind);
      const report = model.weights.report.map((r) => `${r.tensor}:${r.format}`).join(' ');
      if (kind === 'nf4') expect(report).toContain('layers.0.qkv_proj:nf4');
      const params = GpuLoraParams.fromHost(rt, cfg, lora);
      const step = await TrainStep.create(rt, model, { mode: 'lora', params });
      const r = await step.run({ seqs: ids, dlogp: dlogp() });
      const loss = masked_ce(r.logprobs, masks).loss;
      const grads = await params.gradsToHost();
      const g = golden.lora[kind];
      let worst = 0, worstAbs = 0;
      for (const [key, t] of Object.entries(g.grads)) {
        const ours = grads.get(key);
        if (!ours) throw new Error(`no gradient for ${key}`);
        worst = Math.max(worst, rel(ours.dA, t.dA), rel(ours.dB, t.dB));
        worstAbs = Math.max(worstAbs, maxAbsDiff(ours.dA, t.dA), maxAbsDiff(ours.dB, t.dB));
      }
      console.log(`gpu ${kind} LoRA: loss ${loss.toFixed(6)} vs torch ${g.loss.toFixed(6)} (diff ${Math.abs(loss - g.loss).toExponential(2)}); ` +
        `${grads.size} pairs maxdiff=${worstAbs.toExponential(2)}, max rel=${worst.toExponential(2)}`);
      expect(grads.size).toBe(cfg.numLayers * 7);
      expect(Math.abs(loss - g.loss)).toBeLessThan(1e-4 * g.loss);
      expect(worst).toBeLessThan(REL_TOL);
      step.dispose();
      params.dispose();
      model.dispose();
    });

    it(`${kind} base: Trainer.sftStep x3 (AdamW, clipping at 12) gives torch's adapter`, async () => {
      const model = await load(kind);
      const tr = golden.train, g = golden.lora[kind];
      const trainer = await Trainer.create(rt, model, {
        params: { mode: 'lora', adapter: lora },
        optimizer: { schedule: { kind: 'constant', lr: tr.lr }, beta1: tr.betas[0], beta2: tr.betas[1], eps: tr.eps, weightDecay: tr.weight_decay, maxGradNorm: tr.max_grad_norm },
      });
      const examples = ids.map((s, b) => ({ ids: s, mask: masks[b] }));
      for (let s = 0; s < tr.steps; s++) {
        const st = await trainer.sftStep(examples, 2); // micro-batches of 2 + 1 sequences
        const want = g.steps[s];
        console.log(`gpu ${kind} step ${st.step}: loss ${st.loss.toFixed(5)} (torch ${want.loss.toFixed(5)}), grad_norm ${st.gradNorm.toFixed(5)} ` +
          `(torch ${want.grad_norm.toFixed(5)})${st.gradNorm > tr.max_grad_norm ? ' clipped' : ''}, lr ${st.lr}`);
        expect(Math.abs(st.loss - want.loss)).toBeLessThan(1e-4 * want.loss);
        expect(Math.abs(st.gradNorm - want.grad_norm)).toBeLessThan(1e-4 * want.grad_norm);
        expect(st.nTokens).toBe(golden.batch.n_tokens);
      }
      const after = await trainer.exportLora();
      let worstAbs = 0, worstRel = 0;
      for (const [key, t] of Object.entries(g.after)) {
        const p = after.pairs.get(key);
        if (!p) throw new Error(`missing ${key}`);
        worstAbs = Math.max(worstAbs, maxAbsDiff(p.A, t.A), maxAbsDiff(p.B, t.B));
        worstRel = Math.max(worstRel, rel(p.A, t.A), rel(p.B, t.B));
      }
      console.log(`gpu ${kind} adapter after ${tr.steps} steps: maxdiff=${worstAbs.toExponential(2)}, max rel=${worstRel.toExponential(2)}`);
      expect(worstRel).toBeLessThan(REL_TOL);
      // The model's inference forward reads the trained adapter (useLora), and off is the base.
      const seq = ids[2];
      const inf = await model.logprobs([seq]);
      const ref = model_logprobs(cfg, f32, seq, after);
      const d = kind === 'f32' ? maxAbsDiff(inf.logprobs[0], ref.logprobs) : 0;
      if (kind === 'f32') console.log(`model.logprobs with the trained adapter vs CPU reference: maxdiff=${d.toExponential(2)}`);
      expect(d).toBeLessThan(1e-4);
      await trainer.dispose();
      model.dispose();
    });
  }

  it('full mode: loss, every weight gradient (tied embedding) vs torch and model_backward', async () => {
    const model = await load('f32');
    const params = GpuFullParams.create(rt, model);
    const step = await TrainStep.create(rt, model, { mode: 'full', params });
    const r = await step.run({ seqs: ids, dlogp: dlogp() });
    const loss = masked_ce(r.logprobs, masks).loss;
    const grads = await params.gradsToHost();
    const f = golden.full;
    expect([...grads.keys()].sort()).toEqual(Object.keys(f.norms).sort());
    let worstNorm = 0, worstSum = 0, worstVal = 0;
    for (const [name, t] of grads) {
      let ss = 0, sum = 0;
      for (const v of t.data) { ss += v * v; sum += v; }
      worstNorm = Math.max(worstNorm, Math.abs(Math.sqrt(ss) - f.norms[name]) / f.norms[name]);
      worstSum = Math.max(worstSum, Math.abs(sum - f.sums[name]) / f.norms[name]);
    }
    for (const [name, vals] of Object.entries(f.grads)) {
      const t = grads.get(name);
      if (!t) throw new Error(`no gradient for ${name}`);
      worstVal = Math.max(worstVal, rel(t.data, vals));
    }
    // every value of every tensor against the CPU reference on the same batch
    const d = masked_ce(ids.map((s) => new Float32Array(s.length - 1)), masks).dlogp;
    let ref: TensorMap | undefined;
    ids.forEach((s, b) => { ref = model_backward(cfg, f32, s, d[b], { mode: 'full', into: ref }); });
    let worstRef = 0, worstRefAbs = 0, worstName = '';
    for (const [name, t] of ref ?? new Map()) {
      const ours = grads.get(name);
      if (!ours) throw new Error(`no gradient for ${name}`);
      const x = rel(ours.data, t.data);
      if (x > worstRef) { worstRef = x; worstName = name; }
      worstRefAbs = Math.max(worstRefAbs, maxAbsDiff(ours.data, t.data));
    }
    console.log(`gpu full mode: loss ${loss.toFixed(6)} vs torch ${f.loss.toFixed(6)}; ${grads.size} tensors vs torch: norms max rel=${worstNorm.toExponential(2)}, ` +
      `sums max diff/norm=${worstSum.toExponential(2)}, sampled values max rel=${worstVal.toExponential(2)}; vs model_backward every value: ` +
      `maxdiff=${worstRefAbs.toExponential(2)}, max rel=${worstRef.toExponential(2)} (${worstName}); embedding grad norm ${f.norms[hfNames.embed].toFixed(4)}`);
    expect(Math.abs(loss - f.loss)).toBeLessThan(1e-4 * f.loss);
    expect(worstNorm).toBeLessThan(REL_TOL);
    expect(worstSum).toBeLessThan(REL_TOL);
    expect(worstVal).toBeLessThan(REL_TOL);
    expect(worstRef).toBeLessThan(REL_TOL);
    step.dispose();
    params.dispose();
    model.dispose();
  });
});
