// The decoder on the GPU (the engine's spine for inference): weights (f32 or NF4), LoRA
// switchable at run time, and the forward pass of one step's packed rows over a KV cache:
// per layer qkv(+bias,+LoRA) -> rope + cache write -> attention -> o (+= residual) -> norm ->
// gate|up + SiLU -> down (+= residual) -> norm: 8 dispatches per layer without LoRA.
// Also batched log-probs/entropy of given sequences, chunked so [B, T, V] logits never exist.
// CPU twin: src/reference/model.ts. Tested by tests/unit/model/model-gpu.test.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import { Linear, SAMPLE_GROUP, type LinearLora, type LinearSpec, type LinearVariant, type LinearWeight } from '../../gpu/kernels/linear';
import { TUNE_SLICE_ROWS, firstRows, isTuned, rememberedVariants, tuneLinear } from '../../gpu/kernels/linear-tune';
import { Embedding } from '../../gpu/kernels/embedding';
import { RmsNorm } from '../../gpu/kernels/rmsnorm';
import { QkvRope } from '../../gpu/kernels/rope';
import { Attention, defaultAttentionVariant } from '../../gpu/kernels/attention';
import { ChunkedLogprobs, LOGPROB_CHUNK_ROWS, type LogitsFn } from '../../gpu/kernels/logprobs';
import { Sampler, type SamplingParams } from '../../gpu/kernels/sampling';
import { KvCache, type StepRows } from '../../gpu/kv-cache';
import { uploadWeights, type GpuWeights, type QuantOptions, type TensorReader, type UploadProgress } from './upload';
import { GROUPS, LINEAR_GROUPS, uploadLoraGroup, type LinearGroup } from './lora-upload';
import { LoraMerge } from '../../gpu/kernels/lora-merge';
import { stepActRows, stepActWidths, type StepAct } from './step-acts';
import type { LoraWeights, ModelConfig } from '../types';

/** The LM head fused with sampling for one draw (GpuModel.fusedHead). */
export interface FusedHead {
  /** Records the partials of rows row0 .. row0 + rows - 1 of the draw, X holding those rows from its row 0. */
  head: (X: GPUBuffer, rows: number, part: GPUBuffer, row0: number) => void;
  /** Columns per partial (samplePartialBytes, Sampler.runFused). */
  group: number;
}

export interface GpuModelOptions extends QuantOptions {
  lora?: LoraWeights | null;
  /** Rows of the logits scratch for log-probs ([chunkRows, V]); default LOGPROB_CHUNK_ROWS (32). */
  chunkRows?: number;
  /** Most rows (tokens) one forward step processes; longer batches are split. Default 512. */
  maxRows?: number;
  /**
   * Measure the linear-layer kernel variants on this adapter the first time (remembered per
   * adapter afterwards). Default true; false uses the remembered or default choices.
   */
  tune?: boolean;
  onProgress?: UploadProgress;
}

interface LayerOps {
  qkv: Linear;
  o: Linear;
  gateUp: Linear;
  down: Linear;
}

/** Activations of one step, sized for `rows` rows. */
interface Activations {
  rows: number;
  ids: GPUBuffer;   // [M] u32
  table: GPUBuffer; // [M, 2] u32 (sequence slot, position)
  x: GPUBuffer;     // [M, C] residual stream
  h: GPUBuffer;     // [M, C] normed
  qkv: GPUBuffer;   // [M, (NH + 2 KVH) HS]
  q: GPUBuffer;     // [M, NH, HS]
  o: GPUBuffer;     // [M, NH HS]
  g: GPUBuffer;     // [M, I]
}

/**
 * Times the linear kernel variants once per adapter, weight format and shape class in use (on
 * layer 0's projections and the LM head), unless the choices are already remembered.
 */
