// The Qwen2.5 tokenizer built from vocab.json + merges.txt + tokenizer_config.json
// (../shared/models/qwen2.5-tokenizer): known ids, special tokens, round trips, and the
// chat template read from chat_template.jinja.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadTokenizer, type Tokenizer } from '../../../src/model/tokenizer';
import { sharedPath } from '../../fixtures/shared';

const DIR = sharedPath('models/qwen2.5-tokenizer');
let tok: Promise<Tokenizer> | undefined;
const qwen = () => (tok ??= loadTokenizer(new NodeDirSource(DIR)));

describe.skipIf(!existsSync(DIR))('Qwen2.5 tokenizer from vocab.json + merges.txt', () => {
  it('gives the reference ids', async () => {
    const t = await qwen();
    expect(t.encode('Hello world')).toEqual([9707, 1879]);
    expect(t.tokenToId('<|im_start|>')).toBe(151644);
    expect(t.tokenToId('<|im_end|>')).toBe(151645);
    expect(t.tokenToId('<tool_call>')).toBe(151657);
    expect(t.tokenToId('<|endoftext|>')).toBe(151643);
    expect(t.vocabSize).toBe(151665);
    expect(t.eosTokenIds).toEqual([151645]);
    expect(t.bosTokenId).toBeUndefined();
    expect(t.chatTemplate).toContain('<tool_call>');
  });

  it('splits special tokens out of text and round-trips', async () => {
    const t = await qwen();
    const ids = t.encode('<|im_start|>user\nHi there<|im_end|>\n');
    expect(ids[0]).toBe(151644);
    expect(ids).toContain(151645);
    expect(t.decode(ids)).toBe('<|im_start|>user\nHi there<|im_end|>\n');
    expect(t.decode(ids, { skipSpecialTokens: true })).toBe('user\nHi there\n');
    for (const s of ['naïve café — 東京 🚀', '  two  spaces\n\n\tand tabs', "it's 2024, isn't it? x=1234567", '<tool_call>\n{"name": "f"}\n</tool_call>']) {
      expect(t.decode(t.encode(s))).toBe(s);
    }
    // digits split one by one (Qwen2 regex), contractions kept together
    expect(t.encode('12345').length).toBe(5);
  });

  it('renders the reference chat example to the same ids as its text', async () => {
    const t = await qwen();
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(`${DIR}/rendered_example.txt`, 'utf8').split('-----8<-----')[0];
    const ids = t.encode(text);
    expect(ids.filter((i) => i === 151644).length).toBe(5);
    expect(ids.filter((i) => i === 151657).length).toBe(text.split('<tool_call>').length - 1);
    expect(t.decode(ids)).toBe(text);
  });
});
