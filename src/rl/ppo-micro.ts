// PPO's per-pass pieces for TrainStep: ValueHeadHook (a HiddenHook: v = hf w + b for every row of
// a pass, read back per sequence or kept on the GPU; in the backward dN += dv w, dw += dv^T hf,
// db += sum dv through shaders/value_head.wgsl), ppoGpuUpstream (the training path: the GPU GRPO
// loss with per-row GAE advantages plus the clipped value loss of shaders/value_loss.wgsl, dv left
// on the GPU for the hook, sums in step buffers: no readback) and ppoGpuDlogp (the host DlogpFn
// form with the value loss on the CPU from reference/ppo.ts, for tests). Rows follow TrainStep:
// row t of a sequence is the state before token t+1. Tested by tests/unit/rl/ppo-step.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { GrpoLoss } from '../gpu/kernels/grpo';
import type { ValueHead } from '../gpu/kernels/value-head';
import { VALUE_METRICS_BYTES, type ValueLoss } from '../gpu/kernels/value-loss';
import type { DlogpFn, GpuUpstream, HiddenHook, HiddenRows, UpstreamPass } from '../train/train-step';
import type { ValueHeadParams } from '../train/value-head-params';
import type { GrpoLossConfig, GrpoSums, LossNormaliser } from '../reference/grpo_loss';
import { value_loss_backward, value_loss_forward } from '../reference/ppo';
import { grpoGpuDlogp, grpoGpuUpstream, type GrpoStepSums, type SeqRows } from './grpo-micro';

/** A sequence's loss rows [T-1] with PPO's per-row advantages, returns and old values. */
export interface PpoRows extends SeqRows {
  rowAdvantages: Float32Array;
  returns: Float32Array;
  oldValues: Float32Array;
}

/** Value-loss sums of the passes (token-mean over the whole batch: add them up). */
export interface ValueSums {
  /** Sum of the passes' value losses (each already divided by the batch's tokens). */
  loss: number;
  /** Masked rows where the clipped term was the larger. */
  clipped: number;
  rows: number;
}

export class ValueHeadHook implements HiddenHook {
  /** Per sequence index of the TrainStep.run call: the values of its rows [T-1]. */
  readonly values = new Map<number, Float32Array>();
  /** [M] d loss / d v of the current pass (set by the DlogpFn), or null: no value gradient. */
  dv: Float32Array | null = null;
  /** [M] f32 d loss / d v on the GPU (set by ppoGpuUpstream), used before `dv`. */
  dvBuf: GPUBuffer | null = null;
  /** [M] f32 values of the current pass on the GPU (valid until the next forward / dispose). */
  v: GPUBuffer | null = null;
  private held: GPUBuffer[] = [];

  /** `read`: read the values back per pass into `values` (the rollout pass); false: keep them on the GPU. */
  constructor(private readonly rt: GpuRuntime, private readonly kernel: ValueHead, private readonly params: ValueHeadParams,
    private readonly read = true) {}

  async forward(hf: GPUBuffer, rows: HiddenRows): Promise<void> {
    this.releaseHeld();   // the previous pass was submitted (TrainStep.pass submits in its finally)
    const { M, tokens } = rows;
    // v on the trunk's rows, then at every token row (a shared row's value is its root's).
    const vTrunk = this.hold(this.rt.storage(M * 4, 'value head v (trunk rows)'));
    this.kernel.forward(hf, this.params.w, this.params.b, vTrunk, M);
    let v = vTrunk;
    if (rows.shared) {
      v = this.hold(this.rt.storage(tokens * 4, 'value head v'));
      rows.toTokens(vTrunk, 1, v);
    }
    this.v = v;
    this.dv = null;
    this.dvBuf = null;
    if (!this.read) return;
    const all = await this.rt.readF32(v, tokens);
    let o = 0;
    rows.lens.forEach((n, s) => {
      this.values.set(rows.first + s, all.slice(o, o + n - 1));
      o += n;
    });
  }

  backward(hf: GPUBuffer, dN: GPUBuffer, rows: HiddenRows): void {
    let dv = this.dvBuf;
    if (!dv) {
      if (!this.dv) return;
      if (this.dv.length !== rows.tokens) throw new Error(`value head: dv has ${this.dv.length} rows for a pass of ${rows.tokens} token rows`);
      dv = this.hold(this.rt.upload(this.dv, 'value head dv'));
    }
    if (rows.shared) {
      // dv is 0 off the loss rows (the value loss's mask), which have their own trunk rows.
      const dvTrunk = this.hold(this.rt.storage(rows.M * 4, 'value head dv (trunk rows)'));
      rows.toTrunk(dv, 1, dvTrunk);
      dv = dvTrunk;
    }
    this.kernel.backward(dv, hf, this.params.w, dN, this.params.dw, this.params.db, rows.M, { accumulate: true });
  }

  /** Releases the last pass's buffers (call after the step's work was submitted). */
  dispose(): void {
    this.releaseHeld();
  }

  private hold(b: GPUBuffer): GPUBuffer {
    this.held.push(b);
    return b;
  }

