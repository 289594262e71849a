// One PPO update on stories260K through the GPU path (TrainStep with the ValueHeadHook, the GPU
// GRPO loss with per-row GAE advantages, the value loss's dv into the value head and the trunk)
// against the CPU references on the same rollouts: values (value_head_forward on the read-back
// final-norm hidden state), dlogp and the policy loss (grpo_loss with rowAdvantages), the value
// loss (value_loss_forward) and dw / db (value_head_backward); then the trunk's share of the value
// gradient by a central finite difference of the value loss along it; then the GPU-resident
// training path (ppoGpuUpstream: value loss on the GPU, no readback) against the host path on the
// same batch (dw, db, LoRA grads, loss sums, readbacks). Prints every maxdiff.
// Run: npx vitest run tests/unit/rl/ppo-step.test.ts
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValueHead } from '../../../src/gpu/kernels/value-head';
import type { EpisodeReward } from '../../../src/envs/reward';
import { addSums, grpo_loss, zeroSums, type GrpoSums } from '../../../src/reference/grpo_loss';
import { gae_forward, placeTurnRewards, value_loss_backward, value_loss_forward } from '../../../src/reference/ppo';
import { value_head_backward, value_head_forward } from '../../../src/reference/value_head';
import { randomArray } from '../../../src/gpu/selftest';
import { resolveConfig } from '../../../src/rl/config-validate';
import { lossConfig } from '../../../src/rl/grpo-trainer';
import { episodeRows, type SeqRows } from '../../../src/rl/grpo-micro';
import { openRun, type OpenRun } from '../../../src/run/rl-node-run';
import { ppoGpuDlogp, ppoGpuUpstream, ValueHeadHook, ValueStepSums, type PpoRows, type ValueSums } from '../../../src/rl/ppo-micro';
import { ValueLoss, VALUE_METRICS_BYTES } from '../../../src/gpu/kernels/value-loss';
import { GRPO_METRICS_BYTES } from '../../../src/gpu/kernels/grpo';
import { GrpoStepSums } from '../../../src/rl/grpo-micro';
import { ppoTargets, turnRewards } from '../../../src/rl/ppo-targets';
import type { HiddenHook, HiddenRows } from '../../../src/train/train-step';
import type { GpuLoraParams } from '../../../src/train/lora-params';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const MODEL = join(STORIES_DIR, 'stories260K.bin');
let run: OpenRun;

beforeAll(async () => {
  if (!existsSync(MODEL)) return;
  const cfg = resolveConfig({
    trainer: 'ppo', model: { path: MODEL, quant: 'none', template: 'plain' }, data: { env: 'story' },
    grpo: { epsilon_low: 0.2, epsilon_high: 0.2 }, lora: { rank: 2, alpha: 4 }, train: { steps: 1, recompute: false }, log: { print_examples: 0 },
  }, 'ppo-step.test');
  run = await openRun(cfg, { log: () => undefined, tune: false });
}, 120_000);
afterAll(async () => { await run?.close(); });

/** Wraps a ValueHeadHook and keeps every pass's hidden state hf [T, C] per sequence. */
class Capture implements HiddenHook {
  readonly hf = new Map<number, Float32Array>();
  constructor(readonly inner: ValueHeadHook, private readonly C: number) {}
  async forward(hf: GPUBuffer, rows: HiddenRows): Promise<void> {
    if (rows.shared) throw new Error('Capture: the batches here share no rows (no lossRows)');
    const all = await run.ctx.rt.readF32(hf, rows.M * this.C);
    let o = 0;
    rows.lens.forEach((n, s) => { this.hf.set(rows.first + s, all.slice(o * this.C, (o + n) * this.C)); o += n; });
    await this.inner.forward(hf, rows);
  }
  backward(hf: GPUBuffer, dN: GPUBuffer, rows: HiddenRows): void { this.inner.backward(hf, dN, rows); }
}

const maxdiff = (a: ArrayLike<number>, b: ArrayLike<number>) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
const cat = (xs: ArrayLike<number>[]) => xs.flatMap((x) => Array.from(x));
const reward = (turns: number[], final: number): EpisodeReward => ({
  turns: turns.map((t) => ({ parts: {}, total: t })), final: { parts: {}, total: final }, return: turns.reduce((a, x) => a + x, final), parts: {},
});

