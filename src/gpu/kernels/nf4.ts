// Launcher for shaders/nf4.wgsl: quantizes an f32 weight buffer to NF4 on the GPU at load time
// (packed codes + absmax per block of 64) and measures the per-tensor quantization error.
// CPU twin: src/reference/nf4.ts. Tested by tests/unit/gpu/nf4-gpu.test.ts and nf4-matmul.test.ts (matmul_nf4).
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import { flatGrid } from '../grid';

export const NF4_BLOCK = 64;

/** An NF4 tensor on the GPU: row-major [rows, cols], flat blocks of NF4_BLOCK elements. */
export interface Nf4Weight {
  /** [rows * cols / 8] u32, 8 codes per word, low nibble first. */
  codes: GPUBuffer;
  /** [rows * cols / 64] f32. */
  absmax: GPUBuffer;
  rows: number;
  cols: number;
}

export interface Nf4QuantizeResult {
  weight: Nf4Weight;
  /** Mean and max of |w - dequant(quant(w))| over the tensor. */
  error: { meanAbs: number; maxAbs: number };
}

const WG = 64;

export class Nf4Quantizer {
  private constructor(
    private readonly rt: GpuRuntime,
    private readonly quant: Kernel,
    private readonly reduce: Kernel,
  ) {}

  static async create(rt: GpuRuntime): Promise<Nf4Quantizer> {
    const [quant, reduce] = await Promise.all([
      rt.kernel({ shader: 'nf4', entry: 'nf4_quantize', overrides: { BLOCK: NF4_BLOCK, WG } }),
      rt.kernel({ shader: 'nf4', entry: 'nf4_error_reduce', overrides: { BLOCK: NF4_BLOCK, WG } }),
    ]);
    return new Nf4Quantizer(rt, quant, reduce);
  }

  /**
   * Quantizes W ([rows, cols] f32) into new pooled buffers labelled `${label} nf4 ...`, then
   * waits for the GPU and reads back the two error figures (load time only). The caller owns
   * the returned buffers (rt.release them when the weight is dropped); W is left untouched.
   */
  async quantize(W: GPUBuffer, rows: number, cols: number, label: string): Promise<Nf4QuantizeResult> {
    const n = rows * cols;
    if (n % NF4_BLOCK !== 0) {
      throw new ShapeError('nf4_quantize', `rows*cols a multiple of ${NF4_BLOCK} (one absmax per ${NF4_BLOCK} elements)`, `[${rows}, ${cols}] = ${n} elements (${label})`);
    }
    if (W.size < n * 4) throw new ShapeError('nf4_quantize', `W of [${rows}, ${cols}] f32 (${n * 4} bytes)`, `${W.size} bytes (${W.label})`);
    const blocks = n / NF4_BLOCK;
    const rt = this.rt;
    const codes = rt.storage(n / 2, `${label} nf4 codes`);
    const absmax = rt.storage(blocks * 4, `${label} nf4 absmax`);
    const err = rt.storage(blocks * 8, `${label} nf4 block errors`);
    const total = rt.storage(16, `${label} nf4 error total`);
    try {
      const g = flatGrid(blocks, WG, rt.device.limits.maxComputeWorkgroupsPerDimension);
      rt.dispatch(this.quant, [W, codes, absmax, err], new Uint32Array([n, blocks, g.x * WG, 0]), g);
      rt.dispatch(this.reduce, [err, total], new Uint32Array([n, blocks, 0, 0]), { x: 1 });
      const [sum, max] = await rt.readF32(total, 2);
      return { weight: { codes, absmax, rows, cols }, error: { meanAbs: sum / n, maxAbs: max } };
    } finally {
      rt.release(err, total);
    }
  }
}

/** Uploads a quantization made on the CPU (src/reference/nf4.ts, codes packed with nf4_pack). */
export function uploadNf4(rt: GpuRuntime, packed: Uint32Array, absmax: Float32Array, rows: number, cols: number, label: string): Nf4Weight {
  const n = rows * cols;
  if (packed.length * 8 < n || absmax.length * NF4_BLOCK < n) {
    throw new ShapeError('uploadNf4', `${n / 8} code words and ${n / NF4_BLOCK} scales for [${rows}, ${cols}]`, `${packed.length} words, ${absmax.length} scales`);
  }
  return { codes: rt.upload(packed, `${label} nf4 codes`), absmax: rt.upload(absmax, `${label} nf4 absmax`), rows, cols };
}
