// The trainer the SFT command and the GRPO loop build on: the trainable parameters (a LoRA
// adapter, fresh from a seed or loaded, or every weight in full mode), the TrainStep, and the
// TrainOptimizer, with the SFT update (masked cross-entropy over a batch, accumulated over
// micro-batches) and the host export of what was trained. Tested by
// tests/unit/train/train-step-goldens.test.ts and train-step-overfit.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from '../model/gpu/model';
import type { LoraConfig, LoraWeights, TensorMap } from '../model/types';
import { countTokens, masked_ce } from '../reference/loss';
import { GpuLoraParams, type GroupSlot } from './lora-params';
import { loraFromParams, loraParams } from './checkpoint';
import { GpuFullParams } from './full-params';
import { packedRows, TrainStep, type StepResult, type Trainable, type TrainBatch } from './train-step';
import { TrainOptimizer, type OptimizerConfig, type UpdateStats } from './optimizer';
import { ValueHeadParams } from './value-head-params';
import type { LrSchedule } from '../reference/adamw';

export interface TrainerConfig {
  /**
   * What to train: a fresh LoRA adapter (PEFT init from `seed`), a loaded one (`adapter`, e.g.
   * readPeftAdapter's), or every weight ('full': the model must be f32 with no adapter).
   */
  params: { mode: 'lora'; config: LoraConfig; seed: number } | { mode: 'lora'; adapter: LoraWeights } | { mode: 'full' };
  /** AdamW, clipping and LR schedule (optimizer.ts OptimizerConfig; schedule required). */
  optimizer: Partial<OptimizerConfig> & { schedule: LrSchedule };
  /** Recompute each layer's activations in the backward (less memory, about 30 % more time). */
  recompute?: boolean;
  /** Most rows (tokens) per forward/backward pass (default the model's maxRows). */
  maxRows?: number;
  /** PPO: also train a value head (w [C], b [1]) seeded with this number, in checkpoints as value_head.*. */
  valueHeadSeed?: number;
}

/** One SFT example: token ids and a mask per log-prob row ([T-1]: 1 = learn ids[t+1]). */
export interface SftExample {
  ids: number[];
  mask: ArrayLike<number>;
}

export interface SftStats extends UpdateStats {
  /** Masked cross-entropy of the batch before the update (mean over trained tokens). */
  loss: number;
  /** Trained tokens (sum of the masks). */
  nTokens: number;
}

export class Trainer {
  private constructor(readonly model: GpuModel, readonly trainable: Trainable, readonly step: TrainStep, readonly optimizer: TrainOptimizer,
    /** PPO's value head (TrainerConfig.valueHeadSeed), trained by the same optimizer. */
    readonly valueHead: ValueHeadParams | null) {}

  static async create(rt: GpuRuntime, model: GpuModel, cfg: TrainerConfig): Promise<Trainer> {
    const p = cfg.params;
    let trainable: Trainable;
    if (p.mode === 'full') trainable = { mode: 'full', params: GpuFullParams.create(rt, model) };
    else if ('adapter' in p) trainable = { mode: 'lora', params: GpuLoraParams.fromHost(rt, model.cfg, p.adapter) };
    else trainable = { mode: 'lora', params: GpuLoraParams.init(rt, model.cfg, p.config, p.seed) };
    const valueHead = cfg.valueHeadSeed === undefined ? null : ValueHeadParams.init(rt, model.cfg.hiddenSize, cfg.valueHeadSeed);
    try {
      const step = await TrainStep.create(rt, model, trainable, { recompute: cfg.recompute, maxRows: cfg.maxRows });
      const optimizer = await TrainOptimizer.create(rt, [...trainable.params.optimParams(), ...(valueHead?.optimParams() ?? [])], cfg.optimizer);
      return new Trainer(model, trainable, step, optimizer, valueHead);
    } catch (e) {
      trainable.params.dispose();
      valueHead?.dispose();
      throw e;
    }
  }

  /** Forward + backward of one micro-batch, gradients accumulated (+=); see TrainStep.run. */
  accumulate(batch: TrainBatch): Promise<StepResult> {
    return this.step.run(batch);
  }

  /** Log-probs and entropies only (no gradient); adapter false = the reference policy. */
  logprobs(seqs: number[][], adapter = true, temperature = 1): Promise<StepResult> {
    return this.step.run({ seqs, dlogp: null, adapter, temperature });
  }

  /**
   * The log-probs of `seqs` left on the GPU: a new f32 buffer of packedRows(seqs) rows (each
   * sequence's T_b rows in order, row t scoring token t+1; the last row of each is padding).
   * With `lossRows` (per sequence [T_b - 1]) only those rows are computed, the others are 0
   * (TrainBatch.lossRows). Nothing is read back; the caller releases the buffer.
   */
  async logprobsOnGpu(seqs: number[][], adapter = true, temperature = 1, label = 'log-probs', lossRows: ArrayLike<number>[] | null = null): Promise<GPUBuffer> {
    const buf = this.step.rt.storage(Math.max(1, packedRows(seqs)) * 4, label);
    try {
      await this.step.run({ seqs, dlogp: null, adapter, temperature, logprobsTo: buf, lossRows });
      return buf;
    } catch (e) {
      this.step.rt.release(buf);
      throw e;
    }
  }