describe('one PPO update: GPU path vs the CPU references', () => {
  it.skipIf(!existsSync(MODEL))('values, dlogp, policy and value losses, dw/db, and the trunk gradient', async () => {
    const { rt, trainer, loss, cfg } = run.ctx;
    const head = trainer.valueHead!;
    const C = head.C;
    const kernel = await ValueHead.create(rt, C);
    // Three episodes: token masks with a prompt (0), two assistant turns around tool output (0) in the first.
    const lens = [14, 11, 9];
    const tokenMasks = [
      [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1],
      [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      [0, 0, 0, 0, 1, 1, 1, 1, 1],
    ];
    const seqs = lens.map((n, s) => Array.from(randomArray(n, 40 + s), (u) => 1 + Math.floor(Math.abs(u) * 500) % 500));
    const rewards = [reward([0.5, 0.25], 0.75), reward([], 1), reward([], -0.5)];   // per-turn, end only, end only
    const base = tokenMasks.map((m) => episodeRows(m, null, 0));
    const masks = base.map((r) => r.mask);

    // The rollout pass: old values under the current head, checked against value_head_forward on hf.
    const probe = new Capture(new ValueHeadHook(rt, kernel, head), C);
    const old = await trainer.accumulate({ seqs, dlogp: null, hidden: probe });
    probe.inner.dispose();
    const w = await rt.readF32(head.w, C), b = (await rt.readF32(head.b, 1))[0];
    let dVal = 0;
    seqs.forEach((s, i) => { dVal = Math.max(dVal, maxdiff(probe.inner.values.get(i)!, value_head_forward(probe.hf.get(i)!, w, b, s.length, C).subarray(0, s.length - 1))); });
    const values = seqs.map((_, s) => probe.inner.values.get(s)!.map((v, t) => (masks[s][t] ? v : 0)));

    // Targets: ppoTargets vs placeTurnRewards + gae_forward directly (whitening off here).
    const p = { gamma: 0.9, lambda: 0.8 };
    const tg = ppoTargets(masks, values, rewards, { ...p, whiten: false });
    const offsets = [0]; masks.forEach((m, s) => offsets.push(offsets[s] + m.length));
    const mask = cat(masks);
    const placed = placeTurnRewards(mask, offsets, masks.map((m, s) => turnRewards(m, rewards[s])));
    const gae = gae_forward(placed, cat(values), mask, offsets, p.gamma, p.lambda);
    expect(Array.from(placed.filter((x) => x !== 0))).toEqual([0.5, 1, 1, -0.5]);   // 0.25 + 0.75 on the last turn
    const dTarget = Math.max(maxdiff(cat(tg.advantages), gae.advantages), maxdiff(cat(tg.returns), gae.returns));

    // The update's micro-batch: old log-probs and old values off by a little so both clips act.
    const u = (s: number, k: number) => randomArray(lens[s] - 1, 90 + 7 * s + k);
    const rows: PpoRows[] = base.map((r, s) => ({
      ...r, old: old.logprobs[s].map((v, t) => (masks[s][t] ? v + 0.3 * u(s, 0)[t] : 0)),
      rowAdvantages: tg.advantages[s], returns: tg.returns[s], oldValues: values[s].map((v, t) => (masks[s][t] ? v + 0.3 * u(s, 1)[t] : 0)),
    }));
    const lcfg = lossConfig(cfg);
    const tokens = mask.reduce((a, x) => a + x, 0);
    const norm = { tokens, sequences: rows.length };
    const vcfg = { vfCoef: 0.5, clip: 0.2 };
    let sums: GrpoSums = zeroSums(), vs: ValueSums = { loss: 0, clipped: 0, rows: 0 };
    const hook = new Capture(new ValueHeadHook(rt, kernel, head), C);
    const inner = ppoGpuDlogp(rt, loss, hook.inner, rows, lcfg, norm, vcfg, (s) => { sums = addSums(sums, s); }, (s) => { vs = s; });
    const gotD: Float32Array[] = [], logp: Float32Array[] = [];
    rt.submit();
    trainer.optimizer.zeroGrads();
    await trainer.accumulate({ seqs, hidden: hook, dlogp: async (lp, ent, first) => { const d = await inner(lp, ent, first); gotD.push(...d.dlogp); logp.push(...lp); return d; } });
    hook.inner.dispose();
    const dw = await rt.readF32(head.dw, C), db = (await rt.readF32(head.db, 1))[0];

    // CPU: the policy loss and dlogp with per-row advantages; the value loss and dw / db.
    const cpu = grpo_loss({ logp: cat(logp), oldLogp: cat(rows.map((r) => r.old!)), mask, offsets, advantages: [0, 0, 0], rowAdvantages: cat(tg.advantages) }, lcfg, norm);
    const v = seqs.map((s, i) => value_head_forward(hook.hf.get(i)!, w, b, s.length, C));
    const vRows = v.map((x, s) => x.subarray(0, lens[s] - 1));
    const vl = value_loss_forward(cat(vRows), cat(rows.map((r) => r.oldValues)), cat(tg.returns), mask, vcfg.clip, tokens);
    const dv = value_loss_backward(cat(vRows), cat(rows.map((r) => r.oldValues)), cat(tg.returns), mask, vcfg.clip, tokens);
    const cw = new Float64Array(C);
    let cb = 0;
    seqs.forEach((s, i) => {
      const d = new Float32Array(s.length);
      for (let t = 0; t + 1 < s.length; t++) d[t] = vcfg.vfCoef * dv[offsets[i] + t];
      const g = value_head_backward(d, hook.hf.get(i)!, w, s.length, C);
      g.dw.forEach((x, c) => { cw[c] += x; });
      cb += g.db;
    });
    const dD = maxdiff(cat(gotD), cpu.dlogp), dW = maxdiff(dw, cw), dB = Math.abs(db - cb);
    console.log(`ppo step: values maxdiff ${dVal.toExponential(2)} targets ${dTarget.toExponential(2)} dlogp ${dD.toExponential(2)} ` +
      `policy loss ${sums.loss.toFixed(6)} vs ${cpu.loss.toFixed(6)} value loss ${vs.loss.toFixed(6)} vs ${vl.loss.toFixed(6)} (vf_clipfrac ${(vs.clipped / vs.rows).toFixed(3)} vs ${vl.clipFrac.toFixed(3)}) ` +
      `dw maxdiff ${dW.toExponential(2)} (|dw|max ${Math.max(...cw.map(Math.abs)).toExponential(2)}) db ${db.toExponential(4)} vs ${cb.toExponential(4)}`);
    expect(dVal).toBeLessThan(1e-5);
    expect(dTarget).toBeLessThan(1e-6);
    expect(dD).toBeLessThan(1e-6);
    expect(Math.abs(sums.loss - cpu.loss)).toBeLessThan(1e-5);
    expect(Math.abs(vs.loss - vl.loss)).toBeLessThan(1e-5 * Math.max(1, vl.loss));
    expect(vl.clipFrac).toBeGreaterThan(0);
    expect(cpu.sums.clipRegion).toBeGreaterThan(0);
    expect(dW).toBeLessThan(1e-5);
    expect(dB).toBeLessThan(1e-5);

    // The trunk: value loss only (dlogp 0, no clip) -> LoRA grads G; central difference of vf_coef x
    // value loss along G / |G| must equal |G| (the value head's dh reached the adapter).
    trainer.optimizer.zeroGrads();
    const lora = (trainer.trainable as { mode: 'lora'; params: GpuLoraParams }).params;
    const plain = { vfCoef: 1, clip: 1e9 };
    const valueLoss = async (): Promise<number> => {
      const h = new ValueHeadHook(rt, kernel, head);
      await trainer.accumulate({ seqs, dlogp: null, hidden: h });
      h.dispose();
      return value_loss_forward(cat(seqs.map((_, s) => h.values.get(s)!)), cat(rows.map((r) => r.oldValues)), cat(tg.returns), mask, plain.clip, tokens).loss;
    };
    const h2 = new ValueHeadHook(rt, kernel, head);
    const vOnly = ppoGpuDlogp(rt, loss, h2, rows.map((r) => ({ ...r, rowAdvantages: new Float32Array(r.mask.length) })), { ...lcfg, entropyCoef: 0 }, norm, plain, () => undefined, () => undefined);
    await trainer.accumulate({ seqs, hidden: h2, dlogp: async (lp, ent, first) => { const d = await vOnly(lp, ent, first); return { dlogp: d.dlogp.map((x) => x.fill(0)), dentropy: null }; } });
    h2.dispose();
    const grads = await lora.gradsToHost();
    const theta = await lora.toHost();
    let gn = 0;
    for (const g of grads.values()) { for (const x of g.dA) gn += x * x; for (const x of g.dB) gn += x * x; }
    gn = Math.sqrt(gn);
    const eps = 1e-2;
    const shifted = (sign: number) => ({ config: theta.config, pairs: new Map([...theta.pairs].map(([k, pr]) => {
      const g = grads.get(k)!;
      return [k, { A: pr.A.map((x, i) => x + (sign * eps * g.dA[i]) / gn), B: pr.B.map((x, i) => x + (sign * eps * g.dB[i]) / gn) }];
    })) });
    rt.submit();
    lora.load(shifted(1));
    const lp = await valueLoss();
    lora.load(shifted(-1));
    const lm = await valueLoss();
    lora.load(theta);
    trainer.optimizer.zeroGrads();
    const fd = (lp - lm) / (2 * eps);
    console.log(`trunk: |G| (GPU, value loss only) ${gn.toExponential(4)} vs central difference ${fd.toExponential(4)} (rel ${(Math.abs(fd - gn) / gn).toExponential(2)})`);
    expect(gn).toBeGreaterThan(0);
    expect(Math.abs(fd - gn) / gn).toBeLessThan(2e-2);
  }, 300_000);

  it.skipIf(!existsSync(MODEL))('the GPU-resident value loss (ppoGpuUpstream) equals the host path, with no readback per pass', async () => {
    const { rt, trainer, loss, cfg } = run.ctx;
    const head = trainer.valueHead!;
    const kernel = await ValueHead.create(rt, head.C);
    const valueKernel = await ValueLoss.create(rt);
    const lora = (trainer.trainable as { mode: 'lora'; params: GpuLoraParams }).params;
    const lens = [13, 10, 12, 9];
    const seqs = lens.map((n, s) => Array.from(randomArray(n, 70 + s), (u) => 1 + Math.floor(Math.abs(u) * 500) % 500));
    const base = lens.map((n, s) => episodeRows(Array.from({ length: n }, (_, t) => (t >= 2 + s ? 1 : 0)), null, 0));
    const probe = new ValueHeadHook(rt, kernel, head);
    const old = await trainer.accumulate({ seqs, dlogp: null, hidden: probe });
    probe.dispose();
    const u = (s: number, k: number) => randomArray(lens[s] - 1, 120 + 7 * s + k);
    const rows: PpoRows[] = base.map((r, s) => ({
      ...r, old: old.logprobs[s].map((v, t) => (r.mask[t] ? v + 0.3 * u(s, 0)[t] : 0)),
      rowAdvantages: u(s, 1).map((x, t) => (r.mask[t] ? x : 0)),
      returns: u(s, 2).map((x, t) => (r.mask[t] ? x : 0)),
      oldValues: probe.values.get(s)!.map((v, t) => (r.mask[t] ? v + 0.3 * u(s, 3)[t] : 0)),
    }));
    const lcfg = lossConfig(cfg);
    const norm = { tokens: rows.reduce((a, r) => a + r.mask.reduce((b, x) => b + x, 0), 0), sequences: rows.length };
    const vcfg = { vfCoef: 0.5, clip: 0.2 };
    const mb = 2;
    const grads = async () => {
      const g = await lora.gradsToHost();
      return { dw: await rt.readF32(head.dw, head.C), db: (await rt.readF32(head.db, 1))[0], lora: [...g.values()].flatMap((x) => [...x.dA, ...x.dB]) };
    };

    // Host path: ppoGpuDlogp (values and dv through the CPU per pass).
    rt.submit();
    trainer.optimizer.zeroGrads();
    let hostSums: GrpoSums = zeroSums(), hostVs: ValueSums = { loss: 0, clipped: 0, rows: 0 };
    let r0 = rt.readbackCount;
    for (let i = 0; i < rows.length; i += mb) {
      const hook = new ValueHeadHook(rt, kernel, head);
      const dlogp = ppoGpuDlogp(rt, loss, hook, rows.slice(i, i + mb), lcfg, norm, vcfg, (s) => { hostSums = addSums(hostSums, s); },
        (s) => { hostVs = { loss: hostVs.loss + s.loss, clipped: hostVs.clipped + s.clipped, rows: hostVs.rows + s.rows }; });
      await trainer.accumulate({ seqs: seqs.slice(i, i + mb), dlogp, hidden: hook });
      hook.dispose();
    }
    const hostReadbacks = rt.readbackCount - r0;
    const host = await grads();

    // GPU path: ppoGpuUpstream, the step's sums read once.
    trainer.optimizer.zeroGrads();
    const ps = new GrpoStepSums(rt), vsums = new ValueStepSums(rt);
    r0 = rt.readbackCount;
    for (let i = 0; i < rows.length; i += mb) {
      const hook = new ValueHeadHook(rt, kernel, head, false);
      await trainer.accumulate({ seqs: seqs.slice(i, i + mb), dlogp: ppoGpuUpstream(rt, loss, valueKernel, hook, rows.slice(i, i + mb), lcfg, norm, vcfg, ps, vsums), hidden: hook });
      hook.dispose();
    }
    const gpuReadbacks = rt.readbackCount - r0;
    const read = await rt.readParts([{ buf: ps.buf, bytes: GRPO_METRICS_BYTES }, { buf: vsums.buf, bytes: VALUE_METRICS_BYTES }]);
    const gSums = ps.parse(read.parts[0]), gVs = vsums.parse(read.parts[1]);
    ps.release();
    vsums.release();
    const gpu = await grads();
    trainer.optimizer.zeroGrads();

    const scale = (a: ArrayLike<number>) => Math.max(1e-30, ...Array.from(a, Math.abs));
    const dW = maxdiff(gpu.dw, host.dw), dB = Math.abs(gpu.db - host.db), dL = maxdiff(gpu.lora, host.lora);
    console.log(`ppo GPU-resident vs host path: dw maxdiff ${dW.toExponential(2)} (|dw|max ${scale(host.dw).toExponential(2)}) db ${gpu.db.toExponential(4)} vs ${host.db.toExponential(4)} ` +
      `LoRA grads maxdiff ${dL.toExponential(2)} (|g|max ${scale(host.lora).toExponential(2)}) value loss ${gVs.loss.toFixed(6)} vs ${hostVs.loss.toFixed(6)} ` +
      `clipped ${gVs.clipped} vs ${hostVs.clipped.toFixed(0)} policy loss ${gSums.loss.toFixed(6)} vs ${hostSums.loss.toFixed(6)}; readbacks during the passes ${gpuReadbacks} (host path ${hostReadbacks})`);
    expect(gpuReadbacks).toBe(0);
    expect(hostReadbacks).toBeGreaterThan(0);
    expect(hostVs.clipped).toBeGreaterThan(0);
    expect(scale(host.dw)).toBeGreaterThan(1e-6);
    expect(dW / scale(host.dw)).toBeLessThan(1e-4);
    expect(dB).toBeLessThan(1e-4 * Math.max(1, Math.abs(host.db)));
    expect(dL / scale(host.lora)).toBeLessThan(1e-4);
    expect(Math.abs(gVs.loss - hostVs.loss)).toBeLessThan(1e-5 * Math.max(1, hostVs.loss));
    expect(gVs.clipped).toBe(hostVs.clipped);
    expect(gVs.rows).toBe(hostVs.rows);
    expect(Math.abs(gSums.loss - hostSums.loss)).toBeLessThan(1e-5);
  }, 300_000);

  it.skipIf(!existsSync(MODEL))('groups on one prompt: with shared prefixes the values, losses and gradients are those without', async () => {
    const { rt, trainer, loss, cfg } = run.ctx;
    const head = trainer.valueHead!;
    const kernel = await ValueHead.create(rt, head.C);
    const valueKernel = await ValueLoss.create(rt);
    const lora = (trainer.trainable as { mode: 'lora'; params: GpuLoraParams }).params;
    // Two prompts (24 and 18 tokens, the first 4 a common system prompt) with 3 and 2 episodes;
    // the loss rows are the completions'.
    const seqs: number[][] = [], base: SeqRows[] = [];
    const system = [11, 12, 13, 14];
    [[24, 3], [18, 2]].forEach(([P, G], g) => {
      const prompt = [...system, ...Array.from({ length: P - 4 }, (_, i) => 20 + 200 * g + i)];
      for (let e = 0; e < G; e++) {
        const s = [...prompt, ...Array.from(randomArray(6 + 2 * e, 210 + 10 * g + e), (u) => 1 + Math.floor(Math.abs(u) * 500) % 500)];
        seqs.push(s);
        base.push(episodeRows(s.map((_, t) => (t >= P ? 1 : 0)), null, 0));
      }
    });
    const masks = base.map((r) => r.mask);
    const lcfg = lossConfig(cfg);
    const norm = { tokens: masks.reduce((a, m) => a + m.reduce((b, x) => b + x, 0), 0), sequences: seqs.length };
    const vcfg = { vfCoef: 0.5, clip: 0.2 };
    const step = trainer.step;
    const once = async (share: boolean) => {
      step.sharePrefixes = share;
      const shared0 = step.rowsShared;
      rt.submit();
      trainer.optimizer.zeroGrads();
      // The rollout pass (old values and log-probs), then one GPU-resident update.
      const probe = new ValueHeadHook(rt, kernel, head);
      const old = await trainer.accumulate({ seqs, dlogp: null, hidden: probe, lossRows: masks });
      probe.dispose();
      const values = seqs.map((_, i) => probe.values.get(i)!);
      const u = (i: number, k: number) => randomArray(seqs[i].length - 1, 300 + 7 * i + k);
      const rows: PpoRows[] = masks.map((m, i) => ({
        ...base[i],
        old: old.logprobs[i].map((v, t) => (m[t] ? v + 0.3 * u(i, 0)[t] : 0)),
        rowAdvantages: u(i, 1).map((x, t) => (m[t] ? x : 0)), returns: u(i, 2).map((x, t) => (m[t] ? x : 0)),
        oldValues: values[i].map((v, t) => (m[t] ? v + 0.3 * u(i, 3)[t] : 0)),
      }));
      const ps = new GrpoStepSums(rt), vsums = new ValueStepSums(rt);
      const hook = new ValueHeadHook(rt, kernel, head, false);
      await trainer.accumulate({ seqs, dlogp: ppoGpuUpstream(rt, loss, valueKernel, hook, rows, lcfg, norm, vcfg, ps, vsums), hidden: hook, lossRows: masks });
      hook.dispose();
      const read = await rt.readParts([{ buf: ps.buf, bytes: GRPO_METRICS_BYTES }, { buf: vsums.buf, bytes: VALUE_METRICS_BYTES }]);
      const sums = ps.parse(read.parts[0]), vs = vsums.parse(read.parts[1]);
      ps.release();
      vsums.release();
      const g = await lora.gradsToHost();
      const out = { values, old: old.logprobs, sums, vs, dw: await rt.readF32(head.dw, head.C), db: (await rt.readF32(head.db, 1))[0],
        lora: [...g.values()].flatMap((x) => [...x.dA, ...x.dB]), shared: step.rowsShared - shared0 };
      trainer.optimizer.zeroGrads();
      return out;
    };
    let off, on;
    try {
      off = await once(false);
      on = await once(true);
    } finally {
      step.sharePrefixes = true;
    }
    const scale = (a: ArrayLike<number>) => Math.max(1e-30, ...Array.from(a, Math.abs));
    const dVal = Math.max(...seqs.map((_, i) => maxdiff(on.values[i], off.values[i])));
    const dOld = Math.max(...seqs.map((_, i) => maxdiff(on.old[i], off.old[i])));
    const dW = maxdiff(on.dw, off.dw), dL = maxdiff(on.lora, off.lora);
    console.log(`ppo shared prefixes: ${on.shared} rows shared over two passes; values maxdiff ${dVal.toExponential(2)} (every row), old log-probs ${dOld.toExponential(2)}; ` +
      `dw ${dW.toExponential(2)} (|dw|max ${scale(off.dw).toExponential(2)}) db ${on.db.toExponential(4)} vs ${off.db.toExponential(4)} LoRA ${dL.toExponential(2)} (|g|max ${scale(off.lora).toExponential(2)}); ` +
      `value loss ${on.vs.loss.toFixed(6)} vs ${off.vs.loss.toFixed(6)}, policy loss ${on.sums.loss.toFixed(6)} vs ${off.sums.loss.toFixed(6)}`);
    // Both passes share the later episodes' prompt rows (23 and 17 each: the last prompt row is a
    // loss row) and the second prompt's first episode the system prompt (4).
    expect(on.shared).toBe(2 * (2 * 23 + 4 + 17));
    expect(off.shared).toBe(0);
    expect(dVal).toBeLessThan(1e-5);
    expect(dOld).toBeLessThan(1e-5);
    expect(scale(off.dw)).toBeGreaterThan(1e-6);
    expect(dW / scale(off.dw)).toBeLessThan(1e-4);
    expect(Math.abs(on.db - off.db)).toBeLessThan(1e-4 * Math.max(1, Math.abs(off.db)));
    expect(dL / scale(off.lora)).toBeLessThan(1e-4);
    expect(Math.abs(on.vs.loss - off.vs.loss)).toBeLessThan(1e-5 * Math.max(1, off.vs.loss));
    expect(on.vs.rows).toBe(off.vs.rows);
    expect(Math.abs(on.sums.loss - off.sums.loss)).toBeLessThan(1e-5);
  }, 300_000);
});
