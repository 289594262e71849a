// Launcher for the sampling kernels: one token per row of logits [B, V] on the GPU (greedy,
// temperature, top-k, top-p, seeded), so only [B] ids and [B] log-probs are read back, in one
// readback. Without top-k / top-p (greedy or plain temperature) the rows are split into chunks
// (shaders/sample_part.wgsl, then sample_merge.wgsl: one read of the logits, every chunk its own
// workgroup); with them, one workgroup per row searches the thresholds (shaders/sampling.wgsl).
// runFused merges the partials the LM head wrote itself (Linear.runSample, linear_sample.wgsl).
// CPU twin: src/reference/sampling.ts. Tested by tests/unit/gpu/sampling-kernel.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { rowWorkgroupSize } from '../device';
import type { SamplingParams } from '../../reference/sampling';
import { samplePartialBytes, type SampleEpilogue } from './linear';

export type { SamplingParams } from '../../reference/sampling';

export interface SamplerOptions {
  /** V */
  V: number;
  /** Invocations per workgroup, a power of two (default rowWorkgroupSize: 4 on CPU adapters, 64 on GPUs). */
  wg?: number;
  /** Logits per chunk of the split form (default 1024). */
  chunk?: number;
  /** Draws without top-k / top-p in chunks (default true); false: one workgroup per row as with them. */
  split?: boolean;
}

export interface SampledTokens {
  ids: Uint32Array;
  /** log softmax(logits / T)[id] over the full vocabulary (T = 1 when greedy). */
  logprobs: Float32Array;
}

/** Bytes of the output buffer for B rows: [B] u32 ids then [B] f32 log-probs. */
export function samplerOutBytes(B: number): number {
  return 8 * B;
}

export class Sampler {
  private readonly uniforms = new ArrayBuffer(48);
  private readonly u32 = new Uint32Array(this.uniforms);
  private readonly f32 = new Float32Array(this.uniforms);
  /** [B, nChunks] vec4 partials of the split form, grown as needed. */
  private part: GPUBuffer | null = null;

  private constructor(
    private readonly rt: GpuRuntime,
    private readonly pipeline: Kernel,
    private readonly partPipeline: Kernel,
    private readonly mergePipeline: Kernel,
    private readonly fusedMergePipeline: Kernel,
    readonly opts: Required<SamplerOptions>,
  ) {}

  static async create(rt: GpuRuntime, opts: SamplerOptions): Promise<Sampler> {
    const o: Required<SamplerOptions> = { wg: rowWorkgroupSize(rt.report), chunk: 1024, split: true, ...opts };
    if (!Number.isInteger(o.V) || o.V <= 0) throw new ShapeError('sample', 'V a positive integer', `V=${o.V}`);
    if ((o.wg & (o.wg - 1)) !== 0 || o.wg <= 0) throw new ShapeError('sample', 'a power-of-two workgroup size', `wg=${o.wg}`);
    if (!Number.isInteger(o.chunk) || o.chunk <= 0) throw new ShapeError('sample', 'chunk a positive integer', `chunk=${o.chunk}`);
    const overrides = { WG: o.wg };
    const pipeline = await rt.kernel({ shader: 'sampling', entry: 'sample_rows', overrides });
    const part = await rt.kernel({ shader: 'sample_part', entry: 'sample_part', overrides });
    const merge = await rt.kernel({ shader: 'sample_merge', entry: 'sample_merge', overrides });
    const fused = await rt.kernel({ shader: 'sample_merge', entry: 'sample_merge', overrides: { ...overrides, FUSED: 1 } });
    return new Sampler(rt, pipeline, part, merge, fused, o);
  }

  /** Releases the partials buffer (the pipelines stay cached in the runtime). */
  destroy(): void {
    if (this.part) this.rt.release(this.part);
    this.part = null;
  }

  /**
   * Records: out [2B] = sampled ids of logits [B, V], then their log-probs as f32 bits. With
   * params.keys, `keys` holds them as rowKeyPairs wrote them ([2B] f32), on the queue before this.
   */
  run(logits: GPUBuffer, B: number, out: GPUBuffer, params: SamplingParams, keys: GPUBuffer | null = null): void {
    const { V } = this.opts;
    if (logits.size < B * V * 4) throw new ShapeError('sample', `logits of [${B}, ${V}] f32 (${B * V * 4} bytes)`, `${logits.size} bytes (${logits.label})`);
    const { topK, topP, seed, step } = params;
    const { greedy, invT } = this.check(B, out, params, keys);
    if (B === 0) return;
    // Unkeyed, the kernels read a pair at index 0 of a stand-in (the logits) and ignore it.
    const k = keys ?? logits, keyed = keys ? 1 : 0;
    if (this.fuses(params)) {
      const nChunks = Math.ceil(V / this.opts.chunk);
      this.u32.set([B, V, greedy ? 1 : 0, seed, step, 0, this.opts.chunk, nChunks, keyed]);
      this.f32[5] = invT;
      const part = this.partials(B * nChunks * 16);
      const u = new Uint8Array(this.uniforms, 0, 36);
      this.rt.dispatch(this.partPipeline, [logits, part], u, { x: nChunks, y: B }, [k]);
      this.rt.dispatch(this.mergePipeline, [logits, part, out], u, { x: B }, [k]);
      return;
    }
    this.u32.set([B, V, topK, greedy ? 1 : 0, seed, step, 0, 0, keyed]);
    this.f32[6] = invT;
    this.f32[7] = topP;
    this.rt.dispatch(this.pipeline, [logits, out], new Uint8Array(this.uniforms, 0, 36), { x: B }, [k]);
  }

