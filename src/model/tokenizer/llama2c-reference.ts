// The slow, obvious twin of llama2.c's tokenizer (run.c `encode`/`decode`), kept to check that
// our converted tokenizer.json gives the same ids: dummy-prefix space, codepoint lookup with
// byte fallback (id = byte + 3), then greedy merges of the adjacent pair whose concatenation
// has the best score. Used by tests/unit/model/tokenizer-llama2c.test.ts.
import type { Llama2cVocab } from './llama2c';

export function llama2c_encode(v: Llama2cVocab, text: string, bos: boolean, eos: boolean): number[] {
  const ids = new Map<string, number>();
  v.pieces.forEach((p, i) => {
    if (!ids.has(p)) ids.set(p, i);
  });
  const tokens: number[] = [];
  if (bos) tokens.push(1);
  if (text.length > 0) tokens.push(ids.get(' ')!);
  for (const ch of text) {
    const id = ids.get(ch);
    if (id !== undefined) tokens.push(id);
    else for (const b of new TextEncoder().encode(ch)) tokens.push(b + 3);
  }
  for (;;) {
    let best = -1e10, bestId = -1, bestIdx = -1;
    for (let i = 0; i + 1 < tokens.length; i++) {
      const id = ids.get(v.pieces[tokens[i]] + v.pieces[tokens[i + 1]]);
      if (id !== undefined && v.scores[id] > best) {
        best = v.scores[id];
        bestId = id;
        bestIdx = i;
      }
    }
    if (bestIdx < 0) break;
    tokens.splice(bestIdx, 2, bestId);
  }
  if (eos) tokens.push(2);
  return tokens;
}

/** run.c `decode` over a sequence: strip the space after BOS, map <0xXX> to raw bytes. */
export function llama2c_decode(v: Llama2cVocab, tokens: number[]): string {
  const bytes: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === 1) continue;
    let piece = v.pieces[tokens[i]];
    if (i > 0 && tokens[i - 1] === 1 && piece.startsWith(' ')) piece = piece.slice(1);
    const m = /^<0x([0-9A-F]{2})>$/.exec(piece);
    if (m) bytes.push(parseInt(m[1], 16));
    else bytes.push(...new TextEncoder().encode(piece));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