async function tuneFormats(rt: GpuRuntime, cfg: ModelConfig, w: GpuWeights, onProgress?: UploadProgress): Promise<void> {
  const l0 = w.layers[0];
  if (!l0) return;
  const C = cfg.hiddenSize, I = cfg.intermediateSize, NQ = cfg.numHeads * cfg.headDim, NKV = cfg.numKvHeads * cfg.headDim;
  const specs: LinearSpec[] = [
    { label: 'tuning gate_up', K: C, N: I, weight: l0.gateUp, swiglu: true },
    { label: 'tuning down', K: I, N: C, weight: l0.down },
    { label: 'tuning qkv', K: C, N: NQ + 2 * NKV, weight: l0.qkv },
    { label: 'tuning o', K: NQ, N: C, weight: l0.o },
    { label: 'tuning lm_head', K: C, N: cfg.vocabSize, weight: w.lmHead },
  ];
  for (const [i, spec] of specs.entries()) {
    const NW = spec.swiglu ? 2 * spec.N : spec.N;
    if (isTuned(rt, spec.weight.format, spec.K, NW, spec.swiglu)) continue;
    onProgress?.(i, specs.length, `timing kernel variants for this GPU (once): ${spec.label.replace('tuning ', '')}`);
    // A wide weight (the LM head) is timed on its first rows (row-major in both formats).
    const slice = !spec.swiglu && NW > TUNE_SLICE_ROWS;
    const lin = await Linear.create(rt, slice ? { ...spec, N: TUNE_SLICE_ROWS, weight: firstRows(spec.weight, TUNE_SLICE_ROWS) } : spec);
    try {
      await tuneLinear(rt, lin, slice ? { familyNW: NW } : {});
    } finally {
      lin.dispose();
    }
  }
}

export class GpuModel {
  readonly sampler: Sampler;
  readonly logprobsOp: ChunkedLogprobs;
  readonly lmHeadFn: LogitsFn;
  /** Sampling fuses into the LM head where it can (fusedHead); false: always logits, then the sampler. */
  fuseSampling = true;
  /** Decode sessions record the next step while a step's samples are read back (DecodeSession); false: never. */
  lookAhead = true;
  readonly maxRows: number;
  private acts: Activations | null = null;
  private readonly loraBuffers: GPUBuffer[] = [];
  private loraOn: boolean;
  private loraAttached: boolean;
  private readonly mergedBufs: GPUBuffer[] = [];
  private merger: LoraMerge | null = null;
  /** Merges done by mergeLora (a rollout collection does one). */
  loraMerges = 0;

  private constructor(
    private readonly rt: GpuRuntime,
    readonly cfg: ModelConfig,
    readonly weights: GpuWeights,
    private readonly layers: LayerOps[],
    private readonly embedding: Embedding,
    private readonly norm: RmsNorm,
    private readonly rope: QkvRope,
    private readonly attention: Attention,
    private readonly lmHead: Linear,
    logprobsOp: ChunkedLogprobs,
    sampler: Sampler,
    hasLora: boolean,
    maxRows: number,
  ) {
    this.logprobsOp = logprobsOp;
    this.sampler = sampler;
    this.maxRows = maxRows;
    this.loraAttached = hasLora;
    this.loraOn = hasLora;
    this.lmHeadFn = (X, rows, logits) => this.lmHead.run(X, logits, rows);
  }

