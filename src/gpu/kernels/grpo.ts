// Launcher for shaders/grpo.wgsl: the GRPO per-token objective on the GPU. Records dlogp and
// dentropy [N] (the upstream gradients the engine's backward takes) and the eight metric sums in
// a 32-byte buffer read back once per step (= on the first micro-batch, += after).
// CPU twin: grpo_loss (src/reference/grpo_loss.ts). Tested by tests/unit/gpu/grpo-gpu.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { KL_KIND } from '../../reference/kl';
import {
  GRPO_SUM_FIELDS, tokenAdvantages, tokenWeights,
  type GrpoLossConfig, type GrpoSums, type LossNormaliser,
} from '../../reference/grpo_loss';

const WG = 64;
// Invocations of the one reduce workgroup: 64. At 256 SwiftShader took 1.1-1.6 s to compile it
// (0.3 s at 64), at the first step of every run, for a one-pass sum of a few thousand rows.
const RWG = 64;
const MAX_X = 65535;

/** Bytes of the metrics buffer: eight f32 sums in GRPO_SUM_FIELDS order. */
export const GRPO_METRICS_BYTES = GRPO_SUM_FIELDS.length * 4;

export interface GrpoGpuInputs {
  /** [N] f32 log probs of the policy being trained (the forward's output). */
  logp: GPUBuffer;
  /** [N] f32 of the sampling policy (mu > 1); null/omitted: logp itself (ratio 1, mu = 1). */
  oldLogp?: GPUBuffer | null;
  /** [N] f32 of the reference policy (adapter disabled); required when beta > 0. */
  refLogp?: GPUBuffer | null;
  /** [N] f32 entropies; required when entropyCoef > 0, summed for the metric when given. */
  entropy?: GPUBuffer | null;
  /** [N] loss mask, f32 or u32 values (`maskType`). */
  mask: GPUBuffer;
  /** [N, 2] f32 (advantage, normaliser weight) per row: grpoTokenCoefficients. */
  coef: GPUBuffer;
}

export interface GrpoGpuOutputs {
  /** [N] f32, overwritten. */
  dlogp: GPUBuffer;
  /** [N] f32, overwritten (all 0 when entropyCoef = 0: the engine may then take null instead). */
  dentropy: GPUBuffer;
  /** [8] f32 sums (GRPO_METRICS_BYTES). */
  metrics: GPUBuffer;
}

export interface GrpoRunOptions {
  /** Element type of the mask buffer (default f32). */
  maskType?: 'f32' | 'u32';
  /** Add into the metrics buffer (later micro-batches) instead of overwriting it (default false). */
  accumulate?: boolean;
}

/**
 * The host-built [N, 2] (advantage, weight) table for one (micro-)batch: each row gets its
 * sequence's advantage and its normaliser weight (the aggregation mode, with the whole batch's
 * counts `norm`). Upload it as f32 and pass it as `coef`.
 */
export function grpoTokenCoefficients(mask: ArrayLike<number>, offsets: ArrayLike<number>, advantages: ArrayLike<number>,
  cfg: GrpoLossConfig, norm: LossNormaliser): Float32Array {
  const w = tokenWeights(mask, offsets, cfg, norm);
  const A = tokenAdvantages(offsets, advantages);
  if (A.length !== mask.length) throw new ShapeError('grpo coefficients', `offsets ending at N=${mask.length} (the mask's rows)`, `offsets ending at ${A.length}`);
  const out = new Float32Array(2 * mask.length);
  for (let n = 0; n < mask.length; n++) {
    out[2 * n] = A[n];
    out[2 * n + 1] = w[n];
  }
  return out;
}

export class GrpoLoss {
  private readonly uniforms = new ArrayBuffer(32);
  private readonly u32 = new Uint32Array(this.uniforms);
  private readonly f32 = new Float32Array(this.uniforms);

  private constructor(private readonly rt: GpuRuntime, private readonly token: Kernel,
    private readonly reduce: Kernel) {}

