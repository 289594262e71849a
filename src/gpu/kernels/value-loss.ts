// Launcher for shaders/value_loss.wgsl: PPO's clipped value loss on the GPU. Records dv [N] (the
// value head's upstream gradient, vf_coef included) and three sums (loss / D, clipped rows, rows)
// into a 16-byte buffer read back once per step. CPU twin: value_loss_forward / value_loss_backward
// (src/reference/ppo.ts). Tested by tests/unit/gpu/value-loss-gpu.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';

const WG = 64;
// Invocations of the one reduce workgroup: 64. At 256 SwiftShader took 1.1-1.6 s to compile it
// (0.3 s at 64), at the first step of every run, for a one-pass sum of a few thousand rows.
const RWG = 64;
const MAX_X = 65535;

/** Bytes of the metrics buffer: [loss (already / D), clipped rows, masked rows, 0] f32. */
export const VALUE_METRICS_BYTES = 16;

export interface ValueLossInputs {
  /** [N] f32 value head outputs of the pass. */
  values: GPUBuffer;
  /** [N] f32 values at rollout time (the clip centre). */
  oldValues: GPUBuffer;
  /** [N] f32 GAE returns (the targets). */
  returns: GPUBuffer;
  /** [N] f32 loss mask. */
  mask: GPUBuffer;
}

export interface ValueLossConfig {
  vfCoef: number;
  /** cliprange_value. */
  clip: number;
  /** The whole batch's trained tokens D (token-mean over the batch, so micro-batches add up). */
  tokens: number;
}

export class ValueLoss {
  private readonly uniforms = new ArrayBuffer(32);
  private readonly u32 = new Uint32Array(this.uniforms);
  private readonly f32 = new Float32Array(this.uniforms);

  private constructor(private readonly rt: GpuRuntime, private readonly token: Kernel,
    private readonly reduce: Kernel) {}

  static async create(rt: GpuRuntime): Promise<ValueLoss> {
    const [token, reduce] = await Promise.all([
      rt.kernel({ shader: 'value_loss', entry: 'value_loss_token', overrides: { WG } }),
      rt.kernel({ shader: 'value_loss', entry: 'value_loss_reduce', overrides: { RWG } }),
    ]);
    return new ValueLoss(rt, token, reduce);
  }

  /** Records dv (=) and the sums (= or += with `accumulate`) for N rows. */
  run(inp: ValueLossInputs, dv: GPUBuffer, metrics: GPUBuffer, N: number, cfg: ValueLossConfig, opts: { accumulate?: boolean } = {}): void {
    this.check(inp, dv, metrics, N);
    this.u32.set([N, opts.accumulate ? 0 : 1, 0, 0]);
    this.f32.set([cfg.vfCoef, cfg.clip, cfg.tokens > 0 ? 1 / cfg.tokens : 0, 0], 4);
    const u = new Uint8Array(this.uniforms);
    const ins = [inp.values, inp.oldValues, inp.returns, inp.mask];
    if (N > 0) {
      const groups = Math.ceil(N / WG);
      const y = Math.ceil(groups / MAX_X);
      this.rt.dispatch(this.token, [...ins, dv], u, { x: Math.ceil(groups / y), y });
    }
    this.rt.dispatch(this.reduce, [...ins, metrics], u, { x: 1 });
  }

  private check(inp: ValueLossInputs, dv: GPUBuffer, metrics: GPUBuffer, N: number): void {
    const op = 'value_loss';
    if (!Number.isInteger(N) || N < 0) throw new ShapeError(op, 'N (token rows) a non-negative integer', `N=${N}`);
    const rows: [string, GPUBuffer, number][] = [
      ['values', inp.values, N * 4], ['oldValues', inp.oldValues, N * 4], ['returns', inp.returns, N * 4],
      ['mask', inp.mask, N * 4], ['dv', dv, N * 4], ['metrics', metrics, VALUE_METRICS_BYTES],
    ];
    for (const [name, b, need] of rows) {
      if (b.size < need) throw new ShapeError(op, `${name} of ${name === 'metrics' ? '[4]' : `[${N}]`} f32 (${need} bytes)`, `${b.size} bytes (${b.label})`);
    }
    if (dv === inp.values) throw new ShapeError(op, 'dv distinct from values', 'dv aliasing values');
  }
}