  static async load(rt: GpuRuntime, cfg: ModelConfig, src: TensorReader, opts: GpuModelOptions): Promise<GpuModel> {
    const w = await uploadWeights(rt, cfg, src, opts, opts.onProgress);
    const loraBuffers: GPUBuffer[] = [];
    try {
      const C = cfg.hiddenSize, I = cfg.intermediateSize, NQ = cfg.numHeads * cfg.headDim, NKV = cfg.numKvHeads * cfg.headDim;
      const lora = (i: number, g: LinearGroup) => (opts.lora ? uploadLoraGroup(rt, cfg, opts.lora, i, g, loraBuffers) : null);
      if (opts.tune ?? true) await tuneFormats(rt, cfg, w, opts.onProgress);
      const v = (weight: LinearWeight, K: number, NW: number, swiglu = false) => rememberedVariants(rt, weight.format, K, NW, swiglu);
      const layers: LayerOps[] = [];
      for (let i = 0; i < cfg.numLayers; i++) {
        const lw = w.layers[i];
        layers.push({
          qkv: await Linear.create(rt, { label: `layers.${i}.qkv`, K: C, N: NQ + 2 * NKV, weight: lw.qkv, bias: lw.qkvBias, lora: lora(i, 'qkv') }, v(lw.qkv, C, NQ + 2 * NKV)),
          o: await Linear.create(rt, { label: `layers.${i}.o`, K: NQ, N: C, weight: lw.o, lora: lora(i, 'o'), accumulate: true }, v(lw.o, NQ, C)),
          gateUp: await Linear.create(rt, { label: `layers.${i}.gate_up`, K: C, N: I, weight: lw.gateUp, swiglu: true, lora: lora(i, 'gateUp') }, v(lw.gateUp, C, 2 * I, true)),
          down: await Linear.create(rt, { label: `layers.${i}.down`, K: I, N: C, weight: lw.down, lora: lora(i, 'down'), accumulate: true }, v(lw.down, I, C)),
        });
      }
      const embedding = await Embedding.create(rt, w.embed, cfg.vocabSize, C);
      const norm = await RmsNorm.create(rt, C, cfg.rmsNormEps);
      const rope = await QkvRope.create(rt, { NH: cfg.numHeads, KVH: cfg.numKvHeads, HS: cfg.headDim, theta: cfg.ropeTheta, Tmax: cfg.maxPositions });
      const attention = await Attention.create(rt, { NH: cfg.numHeads, KVH: cfg.numKvHeads, HS: cfg.headDim, variant: defaultAttentionVariant(rt) });
      const lmHead = await Linear.create(rt, { label: 'lm_head', K: C, N: cfg.vocabSize, weight: w.lmHead }, v(w.lmHead, C, cfg.vocabSize));
      const lp = await ChunkedLogprobs.create(rt, { V: cfg.vocabSize, C, chunkRows: opts.chunkRows ?? LOGPROB_CHUNK_ROWS });
      const sampler = await Sampler.create(rt, { V: cfg.vocabSize });
      const model = new GpuModel(rt, cfg, w, layers, embedding, norm, rope, attention, lmHead, lp, sampler, loraBuffers.length > 0, opts.maxRows ?? 512);
      model.loraBuffers.push(...loraBuffers);
      return model;
    } catch (e) {
      rt.release(...w.buffers, ...loraBuffers);
      throw e;
    }
  }

  /**
   * The LM head fused with sampling for a draw of R rows (Linear.runSample: it writes the partials
   * Sampler.runFused reduces, never the logits), or null where it does not fuse: top-k / top-p,
   * fuseSampling off, or a head variant at R rows that has no fused form (SAMPLE_GROUP: dec, gemv,
   * sg). `head(X, rows, part, row0)` records rows row0.. of the draw (a pass of a split step) with
   * the draw's variant; `group` is the columns per partial, for the byte size and Sampler.runFused.
   * `keys`: the buffer of params.keys (Sampler.run).
   */
  fusedHead(R: number, params: SamplingParams, keys: GPUBuffer | null = null): FusedHead | null {
    const variant = this.lmHead.variantFor(R), group = SAMPLE_GROUP[variant];
    if (!this.fuseSampling || !this.sampler.fuses(params) || group === undefined) return null;
    const epilogue = this.sampler.epilogue(params, keys);
    // A pass runs the draw's variant whatever its own row count would pick: one partial layout.
    return { group, head: (X, rows, part, row0) => this.lmHead.runSample(X, part, rows, { ...epilogue, row0 }, variant) };
  }

  /** The LM head's kernel variant for a draw of R rows (bench figures). */
  lmHeadVariant(R: number): LinearVariant {
    return this.lmHead.variantFor(R);
  }

  /** An adapter is attached (at load or by useLora). */
  get hasLora(): boolean {
    return this.loraAttached;
  }

  /**
   * Attaches another adapter: `lora(layer, group)` gives each fused group's LinearLora, whose
   * buffers stay the caller's (a trainer's trainable A/B: the forward then reads the weights being
   * trained, no copy); null detaches. Releases the adapter uploaded at load, if any. LoRA is
   * enabled afterwards when attached.
   */
  async useLora(lora: ((layer: number, group: LinearGroup) => LinearLora | null) | null): Promise<void> {
    this.unmergeLora();
    // A lost device only needs its buffers let go (closing a run after a device loss).
    if (lora === null && this.rt.lost) {
      this.rt.release(...this.loraBuffers.splice(0));
      this.loraAttached = this.loraOn = false;
      return;
    }
    let any = false;
    for (const [i, l] of this.layers.entries()) {
      for (const g of Object.keys(GROUPS) as LinearGroup[]) {
        const old = l[g];
        const spec = { ...old.spec, lora: lora ? lora(i, g) : null };
        any ||= Boolean(spec.lora);
        l[g] = await Linear.create(this.rt, spec, old.variants);
        old.dispose();
      }
    }
    this.rt.release(...this.loraBuffers.splice(0));
    this.loraAttached = any;
    this.loraOn = any;
  }