  static async create(rt: GpuRuntime): Promise<GrpoLoss> {
    const [token, reduce] = await Promise.all([
      rt.kernel({ shader: 'grpo', entry: 'grpo_token', overrides: { WG } }),
      rt.kernel({ shader: 'grpo', entry: 'grpo_reduce', overrides: { RWG } }),
    ]);
    return new GrpoLoss(rt, token, reduce);
  }

  /** Records both kernels for N rows (sums only when N = 0). */
  run(inp: GrpoGpuInputs, out: GrpoGpuOutputs, N: number, cfg: GrpoLossConfig, opts: GrpoRunOptions = {}): void {
    this.check(inp, out, N, cfg);
    const maskF32 = (opts.maskType ?? 'f32') === 'f32';
    const flags = (maskF32 ? 1 : 0) | (inp.entropy ? 2 : 0) | (opts.accumulate ? 0 : 4);
    this.u32.set([N, flags, KL_KIND[cfg.klEstimator], 0]);
    this.f32.set([cfg.epsilonLow, cfg.epsilonHigh, cfg.beta, cfg.entropyCoef], 4);
    const u = new Uint8Array(this.uniforms);
    // Absent optional inputs bind logp in their place (read-only aliasing is allowed); the kernel
    // does not read them (old = logp gives ratio 1).
    const ins = [inp.logp, inp.oldLogp ?? inp.logp, inp.refLogp ?? inp.logp, inp.entropy ?? inp.logp, inp.mask, inp.coef];
    if (N > 0) {
      const groups = Math.ceil(N / WG);
      const y = Math.ceil(groups / MAX_X);
      this.rt.dispatch(this.token, [...ins, out.dlogp, out.dentropy], u, { x: Math.ceil(groups / y), y });
    }
    this.rt.dispatch(this.reduce, [...ins, out.metrics], u, { x: 1 });
  }

  /** Reads the metrics buffer back (one round trip) as named sums. */
  async readSums(metrics: GPUBuffer): Promise<GrpoSums> {
    const v = await this.rt.readF32(metrics, GRPO_SUM_FIELDS.length);
    const s = {} as GrpoSums;
    GRPO_SUM_FIELDS.forEach((k, i) => { s[k] = v[i]; });
    return s;
  }

  private check(inp: GrpoGpuInputs, out: GrpoGpuOutputs, N: number, cfg: GrpoLossConfig): void {
    const op = 'grpo';
    if (!Number.isInteger(N) || N < 0) throw new ShapeError(op, 'N (token rows) a non-negative integer', `N=${N}`);
    if (cfg.beta > 0 && !inp.refLogp) throw new ShapeError(op, 'refLogp [N] f32 when beta > 0 (reference log probs, adapter disabled)', 'none');
    if (cfg.entropyCoef > 0 && !inp.entropy) throw new ShapeError(op, 'entropy [N] f32 when entropyCoef > 0', 'none');
    const rows: [string, GPUBuffer | null | undefined, number][] = [
      ['logp', inp.logp, N * 4], ['oldLogp', inp.oldLogp, N * 4], ['refLogp', inp.refLogp, N * 4],
      ['entropy', inp.entropy, N * 4], ['mask', inp.mask, N * 4], ['coef', inp.coef, N * 8],
      ['dlogp', out.dlogp, N * 4], ['dentropy', out.dentropy, N * 4], ['metrics', out.metrics, GRPO_METRICS_BYTES],
    ];
    for (const [name, b, need] of rows) {
      if (b && b.size < need) {
        const shape = name === 'coef' ? `[${N}, 2] f32` : name === 'metrics' ? '[8] f32' : `[${N}] f32`;
        throw new ShapeError(op, `${name} of ${shape} (${need} bytes)`, `${b.size} bytes (${b.label})`);
      }
    }
    if (out.dlogp === inp.logp || out.dentropy === inp.logp) throw new ShapeError(op, 'dlogp and dentropy distinct from the inputs', 'an output aliasing logp');
  }
}
