// PPO's value head: the CPU twin (src/reference/value_head.ts) through the clipped value loss
// against PyTorch autograd (dh, dw, db from scripts/make_ppo_goldens.py), then the WGSL kernel
// (shaders/value_head.wgsl) against the twin: v, dh (= and +=), dw and db (+=). Prints maxdiff.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { ShapeError } from '../../../src/gpu/errors';
import { ValueHead } from '../../../src/gpu/kernels/value-head';
import { randomArray } from '../../../src/gpu/selftest';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { value_loss_backward, value_loss_forward } from '../../../src/reference/ppo';
import { value_head_backward, value_head_forward } from '../../../src/reference/value_head';
import { GOLDENS_DIR } from '../../fixtures/goldens';

interface HeadGolden {
  C: number; h: number[]; w: number[]; b: number; old_values: number[]; returns: number[]; values: number[];
  loss: number; dh: number[]; dw: number[]; db: number;
}
const fixture = JSON.parse(readFileSync(`${GOLDENS_DIR}/ppo_goldens.json`, 'utf8')) as { magic: string; version: number; batch: { mask: number[] }; config: { value_clip: number }; value_head: HeadGolden };

describe('value head', () => {
  it('CPU twin + clipped value loss vs PyTorch: values, loss, dh, dw, db', () => {
    expect([fixture.magic, fixture.version]).toEqual(['rlstudio-ppo-goldens', 1]);
    const g = fixture.value_head, mask = fixture.batch.mask, clip = fixture.config.value_clip;
    const N = mask.length, C = g.C;
    const v = value_head_forward(g.h, g.w, g.b, N, C);
    const loss = value_loss_forward(v, g.old_values, g.returns, mask, clip).loss;
    const grads = value_head_backward(value_loss_backward(v, g.old_values, g.returns, mask, clip), g.h, g.w, N, C);
    const d = { v: maxAbsDiff(v, g.values), loss: Math.abs(loss - g.loss), dh: maxAbsDiff(grads.dh, g.dh), dw: maxAbsDiff(grads.dw, g.dw), db: Math.abs(grads.db - g.db) };
    console.log(`value head vs PyTorch (f32 twin): v maxdiff=${d.v.toExponential(2)} loss diff=${d.loss.toExponential(2)} dh maxdiff=${d.dh.toExponential(2)} dw maxdiff=${d.dw.toExponential(2)} db diff=${d.db.toExponential(2)}`);
    for (const x of Object.values(d)) expect(x).toBeLessThan(1e-5);
  });

  for (const [N, C] of [[1, 64], [37, 896], [300, 12]]) {
    it(`GPU vs CPU twin, N=${N} C=${C}: v, dh (= and +=), dw and db (+=)`, async () => {
      const rt = await nodeRuntime();
      const head = await ValueHead.create(rt, C);
      const h = randomArray(N * C, N + C), w = randomArray(C, 3), b = new Float32Array([0.25]);
      const dv = randomArray(N, 4), dh0 = randomArray(N * C, 5), dw0 = randomArray(C, 6), db0 = new Float32Array([0.5]);
      const [hb, wb, bb, dvb, dhb, dwb, dbb] = [h, w, b, dv, dh0, dw0, db0].map((a, i) => rt.upload(a, `value head t${i}`));
      const vb = rt.storage(N * 4, 'value head v');
      head.forward(hb, wb, bb, vb, N);
      head.backward(dvb, hb, wb, dhb, dwb, dbb, N, { accumulate: true });
      const ref = value_head_backward(dv, h, w, N, C);
      const dV = maxAbsDiff(await rt.readF32(vb, N), value_head_forward(h, w, b[0], N, C));
      const dAcc = maxAbsDiff(await rt.readF32(dhb, N * C), ref.dh.map((x, i) => x + dh0[i]));
      const dW = maxAbsDiff(await rt.readF32(dwb, C), ref.dw.map((x, i) => x + dw0[i]));
      const dB = Math.abs((await rt.readF32(dbb, 1))[0] - (ref.db + db0[0]));
      head.backward(dvb, hb, wb, dhb, dwb, dbb, N);
      const dSet = maxAbsDiff(await rt.readF32(dhb, N * C), ref.dh);
      console.log(`value head GPU N=${N} C=${C}: v maxdiff=${dV.toExponential(2)} dh+= maxdiff=${dAcc.toExponential(2)} dh= maxdiff=${dSet.toExponential(2)} dw+= maxdiff=${dW.toExponential(2)} db+= diff=${dB.toExponential(2)}`);
      for (const x of [dV, dAcc, dSet, dW, dB]) expect(x).toBeLessThan(1e-4);
      rt.release(hb, wb, bb, dvb, dhb, dwb, dbb, vb);
    });
  }

  it('rejects wrong shapes with the op and the expected shape', async () => {
    const rt = await nodeRuntime();
    const head = await ValueHead.create(rt, 8);
    const ok = rt.storage(4 * 8 * 4, 'ok'), small = rt.storage(16, 'small');
    expect(() => head.forward(small, ok, ok, ok, 4)).toThrow(ShapeError);
    expect(() => head.forward(small, ok, ok, ok, 4)).toThrow(/value_head: expected h of \[4, 8\]/);
    expect(() => head.backward(ok, ok, ok, ok, small, ok, 4)).toThrow(/value_head_backward: expected dw of \[8\]/);
    await expect(ValueHead.create(rt, 6)).rejects.toThrow(/value_head: expected C/);
    rt.release(ok, small);
  });
});
