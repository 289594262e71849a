// Launcher for shaders/logprobs.wgsl: per-row log p(target) and entropy from final hidden
// states H [M, C] through the LM head, chunkRows rows at a time, so at most [chunkRows, V]
// logits ever exist. The "logits for these rows" step is a callback (f32 matmul here; the NF4
// matmul plugs in the same way). Also gathers the logits of chosen rows (the last row of each
// sequence) for sampling. CPU twin: src/reference/logprobs.ts. Tested by logprobs-forward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import type { Matmul } from './matmul';
import { ShapeError } from '../errors';
import { rowWorkgroupSize } from '../device';

/** Records logits [rows, V] = LM head of X [rows, C]; both buffers start at row 0. */
export type LogitsFn = (X: GPUBuffer, rows: number, logits: GPUBuffer) => void;

/** The LM head as an f32 matmul with W [V, C] (tied embeddings or lm_head.weight). */
export function f32LmHead(mm: Matmul, W: GPUBuffer, C: number, V: number): LogitsFn {
  return (X, rows, logits) => mm.run(X, W, logits, rows, C, V);
}

export interface ChunkedLogprobsOptions {
  /** V */
  V: number;
  /** C */
  C: number;
  /** Rows per chunk: the logits scratch is [chunkRows, V] (default LOGPROB_CHUNK_ROWS). */
  chunkRows?: number;
  /** Invocations per workgroup, a power of two (default: rowWorkgroupSize, src/gpu/device.ts). */
  wg?: number;
}

/**
 * Default rows of a log-prob chunk (GpuModelOptions.chunkRows too): 32, so an NF4 LM head takes
 * its 32-row tiles (nf4TileRows, src/gpu/kernels/linear.ts: 1.2x over 16-row ones); a
 * Qwen-sized vocabulary's scratch is then 19 MiB of logits.
 */
export const LOGPROB_CHUNK_ROWS = 32;

export class ChunkedLogprobs {
  private readonly uniforms = new ArrayBuffer(16);
  private readonly u32 = new Uint32Array(this.uniforms);
  private readonly f32 = new Float32Array(this.uniforms);
  private readonly hChunk: GPUBuffer;
  private readonly logitsChunk: GPUBuffer;
  private gatherBuf: GPUBuffer | null = null;

  private constructor(
    private readonly rt: GpuRuntime,
    private readonly pipeline: Kernel,
    readonly opts: Required<ChunkedLogprobsOptions>,
  ) {
    const { V, C, chunkRows } = opts;
    this.hChunk = rt.storage(chunkRows * C * 4, `logprobs hidden chunk [${chunkRows}, ${C}]`);
    this.logitsChunk = rt.storage(chunkRows * V * 4, `logprobs logits chunk [${chunkRows}, ${V}]`);
  }

  static async create(rt: GpuRuntime, opts: ChunkedLogprobsOptions): Promise<ChunkedLogprobs> {
    const o: Required<ChunkedLogprobsOptions> = { chunkRows: LOGPROB_CHUNK_ROWS, wg: rowWorkgroupSize(rt.report), ...opts };
    for (const k of ['V', 'C', 'chunkRows', 'wg'] as const) {
      if (!Number.isInteger(o[k]) || o[k] <= 0) throw new ShapeError('logprobs', `${k} a positive integer`, `${k}=${o[k]}`);
    }
    if ((o.wg & (o.wg - 1)) !== 0) throw new ShapeError('logprobs', 'a power-of-two workgroup size', `wg=${o.wg}`);
    // V a multiple of 4 (every real vocabulary): the vec4 two-read form; any other V the one-pass form.
    const pipeline = await rt.kernel({ shader: 'logprobs', entry: o.V % 4 === 0 ? 'logprobs_rows4' : 'logprobs_rows', overrides: { WG: o.wg } });
    return new ChunkedLogprobs(rt, pipeline, o);
  }

  /**
   * Records logp[r] = log softmax(logits_r / T)[targets[r]] and entropy[r] for r < M, where
   * logits_r = LM head of H row r, computed chunkRows rows at a time.
   */
  run(H: GPUBuffer, targets: GPUBuffer, M: number, logp: GPUBuffer, entropy: GPUBuffer, logits: LogitsFn, temperature = 1): void {
    const { C, chunkRows } = this.opts;
    if (H.size < M * C * 4) throw new ShapeError('logprobs', `H of [${M}, ${C}] f32 (${M * C * 4} bytes)`, `${H.size} bytes (${H.label})`);
    this.checkOutputs(targets, M, logp, entropy);
    for (let r0 = 0; r0 < M; r0 += chunkRows) {
      const n = Math.min(chunkRows, M - r0);
      this.rt.copy(H, r0 * C * 4, this.hChunk, 0, n * C * 4);
      logits(this.hChunk, n, this.logitsChunk);
      this.reduce(this.logitsChunk, n, r0, targets, logp, entropy, temperature);
    }
  }

