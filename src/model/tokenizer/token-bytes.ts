// The bytes one token adds to a text in the middle of it, from its vocabulary piece and the
// tokenizer.json decoder: what OpenAI's `logprobs.content[].bytes` carries. Decoding a token
// alone is not that: SentencePiece decoders strip the space a leading `▁` stands for, and a
// byte-level token holding part of a UTF-8 character decodes to U+FFFD. Handles the decoders
// our models use (ByteLevel; Replace / ByteFallback / Fuse / Strip, Metaspace); another decoder
// gives null and the caller decodes the token alone. Tested by
// tests/unit/model/tokenizer-token-bytes.test.ts.

interface DecoderSpec { type?: unknown; decoders?: unknown; pattern?: unknown; content?: unknown; replacement?: unknown }

/** GPT-2's byte -> printable character table, inverted: the character of each byte back to the byte. */
const BYTE_OF_CHAR: ReadonlyMap<string, number> = (() => {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out = new Map<string, number>();
  let next = 0;
  for (let b = 0; b < 256; b++) out.set(String.fromCodePoint(printable(b) ? b : 256 + next++), b);
  return out;
})();

/** UTF-8 encoder shared by the tokenizer's token bytes. */
export const utf8 = new TextEncoder();

/** The decoder steps, a Sequence flattened. */
function steps(decoder: unknown): DecoderSpec[] {
  if (typeof decoder !== 'object' || decoder === null) return [];
  const d = decoder as DecoderSpec;
  if (d.type === 'Sequence' && Array.isArray(d.decoders)) return d.decoders.flatMap(steps);
  return [d];
}

/** Steps that act on the whole text only (a leading space stripped, pieces joined): not on one token in the middle. */
const SEQUENCE_ONLY = new Set(['Fuse', 'Strip']);

/**
 * The bytes of vocabulary piece `piece` in the middle of a decoded text, or null when the
 * decoder has a step this does not model (then decode the token alone).
 */
export function pieceBytes(decoder: unknown, piece: string): Uint8Array | null {
  const all = steps(decoder);
  if (all.some((s) => s.type === 'ByteLevel')) {
    if (all.length > 1) return null;
    const out = new Uint8Array(piece.length);
    let n = 0;
    for (const ch of piece) {
      const b = BYTE_OF_CHAR.get(ch);
      if (b === undefined) return null;
      out[n++] = b;
    }
    return out.subarray(0, n);
  }
  let text = piece;
  for (const s of all) {
    if (s.type === 'ByteFallback') {
      const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(text);
      if (m) return Uint8Array.of(parseInt(m[1], 16));
    } else if (s.type === 'Replace') {
      const from = (s.pattern as { String?: unknown } | undefined)?.String;
      if (typeof from !== 'string' || typeof s.content !== 'string') return null;
      text = text.split(from).join(s.content);
    } else if (s.type === 'Metaspace') {
      text = text.split(typeof s.replacement === 'string' ? s.replacement : '▁').join(' ');
    } else if (!SEQUENCE_ONLY.has(String(s.type))) {
      return null;
    }
  }
  return utf8.encode(text);
}