  /**
   * True when these parameters draw without top-k / top-p (greedy or plain temperature) and the
   * split form is on: then the LM head can write the partials itself (Linear.runSample) and
   * runFused draws from them.
   */
  fuses(params: SamplingParams): boolean {
    return this.opts.split && (params.topK === 0 || params.topK >= this.opts.V) && params.topP >= 1;
  }

  /** The LM head's part of fused sampling (Linear.runSample's SampleEpilogue) for these parameters and keys (as run()). */
  epilogue(params: SamplingParams, keys: GPUBuffer | null = null): SampleEpilogue {
    if (params.keys && !keys) throw new Error('sample (fused): the parameters carry per-row keys; pass their buffer (rowKeyPairs) as well');
    const greedy = params.temperature === 0;
    return { invT: greedy ? 1 : 1 / params.temperature, seed: params.seed, step: params.step, greedy, keys };
  }

  /**
   * Records: out [2B] = the tokens and log-probs drawn from the partials [B, ceil(V / group)] vec4
   * that Linear.runSample wrote for the same parameters (`group`: the columns per partial it
   * returned; the same draws as run() on the logits of the LM head's variant, the log-probs within
   * rounding).
   */
  runFused(part: GPUBuffer, B: number, out: GPUBuffer, params: SamplingParams, group = 8, keys: GPUBuffer | null = null): void {
    const { V } = this.opts;
    const nChunks = Math.ceil(V / group), bytes = samplePartialBytes(B, V, group);
    if (!this.fuses(params)) throw new ShapeError('sample (fused)', 'no top-k / top-p and the split form (Sampler.fuses)', `topK=${params.topK} topP=${params.topP} split=${this.opts.split}`);
    if (!Number.isInteger(group) || group < 1) throw new ShapeError('sample (fused)', 'group (columns per partial) an integer >= 1', `${group}`);
    if (part.size < bytes) throw new ShapeError('sample (fused)', `partials of [${B}, ${nChunks}] vec4 (${bytes} bytes)`, `${part.size} bytes (${part.label})`);
    const { greedy, invT } = this.check(B, out, params, keys);
    if (B === 0) return;
    this.u32.set([B, V, greedy ? 1 : 0, params.seed, params.step, 0, group, nChunks, keys ? 1 : 0]);
    this.f32[5] = invT;
    this.rt.dispatch(this.fusedMergePipeline, [part, part, out], new Uint8Array(this.uniforms, 0, 36), { x: B }, [keys ?? part]);
  }

  /** Checks the parameters and sizes of one draw of B rows. */
  private check(B: number, out: GPUBuffer, params: SamplingParams, keys: GPUBuffer | null): { greedy: boolean; invT: number } {
    if (out.size < samplerOutBytes(B)) throw new ShapeError('sample', `out of [2 * ${B}] u32 (${samplerOutBytes(B)} bytes)`, `${out.size} bytes (${out.label})`);
    const { temperature, topK, topP, seed, step } = params;
    if (!(temperature >= 0) || !Number.isFinite(temperature)) throw new ShapeError('sample', 'temperature >= 0 (0: greedy)', `${temperature}`);
    if (!Number.isInteger(topK) || topK < 0) throw new ShapeError('sample', 'topK an integer >= 0 (0: off)', `${topK}`);
    if (!(topP > 0 && topP <= 1)) throw new ShapeError('sample', 'topP in (0, 1] (1: off)', `${topP}`);
    for (const [k, v] of [['seed', seed], ['step', step]] as const) {
      if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new ShapeError('sample', `${k} a u32`, `${v}`);
    }
    if (params.keys && !keys) throw new Error('sample: the parameters carry per-row keys; pass their buffer (rowKeyPairs) as well');
    if (keys && keys.size < 8 * B) throw new ShapeError('sample', `keys of [2 * ${B}] f32 (${8 * B} bytes)`, `${keys.size} bytes (${keys.label})`);
    const max = this.rt.device.limits.maxComputeWorkgroupsPerDimension;
    if (B > max) throw new ShapeError('sample', `at most ${max} rows per dispatch`, `B=${B}`);
    const greedy = temperature === 0;
    return { greedy, invT: greedy ? 1 : 1 / temperature };
  }

  private partials(bytes: number): GPUBuffer {
    if (!this.part || this.part.size < bytes) {
      if (this.part) this.rt.release(this.part);
      this.part = this.rt.storage(bytes, 'sampling chunk partials');
    }
    return this.part;
  }

  /** Submits pending work and reads the B sampled ids and log-probs (one readback). */
  async read(out: GPUBuffer, B: number): Promise<SampledTokens> {
    const bytes = await this.rt.read(out, samplerOutBytes(B));
    return { ids: new Uint32Array(bytes, 0, B).slice(), logprobs: new Float32Array(bytes, 4 * B, B).slice() };
  }
}