  /** The forward runs merged weights (mergeLora) while LoRA is on. */
  get loraMerged(): boolean {
    return this.mergedBufs.length > 0;
  }

  /**
   * Folds the attached adapter into f32 copies of the adapted layers' weights (W + scale B A,
   * LoraMerge), which the forward then runs instead of W plus the LoRA path: one product per
   * linear, so fewer dispatches and flops per decoded token. For inference while the adapter
   * stays as it is (a batch of rollouts); call unmergeLora before the adapter changes. Outputs
   * differ from the separate path by float rounding only. Returns false, merging nothing, without
   * an adapter, with NF4 weights (the copy would be f32) or when the copies would exceed
   * MERGE_MAX_BYTES.
   */
  async mergeLora(): Promise<boolean> {
    this.unmergeLora();
    if (!this.hasLora || this.rt.lost) return false;
    const adapted = this.layers.flatMap((l) => LINEAR_GROUPS.map((g) => l[g]).filter((lin) => lin.spec.lora));
    if (!adapted.length) return false;
    this.merger ??= await LoraMerge.create(this.rt);
    const copies = this.merger.copies(adapted);
    if (!copies) return false;
    adapted.forEach((lin, i) => lin.useMergedWeight(copies[i]));
    this.mergedBufs.push(...copies);
    this.loraMerges++;
    return true;
  }

  /** Back to W plus the LoRA path (the adapter may change again); releases the merged copies. */
  unmergeLora(): void {
    if (!this.mergedBufs.length) return;
    for (const l of this.layers) for (const g of LINEAR_GROUPS) l[g].useMergedWeight(null);
    this.rt.release(...this.mergedBufs.splice(0));
  }

  /** LoRA on (the policy) or off (the base model = the reference policy for RL). */
  get loraEnabled(): boolean {
    return this.loraOn;
  }

  set loraEnabled(on: boolean) {
    this.loraOn = on && this.hasLora;
    for (const l of this.layers) for (const g of Object.keys(GROUPS) as LinearGroup[]) l[g].loraEnabled = this.loraOn;
  }

  /** A KV cache with B sequence slots of Tmax positions for this model. */
  newCache(B: number, Tmax: number): KvCache {
    if (Tmax > this.cfg.maxPositions) {
      throw new Error(`A sequence of ${Tmax} tokens is longer than this model's max_position_embeddings (${this.cfg.maxPositions}).`);
    }
    return new KvCache(this.rt, { numLayers: this.cfg.numLayers, B, KVH: this.cfg.numKvHeads, HS: this.cfg.headDim, Tmax });
  }

  /**
   * Records the forward pass of one step: `ids` [M] are the new tokens at the rows planned by
   * cache.append, from the host or already on the GPU (`{ gpu }`: M u32 ids from offset 0, e.g.
   * sampled by the step before). Returns the final-normed hidden states [M, C] (valid until the
   * next step).
   */
  forward(ids: ArrayLike<number> | { gpu: GPUBuffer }, step: StepRows, cache: KvCache): GPUBuffer {
    const M = step.M;
    const onGpu = 'gpu' in ids;
    const n = onGpu ? ids.gpu.size / 4 : ids.length;
    if (onGpu ? n < M : n !== M) throw new Error(`GpuModel.forward: ${n} ids for ${M} planned rows`);
    if (M > this.maxRows) throw new Error(`GpuModel.forward: ${M} rows exceed maxRows ${this.maxRows}; split the step`);
    const a = this.activations(M);
    if (onGpu) this.rt.copy(ids.gpu, 0, a.ids, 0, M * 4);
    else this.rt.write(a.ids, Uint32Array.from(ids));
    this.rt.write(a.table, step.rows);
    this.embedding.run(a.ids, a.x, M);
    const L = this.cfg.numLayers;
    this.norm.run(a.x, this.weights.layers[0].inputNorm, a.h, M);
    for (let l = 0; l < L; l++) {
      const op = this.layers[l], w = this.weights.layers[l];
      op.qkv.run(a.h, a.qkv, M);
      this.rope.run(a.qkv, a.table, a.q, cache, l, M);
      this.attention.run(a.q, a.table, cache, l, a.o, M);
      op.o.run(a.o, a.x, M, { accumulate: true });
      this.norm.run(a.x, w.postAttnNorm, a.h, M);
      op.gateUp.run(a.h, a.g, M);
      op.down.run(a.g, a.x, M, { accumulate: true });
      this.norm.run(a.x, l + 1 < L ? this.weights.layers[l + 1].inputNorm : this.weights.finalNorm, a.h, M);
    }
    return a.h;
  }

