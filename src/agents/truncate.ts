// Cuts a tool response to a token budget before it enters the live sequence (verl keeps 256 by
// default): keep the beginning ('left'), the end ('right') or both ends ('middle'), and say what
// was cut. Counted in the model's own tokens. Tested by tests/unit/agents/agent-turns.test.ts.
import type { Tokenizer } from '../model/tokenizer';
import type { TruncateSide } from './agent-config';

export interface Truncated {
  text: string;
  truncated: boolean;
  /** Tokens of the original text. */
  tokens: number;
}

/** `text` cut to at most `maxTokens` of its tokens plus a one-line marker. */
export function truncateToTokens(tok: Tokenizer, text: string, maxTokens: number, side: TruncateSide): Truncated {
  const ids = tok.encode(text, { addSpecialTokens: false });
  if (ids.length <= maxTokens) return { text, truncated: false, tokens: ids.length };
  const marker = `...[${ids.length - maxTokens} tokens cut]...`;
  // A cut may split a multi-byte character: drop the half character the decoder shows as U+FFFD.
  // Whitespace at the cut goes too: the marker sits on its own line.
  const head = (n: number) => tok.decode(ids.slice(0, n)).replace(/\uFFFD+$/, '').trimEnd();
  const tail = (n: number) => (n > 0 ? tok.decode(ids.slice(ids.length - n)).replace(/^\uFFFD+/, '').trimStart() : '');
  let out: string;
  if (side === 'left') out = `${head(maxTokens)}\n${marker}`;
  else if (side === 'right') out = `${marker}\n${tail(maxTokens)}`;
  else {
    const h = Math.ceil(maxTokens / 2);
    out = `${head(h)}\n${marker}\n${tail(maxTokens - h)}`;
  }
  return { text: out, truncated: true, tokens: ids.length };
}
