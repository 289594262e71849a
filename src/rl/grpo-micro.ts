// One GRPO micro-batch's upstream gradients on the GPU. grpoGpuUpstream (the training path) records
// GrpoLoss (shaders/grpo.wgsl) on the forward's log-probs between forward and backward and writes
// dlogp / dentropy into the backward's buffers and the metric sums into a step buffer: no readback.
// grpoGpuDlogp (the host DlogpFn form, for tests and tools) reads them back. Rows follow TrainStep:
// row t of a sequence scores token t+1. CPU twin: grpo_loss; tested by tests/unit/rl/rl-grpo-micro.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import { GRPO_METRICS_BYTES, grpoTokenCoefficients, type GrpoLoss } from '../gpu/kernels/grpo';
import type { DlogpFn, GpuUpstream, UpstreamPass } from '../train/train-step';
import { GRPO_SUM_FIELDS, type GrpoLossConfig, type GrpoSums, type LossNormaliser } from '../reference/grpo_loss';

/** What one sequence brings to the loss, each [T-1] (row t scores token t+1). */
export interface SeqRows {
  mask: Float32Array;
  /** Sampling / old-policy log-probs; null: ratio 1 (old = logp). */
  old: Float32Array | null;
  /** Reference-policy log-probs (beta > 0). */
  ref: Float32Array | null;
  advantage: number;
  /** PPO: an advantage per row [T-1] (GAE) instead of `advantage`. */
  rowAdvantages?: Float32Array;
}

/** An episode's token mask / log-probs [T] as loss rows [T-1]; NaN log-probs (mask 0) become 0. */
export function episodeRows(mask: ArrayLike<number>, logprobs: ArrayLike<number> | null, advantage: number, zeroMask = false): SeqRows {
  const n = mask.length - 1;
  const m = new Float32Array(n);
  if (!zeroMask) for (let t = 0; t < n; t++) m[t] = mask[t + 1];
  let old: Float32Array | null = null;
  if (logprobs) {
    old = new Float32Array(n);
    for (let t = 0; t < n; t++) old[t] = m[t] ? logprobs[t + 1] : 0;
  }
  return { mask: m, old, ref: null, advantage };
}

