// Full-mode trainable parameters: every weight of an f32 GpuModel (embedding, norms, fused q|k|v
// with its bias, o, fused gate|up, down, lm_head when untied) is trained in place, one gradient
// buffer per weight buffer (a tied embedding has one, fed by the lookup and the LM head). Maps
// the fused buffers to Hugging Face tensors (TensorMap) both ways for export and checkpoints.
// Tested by tests/unit/train/train-step-goldens.test.ts (full-mode grads) and train-step-overfit.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { OptimParam } from '../gpu/kernels/adamw';
import type { LinearWeight } from '../gpu/kernels/linear';
import type { GpuModel } from '../model/gpu/model';
import { hfNames, projShape, type ModelConfig, type Projection, type TensorMap } from '../model/types';

/** One HF tensor inside a (possibly fused) buffer. */
interface Part { hf: string; shape: number[]; offset: number; size: number }

/** One trainable buffer: a weight of the model and its gradient. */
export interface FullParam {
  name: string;
  param: GPUBuffer;
  grad: GPUBuffer;
  size: number;
  /** Norm weights and biases get no weight decay (HF Trainer's groups). */
  decay: boolean;
  parts: Part[];
}

/** The gradient buffers of one layer, in the model's fused layout. */
export interface LayerGrads {
  inputNorm: GPUBuffer;
  postAttnNorm: GPUBuffer;
  qkv: GPUBuffer;
  qkvBias: GPUBuffer | null;
  o: GPUBuffer;
  gateUp: GPUBuffer;
  down: GPUBuffer;
}

function f32(w: LinearWeight, what: string): GPUBuffer {
  if (w.format !== 'f32') throw new Error(`full fine-tuning needs f32 weights, but ${what} is NF4; load the model with quant 'none' (and no quantEmbeddings), or train a LoRA adapter`);
  return w.W;
}

export class GpuFullParams {
  readonly tied: boolean;

  private constructor(
    private readonly rt: GpuRuntime,
    readonly cfg: ModelConfig,
    readonly params: FullParam[],
    readonly embed: GPUBuffer,
    readonly lmHead: GPUBuffer | null,
    readonly finalNorm: GPUBuffer,
    readonly layers: LayerGrads[],
  ) {
    this.tied = lmHead === null;
  }

  /** Gradients (zeroed) for every weight of `model`, whose own buffers become the parameters. */
  static create(rt: GpuRuntime, model: GpuModel): GpuFullParams {
    const cfg = model.cfg, w = model.weights;
    const C = cfg.hiddenSize, V = cfg.vocabSize;
    if (w.embed.format !== 'f32') throw new Error("full fine-tuning needs an f32 embedding; load the model without quantEmbeddings");
    const params: FullParam[] = [];
    const add = (name: string, param: GPUBuffer, decay: boolean, parts: Part[]): GPUBuffer => {
      const size = parts.reduce((n, p) => n + p.size, 0);
      const grad = rt.storage(size * 4, `${name} grad`);
      rt.write(grad, new Float32Array(size));
      params.push({ name, param, grad, size, decay, parts });
      return grad;
    };
    const one = (hf: string, shape: number[]): Part[] => [{ hf, shape, offset: 0, size: shape.reduce((a, b) => a * b, 1) }];
    const stacked = (names: [string, number[]][]): Part[] => {
      let offset = 0;
      return names.map(([hf, shape]) => {
        const size = shape.reduce((a, b) => a * b, 1);
        const p = { hf, shape, offset, size };
        offset += size;
        return p;
      });
    };
    const wte = w.embed.wte;
    const tied = w.lmHead.format === 'f32' && w.lmHead.W === wte;
    const embed = add(hfNames.embed, wte, true, one(hfNames.embed, [V, C]));
    const lmHead = tied ? null : add(hfNames.lmHead, f32(w.lmHead, hfNames.lmHead), true, one(hfNames.lmHead, [V, C]));
    const layers: LayerGrads[] = w.layers.map((lw, l) => {
      const proj = (p: Projection): [string, number[]] => [hfNames.proj(l, p), projShape(cfg, p)];
      const bias = (p: 'q' | 'k' | 'v'): [string, number[]] => [hfNames.bias(l, p), [projShape(cfg, p)[0]]];
      return {
        inputNorm: add(hfNames.inputNorm(l), lw.inputNorm, false, one(hfNames.inputNorm(l), [C])),
        postAttnNorm: add(hfNames.postAttnNorm(l), lw.postAttnNorm, false, one(hfNames.postAttnNorm(l), [C])),
        qkv: add(`layers.${l}.qkv_proj`, f32(lw.qkv, `layers.${l}.qkv_proj`), true, stacked([proj('q'), proj('k'), proj('v')])),
        qkvBias: lw.qkvBias ? add(`layers.${l}.qkv_proj.bias`, lw.qkvBias, false, stacked([bias('q'), bias('k'), bias('v')])) : null,
        o: add(hfNames.proj(l, 'o'), f32(lw.o, hfNames.proj(l, 'o')), true, one(...proj('o'))),
        gateUp: add(`layers.${l}.gate_up_proj`, f32(lw.gateUp, `layers.${l}.gate_up_proj`), true, stacked([proj('gate'), proj('up')])),
        down: add(hfNames.proj(l, 'down'), f32(lw.down, hfNames.proj(l, 'down')), true, one(...proj('down'))),
      };
    });
    const finalNorm = add(hfNames.finalNorm, w.finalNorm, false, one(hfNames.finalNorm, [C]));
    return new GpuFullParams(rt, cfg, params, embed, lmHead, finalNorm, layers);
  }

