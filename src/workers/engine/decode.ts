// The text of each token of a sequence (the Run panel colours an episode's tokens by who produced
// them): piece i is decode(ids[..i+1]) minus decode(ids[..i]) over a short window, so byte-level
// and SentencePiece spaces land on the right token. Runs in the engine worker ('decode-tokens');
// exercised by tests/unit/model/token-pieces.test.ts and tests/e2e/studio-run.spec.ts.
import type { Tokenizer } from '../../model/tokenizer';

/** Tokens of context decoded before each piece (enough for multi-byte characters and leading spaces). */
const WINDOW = 8;

export function tokenPieces(tok: Pick<Tokenizer, 'decode'>, ids: readonly number[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < ids.length; i++) {
    const from = Math.max(0, i - WINDOW);
    const before = tok.decode(ids.slice(from, i));
    const upto = tok.decode(ids.slice(from, i + 1));
    out.push(upto.startsWith(before) ? upto.slice(before.length) : tok.decode([ids[i]]));
  }
  return out;
}
