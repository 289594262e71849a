// Tokenizer.tokenBytes (src/model/tokenizer/token-bytes.ts): the bytes a token adds in the middle
// of a text. Over the tokens of a text they add up to the text's UTF-8 bytes, where decoding each
// token alone does not: stories260K's SentencePiece pieces keep the space of their `▁` and its
// <0xNN> pieces give their byte; the Qwen2.5 and agent-tiny byte-level pieces give the raw bytes of
// characters split over tokens. Added tokens give their content; an unmodelled decoder falls back.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadTokenizer, type Tokenizer } from '../../../src/model/tokenizer';
import { pieceBytes } from '../../../src/model/tokenizer/token-bytes';
import { sharedPath } from '../../fixtures/shared';

const QWEN = sharedPath('models/qwen2.5-tokenizer');
const load = (dir: string) => loadTokenizer(new NodeDirSource(dir));
const utf8 = (s: string) => [...new TextEncoder().encode(s)];
/** Every token's bytes, joined. */
const joined = (t: Tokenizer, ids: number[]) => ids.flatMap((id) => [...t.tokenBytes(id)]);

describe('Tokenizer.tokenBytes', () => {
  it('stories260K (SentencePiece): each piece keeps its space; byte pieces give their byte; the bytes add up to the text', async () => {
    const t = await load('public/models/stories260K');
    const text = 'Once upon a time, Lily saw 7 big dogs.\nThe end.';
    const ids = t.encode(text, { addSpecialTokens: false });
    // The normalizer puts a `▁` before the text: the bytes are the text after one space.
    expect(joined(t, ids)).toEqual(utf8(' ' + text));
    const upon = ids.find((id) => t.idToToken(id) === '▁upon')!;
    expect(new TextDecoder().decode(t.tokenBytes(upon))).toBe(' upon');
    expect(t.decode([upon])).toBe('upon');   // what a token decoded alone loses
    const newline = t.tokenToId('<0x0A>')!;
    expect([...t.tokenBytes(newline)]).toEqual([10]);
    // A character outside the 512-piece vocabulary: byte pieces, one UTF-8 byte each.
    const snow = t.encode('☃', { addSpecialTokens: false });
    expect(joined(t, snow).slice(-3)).toEqual(utf8('☃'));
    expect(t.tokenBytes(t.bosTokenId!)).toEqual(new TextEncoder().encode(t.idToToken(t.bosTokenId!)!));
  });

  it.skipIf(!existsSync(QWEN))('Qwen2.5 (byte-level): raw bytes of characters split over tokens; added tokens as their content', async () => {
    const t = await load(QWEN);
    const text = 'Hello world: 你好, 世界 🙂 龘 𓀀 🦜 — naïve café\n\tend';
    const ids = t.encode(text);
    expect(joined(t, ids)).toEqual(utf8(text));
    // Some token holds part of a character: alone it decodes to U+FFFD, its bytes are the real ones.
    const partial = ids.filter((id) => t.decode([id]).includes('\uFFFD'));
    expect(partial.length).toBeGreaterThan(0);
    for (const id of partial) expect(t.tokenBytes(id).length).toBeGreaterThan(0);
    expect(new TextDecoder().decode(t.tokenBytes(t.encode(' world')[0]))).toBe(' world');
    expect(new TextDecoder().decode(t.tokenBytes(t.tokenToId('<|im_end|>')!))).toBe('<|im_end|>');
    expect(new TextDecoder().decode(t.tokenBytes(t.tokenToId('<tool_call>')!))).toBe('<tool_call>');
  });

  it('agent-tiny (byte-level, 1,017 pieces): the bytes of a chat add up to it', async () => {
    const t = await load('public/models/agent-tiny');
    const text = 'What is 12 * 7? Use python: print(12 * 7) — ünïcödé ok';
    expect(joined(t, t.encode(text, { addSpecialTokens: false }))).toEqual(utf8(text));
  });

  it('pieceBytes: Metaspace; a decoder it does not model gives null', () => {
    expect([...pieceBytes({ type: 'Metaspace', replacement: '▁', prepend_scheme: 'always' }, '▁hi')!]).toEqual(utf8(' hi'));
    expect(pieceBytes({ type: 'WordPiece', prefix: '##' }, '##ing')).toBeNull();
    expect(pieceBytes({ type: 'Sequence', decoders: [{ type: 'ByteLevel' }, { type: 'Strip' }] }, 'a')).toBeNull();
    expect(pieceBytes(null, 'plain')).toEqual(new TextEncoder().encode('plain'));
  });
});