  /** One optimizer tensor per weight buffer; norms and biases with weight decay 0. */
  optimParams(): OptimParam[] {
    return this.params.map((p) => ({ name: p.name, param: p.param, grad: p.grad, size: p.size, weightDecay: p.decay ? undefined : 0 }));
  }

  get numParams(): number {
    return this.params.reduce((n, p) => n + p.size, 0);
  }

  /** Bytes of the gradients (the parameters are the model's weights). */
  get gradBytes(): number {
    return this.params.reduce((n, p) => n + p.grad.size, 0);
  }

  /** The weights as Hugging Face tensors (fused buffers split). */
  toHost(): Promise<TensorMap> {
    return this.read((p) => p.param);
  }

  /** The accumulated gradients as Hugging Face tensors (a tied embedding: both contributions). */
  gradsToHost(): Promise<TensorMap> {
    return this.read((p) => p.grad);
  }

  /** Reads buffers laid out like the parameters (params, grads, AdamW moments by param name). */
  async read(pick: (p: FullParam) => GPUBuffer): Promise<TensorMap> {
    const out: TensorMap = new Map();
    await Promise.all(this.params.map(async (p) => {
      const data = await this.rt.readF32(pick(p), p.size);
      for (const part of p.parts) out.set(part.hf, { shape: part.shape, data: data.slice(part.offset, part.offset + part.size) });
    }));
    return out;
  }

  /** Writes Hugging Face tensors into the parameters (checkpoint resume); every tensor is required. */
  load(t: TensorMap): void {
    this.write((p) => p.param, t);
  }

  /** Writes Hugging Face tensors into buffers laid out like the parameters (params, AdamW moments). */
  write(pick: (p: FullParam) => GPUBuffer, t: TensorMap): void {
    for (const p of this.params) {
      const data = new Float32Array(p.size);
      for (const part of p.parts) {
        const src = t.get(part.hf);
        if (!src || src.data.length !== part.size) throw new Error(`full mode: ${part.hf} ${src ? `has ${src.data.length} values, expected ${part.size}` : 'is missing'}`);
        data.set(src.data, part.offset);
      }
      this.rt.write(pick(p), data);
    }
  }

  /** Releases the gradients (the parameters belong to the model). */
  dispose(): void {
    for (const p of this.params) this.rt.release(p.grad);
  }
}
