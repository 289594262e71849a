// The llama2.c tokenizer (tok512.bin) converted to a tokenizer.json: encodes exactly as
// llama2.c's own algorithm (llama2c-reference.ts, the twin of run.c) on sentences from
// stories260K.md, and decodes the documented greedy sample back to the same text.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { parseLlama2cTokenizer, llama2cTokenizerJson, llama2cTokenizerConfig } from '../../../src/model/tokenizer/llama2c';
import { llama2c_decode, llama2c_encode } from '../../../src/model/tokenizer/llama2c-reference';
import { Tokenizer } from '../../../src/model/tokenizer';
import { ModelLoadError } from '../../../src/model/io/errors';
import { greedySample, STORIES_DIR } from '../../fixtures/io/stories260k';

const DIR = STORIES_DIR;

describe.skipIf(!existsSync(DIR))('llama2.c tokenizer -> tokenizer.json', () => {
  const vocab = parseLlama2cTokenizer(new Uint8Array(readFileSync(`${DIR}/tok512.bin`)), 'tok512.bin');
  const tok = new Tokenizer(llama2cTokenizerJson(vocab), llama2cTokenizerConfig());

  it('parses the vocabulary', () => {
    expect(vocab.pieces.length).toBe(512);
    expect(tok.vocabSize).toBe(512);
    expect(tok.bosTokenId).toBe(1);
    expect(tok.eosTokenIds).toEqual([2]);
    expect(tok.idToToken(3)).toBe('<0x00>');
    expect(tok.tokenToId('▁the')).toBe(vocab.pieces.indexOf(' the'));
  });

  it('encodes like llama2.c on sentences of stories260K.md and odd inputs', () => {
    const md = readFileSync(`${DIR}/stories260K.md`, 'utf8');
    const sentences = md.split(/(?<=[.!?])\s+|\n/).filter((s) => s.trim().length > 0);
    sentences.push('', ' ', 'a', '  double  space', 'Émile ate crème brûlée 🍮 in 東京.', 'tabs\tand\nnewlines\n', "Lily's mom said, \"Don't worry!\"");
    let checked = 0;
    for (const s of sentences) {
      const ref = llama2c_encode(vocab, s, true, false);
      expect(tok.encode(s), JSON.stringify(s)).toEqual(ref);
      expect(tok.encode(s, { addSpecialTokens: false })).toEqual(ref.slice(1));
      checked++;
    }
    console.log(`llama2.c tokenizer: ${checked} texts encode identically to the reference`);
    expect(checked).toBeGreaterThan(30);
  });

  it('round-trips the documented greedy sample', () => {
    const text = greedySample();
    expect(text.startsWith('Once upon a time')).toBe(true);
    const ids = tok.encode(text);
    expect(ids).toEqual(llama2c_encode(vocab, text, true, false));
    expect(tok.decode(ids, { skipSpecialTokens: true })).toBe(text);
    expect(llama2c_decode(vocab, ids)).toBe(text);
    console.log(`greedy sample: ${text.length} chars -> ${ids.length} tokens, decode round-trips`);
  });

  it('decodes byte-fallback tokens into UTF-8', () => {
    const s = 'emoji 🍮 and 東京';
    expect(tok.decode(tok.encode(s), { skipSpecialTokens: true })).toBe(s);
  });

  it('rejects a truncated tokenizer file', () => {
    const bytes = new Uint8Array(readFileSync(`${DIR}/tok512.bin`));
    expect(() => parseLlama2cTokenizer(bytes.subarray(0, 1000), 'tok512.bin')).toThrow(ModelLoadError);
    expect(() => parseLlama2cTokenizer(bytes.subarray(0, 1000), 'tok512.bin')).toThrow(/tok512\.bin: .*truncated/);
  });
});