  private releaseHeld(): void {
    this.rt.release(...this.held);
    this.held = [];
    this.v = null;
    this.dvBuf = null;
  }
}

/**
 * The step's value-loss sums on the GPU (like GrpoStepSums): every pass adds [loss, clipped, rows]
 * into one 16-byte buffer, read back once per step with the other step figures. Release it after.
 */
export class ValueStepSums {
  readonly buf: GPUBuffer;
  written = false;

  constructor(private readonly rt: GpuRuntime) {
    this.buf = rt.storage(VALUE_METRICS_BYTES, 'value loss metrics (step)');
  }

  parse(bytes: ArrayBuffer): ValueSums {
    const v = new Float32Array(bytes);
    return this.written ? { loss: v[0], clipped: v[1], rows: v[2] } : { loss: 0, clipped: 0, rows: 0 };
  }

  release(): void {
    this.rt.release(this.buf);
  }
}

/**
 * GPU-resident upstream of a PPO micro-batch (`rows` in the order passed to accumulate; `hook` is
 * the batch's hidden hook, built with read = false): per pass the policy part is grpoGpuUpstream
 * with per-row advantages; the value part uploads the pass's (old value, return, mask) rows and
 * records ValueLoss on the hook's values, its dv [M] (vf_coef included) left for the hook's
 * backward and its sums added into `vsums`. Nothing is read back; `norm` is the whole batch's.
 */
export function ppoGpuUpstream(rt: GpuRuntime, loss: GrpoLoss, valueLoss: ValueLoss, hook: ValueHeadHook, rows: PpoRows[], cfg: GrpoLossConfig,
  norm: LossNormaliser, value: { vfCoef: number; clip: number }, sums: GrpoStepSums, vsums: ValueStepSums): GpuUpstream {
  const policy = grpoGpuUpstream(rt, loss, rows, cfg, norm, sums);
  return {
    kind: 'gpu',
    record(p: UpstreamPass) {
      const r = policy.record(p);   // checks each sequence's rows against the pass
      if (!hook.v) throw new Error(`ppo micro-batch: no values for the pass at sequence ${p.first} (the ValueHeadHook must be the batch's hidden hook)`);
      const M = p.M;
      const old = new Float32Array(M), ret = new Float32Array(M), mask = new Float32Array(M);
      let o = 0;
      p.lens.forEach((n, s) => {
        const row = rows[p.first + s];
        old.set(row.oldValues, o);
        ret.set(row.returns, o);
        mask.set(row.mask, o);
        o += n;   // the sequence's last row scores nothing (mask 0)
      });
      const up = (a: Float32Array, label: string) => { const b = rt.upload(a, label); p.own(b); return b; };
      const dv = rt.storage(M * 4, 'value loss dv');
      p.own(dv);
      valueLoss.run({ values: hook.v, oldValues: up(old, 'value old'), returns: up(ret, 'value returns'), mask: up(mask, 'value mask') }, dv, vsums.buf, M,
        { vfCoef: value.vfCoef, clip: value.clip, tokens: norm.tokens }, { accumulate: vsums.written });
      vsums.written = true;
      hook.dvBuf = dv;
      return r;
    },
  };
}

/**
 * The DlogpFn of a PPO micro-batch (`rows` in the order passed to accumulate): the policy part is
 * grpoGpuDlogp with per-row advantages; the value part is vfCoef x the clipped value loss of the
 * hook's values (this pass's forward) against the rows' returns, its dv left on the hook.
 */
export function ppoGpuDlogp(rt: GpuRuntime, loss: GrpoLoss, hook: ValueHeadHook, rows: PpoRows[], cfg: GrpoLossConfig, norm: LossNormaliser,
  value: { vfCoef: number; clip: number }, onSums: (s: GrpoSums) => void, onValue: (s: ValueSums) => void): DlogpFn {
  const policy = grpoGpuDlogp(rt, loss, rows, cfg, norm, onSums);
  return async (logprobs, entropy, first) => {
    const d = await policy(logprobs, entropy, first);
    const n = logprobs.length;
    const M = logprobs.reduce((a, r) => a + r.length + 1, 0);
    const dv = new Float32Array(M);
    const sums: ValueSums = { loss: 0, clipped: 0, rows: 0 };
    let o = 0;
    for (let s = 0; s < n; s++) {
      const r = rows[first + s], v = hook.values.get(first + s);
      if (!v || v.length !== r.mask.length) throw new Error(`ppo micro-batch: no values for sequence ${first + s} of this pass (the ValueHeadHook must be the batch's hidden hook)`);
      const f = value_loss_forward(v, r.oldValues, r.returns, r.mask, value.clip, norm.tokens);
      const g = value_loss_backward(v, r.oldValues, r.returns, r.mask, value.clip, norm.tokens);
      const m = r.mask.reduce((a, x) => a + x, 0);
      sums.loss += f.loss;
      sums.clipped += f.clipFrac * m;
      sums.rows += m;
      for (let t = 0; t < g.length; t++) dv[o + t] = value.vfCoef * g[t];
      o += v.length + 1;   // the sequence's last row scores nothing
    }
    hook.dv = dv;
    onValue(sums);
    return d;
  };
}