  /**
   * Records the reduction alone for logits [N, V] already on the GPU (rows r0..r0+N-1 of the
   * targets / outputs): e.g. the [B, V] logits of generation.
   */
  reduce(logitsBuf: GPUBuffer, N: number, r0: number, targets: GPUBuffer, logp: GPUBuffer, entropy: GPUBuffer, temperature = 1): void {
    const { V } = this.opts;
    if (logitsBuf.size < N * V * 4) throw new ShapeError('logprobs', `logits of [${N}, ${V}] f32 (${N * V * 4} bytes)`, `${logitsBuf.size} bytes (${logitsBuf.label})`);
    this.checkOutputs(targets, r0 + N, logp, entropy);
    if (!(temperature > 0)) throw new ShapeError('logprobs', 'temperature > 0', `${temperature}`);
    if (N === 0) return;
    this.u32.set([N, V, r0]);
    this.f32[3] = 1 / temperature;
    this.rt.dispatch(this.pipeline, [logitsBuf, targets, logp, entropy], new Uint8Array(this.uniforms), { x: N });
  }

  /**
   * Records out [R, V] = logits of rows `rows` of H [M, C] (R = rows.length), e.g. the last
   * row of each sequence (KvCache.append's lastRow) for sampling. Rows must be valid. `logits`
   * may write rows of another size (rowBytes): the LM head fused with sampling writes partials.
   */
  gatherLogits(H: GPUBuffer, rows: ArrayLike<number>, out: GPUBuffer, logits: LogitsFn, rowBytes = this.opts.V * 4): void {
    const { C, V } = this.opts;
    const R = rows.length;
    if (out.size < R * rowBytes) throw new ShapeError('logprobs.gatherLogits', `out of ${R} rows of ${rowBytes} bytes (${V} logits: ${V * 4})`, `${out.size} bytes (${out.label})`);
    const M = H.size / (C * 4);
    for (let i = 0; i < R; i++) {
      if (!Number.isInteger(rows[i]) || rows[i] < 0 || rows[i] >= M) {
        throw new ShapeError('logprobs.gatherLogits', `row indices in [0, ${Math.floor(M)}) of H [M, ${C}]`, `rows[${i}] = ${rows[i]}`);
      }
    }
    if (R === 0) return;
    if (!this.gatherBuf || this.gatherBuf.size < R * C * 4) {
      if (this.gatherBuf) this.rt.release(this.gatherBuf);
      this.gatherBuf = this.rt.storage(R * C * 4, `logprobs gathered rows [${R}, ${C}]`);
    }
    for (let i = 0; i < R; i++) this.rt.copy(H, rows[i] * C * 4, this.gatherBuf, i * C * 4, C * 4);
    logits(this.gatherBuf, R, out);
  }

  /** Bytes of the scratch buffers (the chunk of hidden rows and of logits). */
  get scratchBytes(): number {
    return this.hChunk.size + this.logitsChunk.size + (this.gatherBuf?.size ?? 0);
  }

  destroy(): void {
    this.rt.release(this.hChunk, this.logitsChunk);
    if (this.gatherBuf) this.rt.release(this.gatherBuf);
    this.gatherBuf = null;
  }

  private checkOutputs(targets: GPUBuffer, rows: number, logp: GPUBuffer, entropy: GPUBuffer): void {
    if (targets.size < rows * 4) throw new ShapeError('logprobs', `targets of [${rows}] u32 (${rows * 4} bytes)`, `${targets.size} bytes (${targets.label})`);
    if (logp.size < rows * 4) throw new ShapeError('logprobs', `logp of [${rows}] f32 (${rows * 4} bytes)`, `${logp.size} bytes (${logp.label})`);
    if (entropy.size < rows * 4) throw new ShapeError('logprobs', `entropy of [${rows}] f32 (${rows * 4} bytes)`, `${entropy.size} bytes (${entropy.label})`);
  }
}