  /**
   * One SFT update: loss = -sum(mask logp) / sum(mask) over the whole batch, accumulated over
   * micro-batches of `microBatch` examples (dlogp = -mask / nTokens of the whole batch), then
   * one optimizer update. The loss is computed from the forward's log-probs.
   */
  async sftStep(examples: SftExample[], microBatch = examples.length): Promise<SftStats> {
    if (examples.length === 0) throw new Error('sftStep: empty batch');
    if (!(Number.isInteger(microBatch) && microBatch > 0)) throw new Error(`sftStep: microBatch must be a positive integer, got ${microBatch}`);
    const masks = examples.map((e) => e.mask);
    const nTokens = countTokens(masks);
    let loss = 0;
    for (let i = 0; i < examples.length; i += microBatch) {
      const mb = examples.slice(i, i + microBatch);
      const mbMasks = masks.slice(i, i + microBatch);
      const zeros = mb.map((e) => new Float32Array(e.ids.length - 1));
      // dlogp does not depend on logp: -mask / nTokens.
      const { dlogp } = masked_ce(zeros, mbMasks, nTokens);
      // The LM head runs on the masked rows only (the loss reads no other log-prob).
      const r = await this.step.run({ seqs: mb.map((e) => e.ids), dlogp, lossRows: mbMasks });
      loss += masked_ce(r.logprobs, mbMasks, nTokens).loss;
    }
    const u = await this.optimizer.update();
    return { ...u, loss, nTokens };
  }

  /** The adapter as trained (PEFT layout), for export and checkpoints. */
  exportLora(): Promise<LoraWeights> {
    if (this.trainable.mode !== 'lora') throw new Error('exportLora: this trainer trains every weight (full mode); use exportFull');
    return this.trainable.params.toHost();
  }

  /** Every weight as trained (Hugging Face names), full mode. */
  exportFull(): Promise<TensorMap> {
    if (this.trainable.mode !== 'full') throw new Error('exportFull: this trainer trains a LoRA adapter; use exportLora');
    return this.trainable.params.toHost();
  }

  /**
   * The trainable tensors and AdamW moments named as a checkpoint stores them (checkpoint.ts
   * TrainState.params / adam): PEFT keys in LoRA mode, Hugging Face names in full mode.
   */
  async state(): Promise<{ params: TensorMap; adam: { m: TensorMap; v: TensorMap; t: number } }> {
    const st = await this.trainableState();
    const vh = this.valueHead, o = this.optimizer;
    if (vh) {
      for (const [k, x] of await vh.read((_n, p) => p)) st.params.set(k, x);
      for (const [k, x] of await vh.read((n) => o.moments(n).m)) st.adam.m.set(k, x);
      for (const [k, x] of await vh.read((n) => o.moments(n).v)) st.adam.v.set(k, x);
    }
    return st;
  }

  private async trainableState(): Promise<{ params: TensorMap; adam: { m: TensorMap; v: TensorMap; t: number } }> {
    const t = this.optimizer.step;
    const cfg = this.model.cfg;
    if (this.trainable.mode === 'full') {
      const p = this.trainable.params, o = this.optimizer;
      return { params: await p.toHost(), adam: { m: await p.read((x) => o.moments(x.name).m), v: await p.read((x) => o.moments(x.name).v), t } };
    }
    const p = this.trainable.params;
    const asPeft = async (pick: (s: GroupSlot) => [GPUBuffer, GPUBuffer]) => {
      const pairs = new Map<string, { A: Float32Array; B: Float32Array }>();
      await p.unpack(pick, (key, A, B) => pairs.set(key, { A, B }));
      return loraParams({ config: p.config, pairs }, cfg);
    };
    const mom = (which: 'm' | 'v') => (s: GroupSlot): [GPUBuffer, GPUBuffer] =>
      [this.optimizer.moments(`${s.name}.lora_A`)[which], this.optimizer.moments(`${s.name}.lora_B`)[which]];
    return { params: await asPeft((s) => [s.lora.A, s.lora.B]), adam: { m: await asPeft(mom('m')), v: await asPeft(mom('v')), t } };
  }

  /** Restores what state() returned (checkpoint resume); empty moments (t = 0) leave them zero. */
  restore(st: { params: TensorMap; adam: { m: TensorMap; v: TensorMap; t: number } }): void {
    const cfg = this.model.cfg;
    if (this.trainable.mode === 'full') {
      const p = this.trainable.params, o = this.optimizer;
      p.load(st.params);
      if (st.adam.m.size) p.write((x) => o.moments(x.name).m, st.adam.m);
      if (st.adam.v.size) p.write((x) => o.moments(x.name).v, st.adam.v);
    } else {
      const p = this.trainable.params;
      const pairs = (t: TensorMap) => loraFromParams(t, p.config, cfg).pairs;
      p.load(loraFromParams(st.params, p.config, cfg));
      const mom = (which: 'm' | 'v') => (s: GroupSlot): [GPUBuffer, GPUBuffer] =>
        [this.optimizer.moments(`${s.name}.lora_A`)[which], this.optimizer.moments(`${s.name}.lora_B`)[which]];
      if (st.adam.m.size) p.pack(mom('m'), pairs(st.adam.m));
      if (st.adam.v.size) p.pack(mom('v'), pairs(st.adam.v));
    }
    const vh = this.valueHead, o = this.optimizer;
    if (vh) {
      vh.write((_n, p) => p, st.params);
      if (st.adam.m.size) vh.write((n) => o.moments(n).m, st.adam.m);
      if (st.adam.v.size) vh.write((n) => o.moments(n).v, st.adam.v);
    }
    this.optimizer.step = st.adam.t;
  }

  /** Releases the step, optimizer state and gradients (and the LoRA parameters; the model keeps its weights). */
  async dispose(): Promise<void> {
    this.step.dispose();
    this.optimizer.dispose();
    if (this.trainable.mode === 'lora') await this.model.useLora(null);
    this.trainable.params.dispose();
    this.valueHead?.dispose();
  }
}
