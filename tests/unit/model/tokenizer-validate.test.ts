// tokenizer.json / vocab.json with ids written as strings are refused with an error naming the
// file and the field (the tokenizer library would load them and score garbage); a well-formed
// file, with or without a BOM, still loads.
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../../src/model/io/memory-source';
import { loadTokenizer } from '../../../src/model/tokenizer';
import { byteLevelBpeJson, GPT2_SPLIT_REGEX } from '../../../src/model/tokenizer/json';

const vocab = { a: 0, b: 1, ab: 2 };
const good = byteLevelBpeJson(vocab, [['a', 'b']], [], GPT2_SPLIT_REGEX);

describe('tokenizer files with bad ids', () => {
  it('loads a good tokenizer.json, with a BOM too', async () => {
    const tok = await loadTokenizer(new MemorySource({ 'tokenizer.json': `\uFEFF${JSON.stringify(good)}` }));
    expect(tok.encode('ab')).toEqual([2]);
  });

  it('refuses string vocab ids in tokenizer.json, naming file and field', async () => {
    const bad = { ...good, model: { ...good.model, vocab: { a: '0', b: '1', ab: '2' } } };
    const load = loadTokenizer(new MemorySource({ 'tokenizer.json': JSON.stringify(bad) }));
    await expect(load).rejects.toThrow('tokenizer.json: "model.vocab" gives the token "a" the id "0" (a string); token ids must be non-negative JSON integers');
    await expect(load).rejects.toMatchObject({ file: 'tokenizer.json', item: 'model.vocab["a"]' });
  });

  it('refuses a string added-token id and string ids in vocab.json', async () => {
    const bad = { ...good, added_tokens: [{ id: '3', content: '<s>', special: true }] };
    await expect(loadTokenizer(new MemorySource({ 'tokenizer.json': JSON.stringify(bad) }))).rejects.toThrow('tokenizer.json: "added_tokens"[0].id is "3" (a string)');
    const files = { 'vocab.json': JSON.stringify({ a: 0, b: '1' }), 'merges.txt': '#version: 0.2\na b\n' };
    await expect(loadTokenizer(new MemorySource(files))).rejects.toThrow('vocab.json: "vocab" gives the token "b" the id "1" (a string)');
  });
});
