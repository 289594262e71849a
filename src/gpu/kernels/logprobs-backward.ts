// Launcher for shaders/logprobs.wgsl (logprobs_backward_rows): the backward of the chunked
// log-prob/entropy head. Per chunk of chunkRows rows it recomputes the logits through the LM
// head (a LogitsFn, as ChunkedLogprobs), turns them into dlogits in place, and hands them to a
// callback that records dH (+ dW_lm in full mode), so at most [chunkRows, V] logits exist.
// CPU twin: src/reference/logprobs.ts (logprobs_backward). Tested by logprobs-backward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { rowWorkgroupSize } from '../device';
import type { LogitsFn } from './logprobs';
import { ShapeError } from '../errors';

/**
 * Records the use of one chunk's dlogits [rows, V] (rows r0..r0+rows-1 of the batch): dH rows
 * r0.. = dlogits W (= or +=, the callback's choice) and, in full mode, dW_lm += dlogits^T hRows.
 * hRows [rows, C] is the chunk's copy of H. Both buffers are reused by the next chunk: record,
 * do not keep.
 */
export type DlogitsFn = (dlogits: GPUBuffer, rows: number, r0: number, hRows: GPUBuffer) => void;

export interface ChunkedLogprobsBackwardOptions {
  /** V */
  V: number;
  /** C */
  C: number;
  /** Rows per chunk: the logits scratch is [chunkRows, V] (default 16). */
  chunkRows?: number;
  /** Invocations per workgroup, a power of two (default: rowWorkgroupSize, src/gpu/device.ts). */
  wg?: number;
}

export class ChunkedLogprobsBackward {
  private readonly uniforms = new ArrayBuffer(32);
  private readonly u32 = new Uint32Array(this.uniforms);
  private readonly f32 = new Float32Array(this.uniforms);
  private readonly hChunk: GPUBuffer;
  private readonly logitsChunk: GPUBuffer;

  private constructor(
    private readonly rt: GpuRuntime,
    private readonly pipeline: Kernel,
    readonly opts: Required<ChunkedLogprobsBackwardOptions>,
  ) {
    const { V, C, chunkRows } = opts;
    this.hChunk = rt.storage(chunkRows * C * 4, `logprobs backward hidden chunk [${chunkRows}, ${C}]`);
    this.logitsChunk = rt.storage(chunkRows * V * 4, `logprobs backward dlogits chunk [${chunkRows}, ${V}]`);
  }

  static async create(rt: GpuRuntime, opts: ChunkedLogprobsBackwardOptions): Promise<ChunkedLogprobsBackward> {
    const o: Required<ChunkedLogprobsBackwardOptions> = { chunkRows: 16, wg: rowWorkgroupSize(rt.report), ...opts };
    for (const k of ['V', 'C', 'chunkRows', 'wg'] as const) {
      if (!Number.isInteger(o[k]) || o[k] <= 0) throw new ShapeError('logprobs_backward', `${k} a positive integer`, `${k}=${o[k]}`);
    }
    if ((o.wg & (o.wg - 1)) !== 0) throw new ShapeError('logprobs_backward', 'a power-of-two workgroup size', `wg=${o.wg}`);
    // V a multiple of 4 (every real vocabulary): the vec4 two-read form; any other V the one-pass form.
    const pipeline = await rt.kernel({ shader: 'logprobs', entry: o.V % 4 === 0 ? 'logprobs_backward_rows4' : 'logprobs_backward_rows', overrides: { WG: o.wg } });
    return new ChunkedLogprobsBackward(rt, pipeline, o);
  }

  /**
   * For r < M, with logits_r = LM head of H row r (recomputed by `logits`), records
   * dlogits_r = d(sum dlogp logp + dentropy entropy) / d logits_r at `temperature`, chunk by
   * chunk, and calls `onChunk` on each chunk's dlogits.
   */
  run(H: GPUBuffer, targets: GPUBuffer, M: number, dlogp: GPUBuffer, dentropy: GPUBuffer | null,
    logits: LogitsFn, onChunk: DlogitsFn, temperature = 1): void {
    const { C, chunkRows } = this.opts;
    if (H.size < M * C * 4) throw new ShapeError('logprobs_backward', `H of [${M}, ${C}] f32 (${M * C * 4} bytes)`, `${H.size} bytes (${H.label})`);
    this.checkInputs(targets, M, dlogp, dentropy, temperature);
    for (let r0 = 0; r0 < M; r0 += chunkRows) {
      const n = Math.min(chunkRows, M - r0);
      this.rt.copy(H, r0 * C * 4, this.hChunk, 0, n * C * 4);
      logits(this.hChunk, n, this.logitsChunk);
      this.dlogitsInPlace(this.logitsChunk, n, r0, targets, dlogp, dentropy, temperature);
      onChunk(this.logitsChunk, n, r0, this.hChunk);
    }
  }

  /**
   * Records the kernel alone: logitsBuf [N, V] (rows r0..r0+N-1 of targets/dlogp/dentropy)
   * is overwritten by its gradient.
   */
  dlogitsInPlace(logitsBuf: GPUBuffer, N: number, r0: number, targets: GPUBuffer, dlogp: GPUBuffer,
    dentropy: GPUBuffer | null, temperature = 1): void {
    const { V } = this.opts;
    if (logitsBuf.size < N * V * 4) throw new ShapeError('logprobs_backward', `logits of [${N}, ${V}] f32 (${N * V * 4} bytes)`, `${logitsBuf.size} bytes (${logitsBuf.label})`);
    this.checkInputs(targets, r0 + N, dlogp, dentropy, temperature);
    if (N === 0) return;
    this.u32.set([N, V, r0, 0, dentropy ? 1 : 0, 0, 0, 0]);
    this.f32[3] = 1 / temperature;
    // With no dentropy, dlogp stands in at its binding (read-only aliasing is allowed).
    this.rt.dispatch(this.pipeline, [targets, dlogp, dentropy ?? dlogp, logitsBuf], new Uint8Array(this.uniforms), { x: N });
  }

  /** Bytes of the scratch buffers (the chunk of hidden rows and of logits). */
  get scratchBytes(): number {
    return this.hChunk.size + this.logitsChunk.size;
  }

  destroy(): void {
    this.rt.release(this.hChunk, this.logitsChunk);
  }

  private checkInputs(targets: GPUBuffer, rows: number, dlogp: GPUBuffer, dentropy: GPUBuffer | null, temperature: number): void {
    const op = 'logprobs_backward';
    if (targets.size < rows * 4) throw new ShapeError(op, `targets of [${rows}] u32 (${rows * 4} bytes)`, `${targets.size} bytes (${targets.label})`);
    if (dlogp.size < rows * 4) throw new ShapeError(op, `dlogp of [${rows}] f32 (${rows * 4} bytes)`, `${dlogp.size} bytes (${dlogp.label})`);
    if (dentropy && dentropy.size < rows * 4) throw new ShapeError(op, `dentropy of [${rows}] f32 (${rows * 4} bytes)`, `${dentropy.size} bytes (${dentropy.label})`);
    if (!(temperature > 0)) throw new ShapeError(op, 'temperature > 0', `${temperature}`);
  }
}
