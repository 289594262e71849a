// Incremental detokenisation for streaming generation: push token ids one at a time and get only
// the new text. A token that ends inside a multi-byte UTF-8 character (byte-level BPE, byte
// fallback) yields nothing until the character completes. Decodes a short window of previous
// tokens so leading-space rules (SentencePiece) and byte merges come out as in a full decode.
// Tested by tests/unit/model/tokenizer-stream.test.ts.
import type { Tokenizer } from '.';

export interface StreamDecoderOptions {
  skipSpecialTokens?: boolean;
  /** Tokens of context kept before the pending ones (default 4). */
  window?: number;
}

export class StreamDecoder {
  private prefix: number[] = [];
  private prefixText = '';
  private pending: number[] = [];
  private readonly skip: boolean;
  private readonly window: number;

  constructor(private readonly tok: Tokenizer, opts: StreamDecoderOptions = {}) {
    this.skip = opts.skipSpecialTokens ?? false;
    this.window = opts.window ?? 4;
  }

  /** Add one token; returns the text it completes ('' while a character is still partial). */
  push(id: number): string {
    this.pending.push(id);
    const text = this.decode([...this.prefix, ...this.pending]);
    if (text.endsWith('\uFFFD') || text.length < this.prefixText.length || !text.startsWith(this.prefixText)) return '';
    const out = text.slice(this.prefixText.length);
    this.prefix = [...this.prefix, ...this.pending].slice(-this.window);
    this.pending = [];
    this.prefixText = this.decode(this.prefix);
    return out;
  }

  /** Text still held back (an incomplete character at the end of the stream), then reset. */
  flush(): string {
    const text = this.pending.length ? this.decode([...this.prefix, ...this.pending]) : this.prefixText;
    const out = text.startsWith(this.prefixText) ? text.slice(this.prefixText.length) : '';
    this.prefix = [];
    this.pending = [];
    this.prefixText = '';
    return out;
  }

  private decode(ids: number[]): string {
    return this.tok.decode(ids, { skipSpecialTokens: this.skip });
  }
}
