// StreamDecoder: pushing ids one at a time must concatenate to exactly the full decode, never
// emit a broken UTF-8 character, for the Qwen2.5 byte-level tokenizer and the llama2.c
// SentencePiece-style one (byte fallback, leading-space stripping).
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadTokenizer, Tokenizer } from '../../../src/model/tokenizer';
import { StreamDecoder } from '../../../src/model/tokenizer/stream';
import { llama2cTokenizerConfig, llama2cTokenizerJson, parseLlama2cTokenizer } from '../../../src/model/tokenizer/llama2c';
import { greedySample, STORIES_DIR } from '../../fixtures/io/stories260k';
import { sharedPath } from '../../fixtures/shared';

const QWEN = sharedPath('models/qwen2.5-tokenizer');
const texts = ['Hello world', 'naïve café — 東京タワー 🚀🍮 done', 'a\n\n  b\tc', '€€€ 😀😀'];

function streamAll(tok: Tokenizer, ids: number[], skip: boolean): { text: string; chunks: string[] } {
  const sd = new StreamDecoder(tok, { skipSpecialTokens: skip });
  const chunks = ids.map((id) => sd.push(id));
  chunks.push(sd.flush());
  return { text: chunks.join(''), chunks };
}

describe.skipIf(!existsSync(QWEN) || !existsSync(STORIES_DIR))('StreamDecoder', () => {
  it('Qwen2.5: streamed text equals the full decode, no replacement characters', async () => {
    const tok = await loadTokenizer(new NodeDirSource(QWEN));
    let partial = 0;
    for (const s of [...texts, '<|im_start|>assistant\n東京<|im_end|>']) {
      const ids = tok.encode(s);
      const { text, chunks } = streamAll(tok, ids, false);
      expect(text).toBe(tok.decode(ids));
      expect(chunks.join('')).not.toContain('\uFFFD');
      partial += chunks.filter((c) => c === '').length;
      expect(streamAll(tok, ids, true).text).toBe(tok.decode(ids, { skipSpecialTokens: true }));
    }
    console.log(`qwen stream: ${partial} pushes held back mid-character`);
    expect(partial).toBeGreaterThan(0); // emoji split over byte tokens were exercised
  });

  it('llama2.c tokenizer: streaming the greedy sample after BOS matches the full decode', () => {
    const v = parseLlama2cTokenizer(new Uint8Array(readFileSync(`${STORIES_DIR}/tok512.bin`)));
    const tok = new Tokenizer(llama2cTokenizerJson(v), llama2cTokenizerConfig());
    for (const s of [greedySample(), ...texts]) {
      const ids = tok.encode(s);
      expect(streamAll(tok, ids, true).text).toBe(tok.decode(ids, { skipSpecialTokens: true }));
      expect(streamAll(tok, ids, true).text).toBe(s);
    }
  });
});
