// GpuAdamW (shaders/adamw.wgsl) against clip_grad_norm + adamw_step over 3 steps: the first two
// clip, the third does not; two weight-decay groups; tensors of sizes around the chunk edges;
// moment buffers taken dirty from the pool; gradients zeroed after each step. Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { GpuAdamW } from '../../../src/gpu/kernels/adamw';
import { adamw_state, adamw_step, clip_grad_norm, ADAMW_DEFAULTS, type ParamGrad } from '../../../src/reference/adamw';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('GpuAdamW', () => {
  // The norm reduction as a CPU adapter runs it (4 x 64 per partial) and as a GPU does (256 x 8).
  for (const shape of [{ wg: 4, per: 64 }, { wg: 256, per: 8 }]) it(`matches clip_grad_norm + adamw_step over 3 steps (two decay groups; norm partials of ${shape.wg} x ${shape.per})`, async () => {
    const rt = await nodeRuntime();
    // Dirty the pool so fresh moment buffers would hold garbage without the zero fill.
    const junk = [5000, 2049, 37].map((n) => rt.upload(new Float32Array(n).fill(7), 'junk'));
    rt.release(...junk);
    const sizes = { 'w.a': 5000, 'w.b': 2049, 'norm.w': 37 };
    const decayed = ['w.a', 'w.b'];
    const names = Object.keys(sizes) as (keyof typeof sizes)[];
    const host = names.map((name, i) => ({ name, param: randomArray(sizes[name], 60 + i), grad: new Float32Array(sizes[name]) }));
    const bufs = host.map((h) => ({ param: rt.upload(h.param, `${h.name}`), grad: rt.storage(h.param.length * 4, `${h.name} grad`) }));
    const maxNorm = 12;
    const opt = await GpuAdamW.create(rt, host.map((h, i) => ({ name: h.name, param: bufs[i].param, grad: bufs[i].grad, size: h.param.length,
      weightDecay: decayed.includes(h.name) ? undefined : 0 })), { weightDecay: 0.01, maxGradNorm: maxNorm }, shape);
    const sDecay = adamw_state(), sNoDecay = adamw_state();
    const lrs = [1e-2, 5e-3, 2e-3];
    const scales = [0.5, 0.35, 0.1]; // norms ~ 0.577 * sqrt(7086) * scale: ~24, ~17, ~5
    for (let step = 0; step < 3; step++) {
      host.forEach((h, i) => {
        h.grad = randomArray(h.param.length, 100 * step + i).map((v) => v * scales[step]);
        rt.write(bufs[i].grad, h.grad);
      });
      opt.step(lrs[step]);
      const norm = clip_grad_norm(host.map((h) => h.grad), maxNorm);
      const group = (d: boolean): ParamGrad[] => host.filter((h) => decayed.includes(h.name) === d);
      adamw_step(group(true), sDecay, { ...ADAMW_DEFAULTS, lr: lrs[step], weightDecay: 0.01 });
      adamw_step(group(false), sNoDecay, { ...ADAMW_DEFAULTS, lr: lrs[step], weightDecay: 0 });
      const gpuNorm = await opt.readGradNorm();
      const coef = (await rt.readF32(opt.stats, 2))[1];
      let dp = 0, dm = 0, dv = 0, gz = 0;
      for (const [i, h] of host.entries()) {
        dp = Math.max(dp, maxAbsDiff(await rt.readF32(bufs[i].param, h.param.length), h.param));
        const { m, v } = opt.moments(h.name);
        const st = decayed.includes(h.name) ? sDecay : sNoDecay;
        dm = Math.max(dm, maxAbsDiff(await rt.readF32(m, h.param.length), st.m.get(h.name) ?? []));
        dv = Math.max(dv, maxAbsDiff(await rt.readF32(v, h.param.length), st.v.get(h.name) ?? []));
        gz = Math.max(gz, ...(await rt.readF32(bufs[i].grad, h.param.length)).map(Math.abs));
      }
      const relNorm = Math.abs(gpuNorm - norm) / norm;
      console.log(`adamw step ${step + 1}: grad_norm gpu=${gpuNorm.toFixed(5)} ref=${norm.toFixed(5)} (rel ${relNorm.toExponential(2)}) clip coef=${coef.toFixed(4)}; param maxdiff=${dp.toExponential(2)} m maxdiff=${dm.toExponential(2)} v maxdiff=${dv.toExponential(2)}; grads after=${gz}`);
      expect(relNorm).toBeLessThan(1e-5);
      expect(coef).toBeCloseTo(Math.min(1, maxNorm / (norm + 1e-6)), 5);
      expect(dp).toBeLessThan(1e-6);
      expect(dm).toBeLessThan(1e-6);
      expect(dv).toBeLessThan(1e-7);
      expect(gz).toBe(0);
      if (step < 2) expect(coef).toBeLessThan(1);
      else expect(coef).toBe(1);
    }
    opt.dispose();
    rt.release(...bufs.flatMap((b) => [b.param, b.grad]));
  });

  it('rejects short buffers and duplicate names, naming the op', async () => {
    const rt = await nodeRuntime();
    const a = rt.storage(64, 'a'), b = rt.storage(16, 'b');
    await expect(GpuAdamW.create(rt, [{ name: 'p', param: a, grad: b, size: 16 }])).rejects.toThrow(ShapeError);
    await expect(GpuAdamW.create(rt, [{ name: 'p', param: a, grad: b, size: 16 }])).rejects.toThrow(/adamw: expected p grad of \[16\] f32/);
    await expect(GpuAdamW.create(rt, [{ name: 'p', param: a, grad: a, size: 16 }, { name: 'p', param: a, grad: a, size: 16 }])).rejects.toThrow(/adamw: expected distinct parameter names/);
    rt.release(a, b);
  });
});