  /**
   * log p(seq[t+1] | seq[..t]) and the entropy of that distribution for every t < len - 1 of
   * every sequence, batched; chunked over rows so the logits never exist in full.
   */
  async logprobs(seqs: number[][]): Promise<{ logprobs: Float32Array[]; entropy: Float32Array[] }> {
    const out = { logprobs: [] as Float32Array[], entropy: [] as Float32Array[] };
    for (const [i, s] of seqs.entries()) {
      if (s.length > this.maxRows) throw new Error(`logprobs: sequence ${i} has ${s.length} tokens; the most one step handles is ${this.maxRows} (maxRows)`);
    }
    let start = 0;
    while (start < seqs.length) {
      let end = start, rows = 0;
      while (end < seqs.length && rows + seqs[end].length <= this.maxRows) rows += seqs[end++].length;
      const group = seqs.slice(start, end);
      const r = await this.logprobsGroup(group);
      out.logprobs.push(...r.logprobs);
      out.entropy.push(...r.entropy);
      start = end;
    }
    return out;
  }

  private async logprobsGroup(seqs: number[][]): Promise<{ logprobs: Float32Array[]; entropy: Float32Array[] }> {
    const lens = seqs.map((s) => s.length);
    const cache = this.newCache(seqs.length, Math.max(1, ...lens));
    const rt = this.rt;
    try {
      const step = cache.append(lens);
      const ids = seqs.flat();
      const targets = new Uint32Array(step.M);
      let r = 0;
      for (const s of seqs) for (let t = 0; t < s.length; t++, r++) targets[r] = t + 1 < s.length ? s[t + 1] : 0;
      const h = this.forward(ids, step, cache);
      const tBuf = rt.upload(targets, 'logprobs targets');
      const lpBuf = rt.storage(step.M * 4, 'logprobs out'), entBuf = rt.storage(step.M * 4, 'entropy out');
      this.logprobsOp.run(h, tBuf, step.M, lpBuf, entBuf, this.lmHeadFn);
      const lp = await rt.readF32(lpBuf, step.M), ent = await rt.readF32(entBuf, step.M);
      rt.release(tBuf, lpBuf, entBuf);
      const res = { logprobs: [] as Float32Array[], entropy: [] as Float32Array[] };
      let o = 0;
      for (const n of lens) {
        res.logprobs.push(lp.slice(o, o + Math.max(0, n - 1)));
        res.entropy.push(ent.slice(o, o + Math.max(0, n - 1)));
        o += n;
      }
      return res;
    } finally {
      cache.free();
    }
  }

  /** Bytes held by the weights (and adapter). */
  get weightBytes(): number {
    return [...this.weights.buffers, ...this.loraBuffers].reduce((n, b) => n + b.size, 0);
  }

  dispose(): void {
    this.unmergeLora();
    for (const l of this.layers) for (const g of Object.keys(GROUPS) as LinearGroup[]) l[g].dispose();
    this.lmHead.dispose();
    this.logprobsOp.destroy();
    this.sampler.destroy();
    this.rope.destroy();
    if (this.acts) this.releaseActs(this.acts);
    this.acts = null;
    this.rt.release(...this.weights.buffers, ...this.loraBuffers);
  }

  private activations(M: number): Activations {
    if (this.acts && this.acts.rows >= M) return this.acts;
    if (this.acts) this.releaseActs(this.acts);
    const rows = stepActRows(this.maxRows, M, this.acts?.rows);
    const w = stepActWidths(this.cfg);
    const s = (k: StepAct, label: string) => this.rt.storage(rows * w[k] * 4, `${label} [${rows}, ${w[k]}]`);
    // In STEP_ACTS order (the memory planner replays it).
    this.acts = {
      rows,
      ids: s('ids', 'ids'), table: s('table', 'row table'), x: s('x', 'residual'), h: s('h', 'normed'),
      qkv: s('qkv', 'qkv'), q: s('q', 'q'), o: s('o', 'attn out'), g: s('g', 'swiglu'),
    };
    return this.acts;
  }

  private releaseActs(a: Activations): void {
    this.rt.release(a.ids, a.table, a.x, a.h, a.qkv, a.q, a.o, a.g);
  }
}
