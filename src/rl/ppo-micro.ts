// PPO's per-pass pieces for TrainStep: ValueHeadHook (a HiddenHook: v = hf w + b for every row of
// a pass, read back per sequence; in the backward dN += dv w, dw += dv^T hf, db += sum dv through
// shaders/value_head.wgsl) and ppoGpuDlogp (the GPU GRPO loss with per-row GAE advantages, plus the
// clipped value loss's dv on the CPU from reference/ppo.ts). Rows follow TrainStep: row t of a
// sequence is the state before token t+1. Tested by tests/unit/rl/ppo-step.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { GrpoLoss } from '../gpu/kernels/grpo';
import type { ValueHead } from '../gpu/kernels/value-head';
import type { DlogpFn, HiddenHook } from '../train/train-step';
import type { ValueHeadParams } from '../train/value-head-params';
import type { GrpoLossConfig, GrpoSums, LossNormaliser } from '../reference/grpo_loss';
import { value_loss_backward, value_loss_forward } from '../reference/ppo';
import { grpoGpuDlogp, type SeqRows } from './grpo-micro';

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
  private held: GPUBuffer[] = [];

  constructor(private readonly rt: GpuRuntime, private readonly kernel: ValueHead, private readonly params: ValueHeadParams) {}

  async forward(hf: GPUBuffer, M: number, lens: number[], first: number): Promise<void> {
    this.releaseHeld();   // the previous pass was submitted (TrainStep.pass submits in its finally)
    const v = this.hold(this.rt.storage(M * 4, 'value head v'));
    this.kernel.forward(hf, this.params.w, this.params.b, v, M);
    const all = await this.rt.readF32(v, M);
    let o = 0;
    lens.forEach((n, s) => {
      this.values.set(first + s, all.slice(o, o + n - 1));
      o += n;
    });
    this.dv = null;
  }

  backward(hf: GPUBuffer, dN: GPUBuffer, M: number): void {
    if (!this.dv) return;
    if (this.dv.length !== M) throw new Error(`value head: dv has ${this.dv.length} rows for a pass of M=${M}`);
    const dv = this.hold(this.rt.upload(this.dv, 'value head dv'));
    this.kernel.backward(dv, hf, this.params.w, dN, this.params.dw, this.params.db, M, { accumulate: true });
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
  }
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