function concat(parts: ArrayLike<number>[], N: number): Float32Array {
  const out = new Float32Array(N);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/**
 * The DlogpFn of a micro-batch whose sequences are `rows` (in the order passed to accumulate).
 * `norm` is the WHOLE batch's normaliser so micro-batch gradients add up; `onSums` gets each
 * pass's metric sums. dentropy is returned only when cfg.entropyCoef > 0.
 */
export function grpoGpuDlogp(rt: GpuRuntime, loss: GrpoLoss, rows: SeqRows[], cfg: GrpoLossConfig, norm: LossNormaliser,
  onSums: (s: GrpoSums) => void): DlogpFn {
  return async (logprobs, entropy, first) => {
    const seqs = rows.slice(first, first + logprobs.length);
    const offsets = [0];
    for (let s = 0; s < seqs.length; s++) {
      if (logprobs[s].length !== seqs[s].mask.length) throw new Error(`grpo micro-batch: sequence ${first + s} has ${logprobs[s].length} log-prob rows but ${seqs[s].mask.length} mask rows`);
      offsets.push(offsets[s] + logprobs[s].length);
    }
    const N = offsets[seqs.length];
    const mask = concat(seqs.map((r) => r.mask), N);
    const coef = grpoTokenCoefficients(mask, offsets, seqs.map((r) => r.advantage), cfg, norm);
    seqs.forEach((r, s) => r.rowAdvantages?.forEach((A, t) => { coef[2 * (offsets[s] + t)] = A; }));   // PPO: per-row GAE
    const hasOld = seqs.every((r) => r.old), hasRef = seqs.every((r) => r.ref);
    if (cfg.beta > 0 && !hasRef) throw new Error('grpo micro-batch: beta > 0 but the reference log-probs are missing');
    const owned: GPUBuffer[] = [];
    const up = (a: Float32Array, label: string) => { const b = rt.upload(a, label); owned.push(b); return b; };
    const out = (bytes: number, label: string) => { const b = rt.storage(bytes, label); owned.push(b); return b; };
    try {
      const inp = {
        logp: up(concat(logprobs, N), 'grpo logp'),
        oldLogp: hasOld ? up(concat(seqs.map((r) => r.old!), N), 'grpo old logp') : null,
        refLogp: hasRef ? up(concat(seqs.map((r) => r.ref!), N), 'grpo ref logp') : null,
        entropy: up(concat(entropy, N), 'grpo entropy'),
        mask: up(mask, 'grpo mask'),
        coef: up(coef, 'grpo coef'),
      };
      const o = { dlogp: out(N * 4, 'grpo dlogp'), dentropy: out(N * 4, 'grpo dentropy'), metrics: out(GRPO_METRICS_BYTES, 'grpo metrics') };
      loss.run(inp, o, N, cfg);
      const dl = await rt.readF32(o.dlogp, N);
      const de = cfg.entropyCoef > 0 ? await rt.readF32(o.dentropy, N) : null;
      onSums(await loss.readSums(o.metrics));
      const split = (a: Float32Array) => seqs.map((_, s) => a.slice(offsets[s], offsets[s + 1]));
      return { dlogp: split(dl), dentropy: de ? split(de) : null };
    } finally {
      rt.release(...owned);
    }
  };
}

/**
 * The step's GRPO metric sums on the GPU: every pass's grpo_reduce adds into one 32-byte buffer
 * (= on the first pass of the step, += after); read back once per step with the other step
 * figures (GpuRuntime.readParts). Release it after the read.
 */
export class GrpoStepSums {
  readonly buf: GPUBuffer;
  /** A pass has written the buffer (later passes accumulate). */
  written = false;

  constructor(private readonly rt: GpuRuntime) {
    this.buf = rt.storage(GRPO_METRICS_BYTES, 'grpo metrics (step)');
  }

  /** The sums from the buffer's bytes as read back (zeros when no pass ran). */
  parse(bytes: ArrayBuffer): GrpoSums {
    const v = new Float32Array(bytes);
    const s = {} as GrpoSums;
    GRPO_SUM_FIELDS.forEach((k, i) => { s[k] = this.written ? v[i] : 0; });
    return s;
  }

  release(): void {
    this.rt.release(this.buf);
  }
}

/**
 * Old / reference log-probs of a step's sequences left on the GPU by log-prob passes
 * (Trainer.logprobsOnGpu: each sequence's T rows packed in order), read by the loss in place of
 * SeqRows.old / ref.
 */
export interface ResidentLogprobs {
  old: GPUBuffer | null;
  ref: GPUBuffer | null;
  /** First packed row of each of the step's sequences. */
  rowStart: number[];
  /** Index among the step's sequences of the micro-batch's first one. */
  firstSeq: number;
}

/** ResidentLogprobs.rowStart of `seqs`. */
export function rowStarts(seqs: number[][]): number[] {
  const starts: number[] = [];
  let r = 0;
  for (const s of seqs) { starts.push(r); r += s.length; }
  return starts;
}

/**
 * GPU-resident upstream gradients of a micro-batch whose sequences are `rows` (in the order passed
 * to accumulate): per pass it uploads the pass's loss rows (mask, old / ref log-probs, (advantage,
 * weight)) laid out as the pass's token rows (each sequence's last row masked) and records
 * GrpoLoss on the forward's log-probs, writing dlogp / dentropy straight into the buffers the
 * backward reads, and its metric sums into `sums`. Old / ref log-probs in `resident` are copied
 * on the GPU instead of uploaded. No readback; `norm` is the whole batch's.
 */
export function grpoGpuUpstream(rt: GpuRuntime, loss: GrpoLoss, rows: SeqRows[], cfg: GrpoLossConfig, norm: LossNormaliser,
  sums: GrpoStepSums, resident: ResidentLogprobs | null = null): GpuUpstream {
  return {
    kind: 'gpu',
    record(p: UpstreamPass) {
      const seqs = rows.slice(p.first, p.first + p.lens.length);
      const M = p.M;
      const mask = new Float32Array(M), old = new Float32Array(M), ref = new Float32Array(M);
      const offsets = [0];
      let o = 0;
      seqs.forEach((r, s) => {
        if (r.mask.length !== p.lens[s] - 1) throw new Error(`grpo micro-batch: sequence ${p.first + s} has ${p.lens[s]} tokens but ${r.mask.length} mask rows (expected ${p.lens[s] - 1})`);
        mask.set(r.mask, o);
        if (r.old) old.set(r.old, o);
        if (r.ref) ref.set(r.ref, o);
        o += p.lens[s];
        offsets.push(o);
      });
      if (o !== M) throw new Error(`grpo micro-batch: the pass has ${M} rows but its sequences ${o}`);
      const hasOld = seqs.every((r) => r.old), hasRef = seqs.every((r) => r.ref);
      if (cfg.beta > 0 && !hasRef && !resident?.ref) throw new Error('grpo micro-batch: beta > 0 but the reference log-probs are missing');
      const coef = grpoTokenCoefficients(mask, offsets, seqs.map((r) => r.advantage), cfg, norm);
      seqs.forEach((r, s) => r.rowAdvantages?.forEach((A, t) => { coef[2 * (offsets[s] + t)] = A; }));   // PPO: per-row GAE
      const up = (a: Float32Array, label: string) => { const b = rt.upload(a, label); p.own(b); return b; };
      const start = resident ? resident.rowStart[resident.firstSeq + p.first] : 0;
      const fromGpu = (src: GPUBuffer, label: string) => {
        const b = rt.storage(M * 4, label);
        p.own(b);
        rt.copy(src, start * 4, b, 0, M * 4);
        return b;
      };
      const inp = {
        logp: p.logp,
        oldLogp: resident?.old ? fromGpu(resident.old, 'grpo old logp') : hasOld ? up(old, 'grpo old logp') : null,
        refLogp: resident?.ref ? fromGpu(resident.ref, 'grpo ref logp') : hasRef ? up(ref, 'grpo ref logp') : null,
        entropy: p.entropy,
        mask: up(mask, 'grpo mask'),
        coef: up(coef, 'grpo coef'),
      };
      loss.run(inp, { dlogp: p.dlogp, dentropy: p.dentropy, metrics: sums.buf }, M, cfg, { accumulate: sums.written });
      sums.written = true;
      return { dentropy: cfg.entropyCoef > 0 };
    },
  };
}
