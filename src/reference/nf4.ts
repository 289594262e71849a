// CPU reference for NF4 (4-bit NormalFloat, QLoRA / bitsandbytes): quantize, dequantize, round
// trip and error, the twin of shaders/nf4.wgsl and of the dequantization inside
// shaders/matmul_nf4.wgsl. Plain loops. Tested in tests/unit/reference/nf4-reference.test.ts.
//
// Layout: w is row-major [out, in] flattened; one absmax per block of `blockSize` consecutive
// elements; one code (0..15) per element. code = index of the nearest level to w / absmax.

/** The 16 NF4 levels, exactly as bitsandbytes defines them (create_normal_map, csrc/kernels.cu). */
export const NF4_LEVELS: readonly number[] = [
  -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
  -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
  0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
  0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
];

/**
 * The 15 decision thresholds of bitsandbytes' dQuantizeNF4 tree (the f32 midpoints of adjacent
 * levels), low to high. code = number of thresholds t with x > t: a value exactly on a midpoint
 * goes to the LOWER code, as bitsandbytes' strict `>` comparisons do.
 */
export const NF4_THRESHOLDS: readonly number[] = [
  -0.8480964004993439, -0.6106329262256622, -0.4599952697753906, -0.33967943489551544,
  -0.23460740596055984, -0.13791173323988914, -0.045525018125772476, 0.03979014977812767,
  0.1202552504837513, 0.2035212516784668, 0.2920137718319893, 0.3893125355243683,
  0.5016634166240692, 0.6427869200706482, 0.8614784181118011,
].map(Math.fround);

/** NF4_LEVELS rounded to f32, as the shaders hold them. */
const LEVELS_F32 = NF4_LEVELS.map(Math.fround);

/** Code of the level 0.0 (what an all-zero block quantizes to). */
export const NF4_ZERO_CODE = 7;

export interface Nf4Quantized {
  /** One code 0..15 per element (unpacked; the GPU packs 8 per u32, low nibble first). */
  codes: Uint8Array;
  /** One scale per block: max |w| over the block (f32). */
  absmax: Float32Array;
}

/**
 * The code of `x` in a block with scale `absmax` (> 0). bitsandbytes compares x * (1/absmax)
 * against the thresholds; we compare x against fround(t * absmax) instead, because an f32
 * multiply is correctly rounded in WGSL on every adapter while a division is only within 2.5 ULP.
 * The two agree except when x lies within about one ULP of a threshold. Ties (x equal to a scaled
 * threshold) go to the lower code, as in bitsandbytes.
 */
export function nf4_code(x: number, absmax: number): number {
  if (absmax === 0) return NF4_ZERO_CODE;
  let code = 0;
  for (const t of NF4_THRESHOLDS) if (x > Math.fround(t * absmax)) code++;
  return code;
}

/** Block-wise NF4 quantization of w (any length; the last block may be partial). */
export function nf4_quantize(w: Float32Array, blockSize = 64): Nf4Quantized {
  const n = w.length;
  const blocks = Math.ceil(n / blockSize);
  const codes = new Uint8Array(n);
  const absmax = new Float32Array(blocks);
  for (let b = 0; b < blocks; b++) {
    const lo = b * blockSize, hi = Math.min(n, lo + blockSize);
    let m = 0;
    for (let i = lo; i < hi; i++) m = Math.max(m, Math.abs(w[i]));
    absmax[b] = m;
    for (let i = lo; i < hi; i++) codes[i] = nf4_code(w[i], absmax[b]);
  }
  return { codes, absmax };
}

/** w[i] = fround(f32(NF4_LEVELS[code[i]]) * absmax[block of i]) for the first n elements. */
export function nf4_dequantize(codes: Uint8Array, absmax: Float32Array, n: number, blockSize = 64): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = LEVELS_F32[codes[i]] * absmax[Math.floor(i / blockSize)];
  return out;
}

/** dequantize(quantize(w)): the weight the NF4 kernels effectively multiply by. */
export function nf4_roundtrip(w: Float32Array, blockSize = 64): Float32Array {
  const q = nf4_quantize(w, blockSize);
  return nf4_dequantize(q.codes, q.absmax, w.length, blockSize);
}

/** Mean and max of |w - roundtrip(w)| over the tensor. */
export function nf4_error(w: Float32Array, blockSize = 64): { meanAbs: number; maxAbs: number } {
  const r = nf4_roundtrip(w, blockSize);
  let sum = 0, max = 0;
  for (let i = 0; i < w.length; i++) {
    const d = Math.abs(w[i] - r[i]);
    sum += d;
    if (d > max) max = d;
  }
  return { meanAbs: w.length ? sum / w.length : 0, maxAbs: max };
}

/** Packs codes 8 per u32, low nibble first (element i in word i >> 3, bits 4 * (i & 7)). */
export function nf4_pack(codes: Uint8Array): Uint32Array {
  const out = new Uint32Array(Math.ceil(codes.length / 8));
  for (let i = 0; i < codes.length; i++) out[i >> 3] |= (codes[i] & 15) << (4 * (i & 7));
  return out;
}

/** Inverse of nf4_pack for the first n codes. */
export function nf4_unpack(words: Uint32Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (words[i >> 3] >>> (4 * (i & 7))) & 15;
  return out;
}
