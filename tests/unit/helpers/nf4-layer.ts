// Shared by the NF4 kernel-family tests (nf4-tiles, nf4-dec-wide): an NF4 weight on the GPU with
// its CPU round trip, and the twin of a fused gate|up layer with SwiGLU and per-segment LoRA.
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import type { LinearSpec } from '../../../src/gpu/kernels/linear';
import { linear_forward, lora_forward } from '../../../src/reference/linear';
import { swiglu_forward } from '../../../src/reference/swiglu';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import type { GpuRuntime } from '../../../src/gpu/runtime';

/** W [rows, K] quantized on the GPU: the layer's weight, its dequantized twin and the buffers to release. */
export async function nf4Weight(rt: GpuRuntime, W: Float32Array, rows: number, K: number): Promise<{ spec: LinearSpec['weight']; eff: Float32Array; bufs: GPUBuffer[] }> {
  const wb = rt.upload(W, 'W');
  const { weight } = await (await Nf4Quantizer.create(rt)).quantize(wb, rows, K, 'W');
  rt.release(wb);
  return { spec: { format: 'nf4', q: weight }, eff: nf4_roundtrip(W), bufs: [weight.codes, weight.absmax] };
}

/** silu(gate) * up for M rows, gate / up each with their own LoRA segment (A [2R, K], B [2I, R]). */
export function swigluLoraRef(X: Float32Array, eff: Float32Array, A: Float32Array, B: Float32Array, scale: number, M: number, K: number, I: number, R: number): Float32Array {
  const gate = linear_forward(X, eff.slice(0, I * K), null, M, K, I).map((v, i) => v + lora_forward(X, A.slice(0, R * K), B.slice(0, I * R), scale, M, K, I, R)[i]);
  const up = linear_forward(X, eff.slice(I * K), null, M, K, I).map((v, i) => v + lora_forward(X, A.slice(R * K), B.slice(I * R), scale, M, K, I, R)[i]);
  return swiglu_forward(gate, up);
}
