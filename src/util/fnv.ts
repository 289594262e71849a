// FNV-1a, 32 bits: the short, stable hash behind the kernel-code fingerprint, an SFT run's data
// hash, the stored Pyodide image's key and the sandbox's per-episode state names. Not for
// security: it only tells texts or id lists apart for caches and resume checks.

/** FNV-1a's offset basis: the hash of nothing. */
export const FNV_OFFSET = 0x811c9dc5;

/** `h` with one more value (a UTF-16 code unit, a byte or a 16-bit half) mixed in. */
export function fnvMix(h: number, x: number): number {
  return Math.imul(h ^ x, 0x01000193) >>> 0;
}

/** `h` with every UTF-16 code unit of `text` mixed in, in order. */
export function fnvText(text: string, h = FNV_OFFSET): number {
  for (let i = 0; i < text.length; i++) h = fnvMix(h, text.charCodeAt(i));
  return h;
}

/** A 32-bit hash as eight hex digits. */
export function hex32(h: number): string {
  return (h >>> 0).toString(16).padStart(8, '0');
}
