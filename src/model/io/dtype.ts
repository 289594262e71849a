// Element types of safetensors files and their conversion to and from f32. Readers return
// Float32Array whatever the stored type (f32, f16, bf16); the writer can store f16/bf16 for
// fixtures. Exercised by tests/unit/model/io-safetensors.test.ts (round trips, maxdiff printed).

/** Bytes per element of every dtype the safetensors format defines. */
export const DTYPE_BYTES: Record<string, number> = {
  F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1,
  U64: 8, U32: 4, U16: 2, U8: 1, BOOL: 1, F8_E4M3: 1, F8_E5M2: 1,
};

/** The dtypes we turn into f32. */
export const SUPPORTED_DTYPES = ['F32', 'F16', 'BF16'] as const;
export type FloatDtype = (typeof SUPPORTED_DTYPES)[number];

export function isSupportedDtype(d: string): d is FloatDtype {
  return (SUPPORTED_DTYPES as readonly string[]).includes(d);
}

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  throw new Error('model io: this platform is big-endian; safetensors readers assume little-endian typed arrays');
}

let f16Table: Float32Array | undefined;

/** f32 value of each of the 65536 f16 bit patterns (built once, 256 KiB). */
function halfTable(): Float32Array {
  if (f16Table) return f16Table;
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    if (exp === 0) t[h] = sign * frac * 2 ** -24;
    else if (exp === 31) t[h] = frac ? NaN : sign * Infinity;
    else t[h] = sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return (f16Table = t);
}

/** Decode `n` little-endian elements of `dtype` from bytes (whose length must be n * size). */
export function toFloat32(dtype: FloatDtype, bytes: Uint8Array, n: number): Float32Array {
  if (dtype === 'F32') {
    if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, n);
    return new Float32Array(bytes.slice().buffer, 0, n);
  }
  const aligned = bytes.byteOffset % 2 === 0 ? bytes : bytes.slice();
  const u16 = new Uint16Array(aligned.buffer, aligned.byteOffset, n);
  const out = new Float32Array(n);
  if (dtype === 'BF16') {
    const o32 = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) o32[i] = u16[i] << 16;
  } else {
    const t = halfTable();
    for (let i = 0; i < n; i++) out[i] = t[u16[i]];
  }
  return out;
}

/** Encode f32 values as `dtype` bytes (round to nearest even for f16 and bf16). */
export function fromFloat32(dtype: FloatDtype, data: Float32Array): Uint8Array {
  if (dtype === 'F32') return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  const u32 = new Uint32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  const out = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = dtype === 'BF16' ? f32BitsToBf16(u32[i]) : f32BitsToF16(u32[i]);
  return new Uint8Array(out.buffer);
}

function f32BitsToBf16(x: number): number {
  if ((x & 0x7f800000) === 0x7f800000 && x & 0x7fffff) return (x >>> 16) | 0x40; // keep NaN a NaN
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}

function f32BitsToF16(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff, mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mant | 0x800000, shift = 14 - e;
    const half = 1 << (shift - 1);
    let r = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    if (rest > half || (rest === half && r & 1)) r++;
    return sign | r;
  }
  let r = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && r & 1)) r++; // a carry into the exponent is correct rounding
  return sign | r;
}
