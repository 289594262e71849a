// Builders of Hugging Face tokenizer.json objects for the two tokenizer families we load from
// other files: byte-level BPE (GPT-2 / Qwen2, from vocab.json + merges.txt) and
// SentencePiece-style BPE with byte fallback (llama2.c tok*.bin). The objects load in
// @huggingface/tokenizers and in transformers. Tested by tests/unit/model/tokenizer-*.test.ts.

/** One entry of tokenizer.json "added_tokens". */
export interface AddedTokenJson {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

/** The subset of tokenizer.json we build and read. */
export interface TokenizerJson {
  version: string;
  added_tokens: AddedTokenJson[];
  normalizer: object | null;
  pre_tokenizer: object | null;
  post_processor: object | null;
  decoder: object | null;
  model: { type: string; vocab: Record<string, number> | unknown; merges?: unknown; [k: string]: unknown };
  [k: string]: unknown;
}

/** Qwen2Tokenizer's pre-tokenizer split (transformers' PRETOKENIZE_REGEX for Qwen2). */
export const QWEN2_SPLIT_REGEX =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
/** GPT-2's pre-tokenizer split. */
export const GPT2_SPLIT_REGEX = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

export function addedToken(id: number, content: string, special: boolean): AddedTokenJson {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special };
}

/** Parse merges.txt ("#version" header line, then "left right" per line). */
export function parseMergesTxt(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#version') || line.trim() === '') continue;
    const sp = line.indexOf(' ');
    out.push([line.slice(0, sp), line.slice(sp + 1).replace(/\r$/, '')]);
  }
  return out;
}

/** Byte-level BPE (GPT-2 / Qwen2 style): NFC, regex split, bytes mapped to printable chars. */
export function byteLevelBpeJson(
  vocab: Record<string, number>,
  merges: [string, string][],
  added: AddedTokenJson[],
  splitRegex: string,
): TokenizerJson {
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: { type: 'NFC' },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [{ type: 'Split', pattern: { Regex: splitRegex }, behavior: 'Isolated', invert: false }, byteLevel],
    },
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges,
    },
  };
}

export type PieceKind = 'normal' | 'unknown' | 'control' | 'byte';

export interface SentencePiece {
  /** With '▁' for spaces, as SentencePiece stores it. */
  piece: string;
  score: number;
  kind: PieceKind;
}

/**
 * SentencePiece BPE (Llama 1/2 style) with byte fallback. The merges come from the scores as
 * transformers' SentencePiece converter derives them: every split of a normal piece into two
 * normal pieces is a merge, ranked by the merged piece's score (higher first).
 */
export function sentencePieceBpeJson(pieces: SentencePiece[], bosId: number | undefined): TokenizerJson {
  const vocab: Record<string, number> = {};
  pieces.forEach((p, i) => (vocab[p.piece] = i));
  const normal = new Set(pieces.filter((p) => p.kind === 'normal').map((p) => p.piece));
  const ranked: { l: string; r: string; score: number }[] = [];
  pieces.forEach((p) => {
    if (p.kind !== 'normal') return;
    const chars = Array.from(p.piece);
    const local: { l: string; r: string; score: number }[] = [];
    for (let k = 1; k < chars.length; k++) {
      const l = chars.slice(0, k).join(''), r = chars.slice(k).join('');
      if (normal.has(l) && normal.has(r)) local.push({ l, r, score: p.score });
    }
    local.sort((a, b) => vocab[a.l] - vocab[b.l] || vocab[a.r] - vocab[b.r]);
    ranked.push(...local);
  });
  ranked.sort((a, b) => b.score - a.score); // stable: ties keep piece order
  const unk = pieces.find((p) => p.kind === 'unknown')?.piece ?? null;
  const bos = bosId === undefined ? undefined : pieces[bosId].piece;
  const single: object[] = [{ Sequence: { id: 'A', type_id: 0 } }];
  const pair: object[] = [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }];
  if (bos !== undefined) {
    single.unshift({ SpecialToken: { id: bos, type_id: 0 } });
    pair.splice(1, 0, { SpecialToken: { id: bos, type_id: 1 } });
    pair.unshift({ SpecialToken: { id: bos, type_id: 0 } });
  }
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: pieces.flatMap((p, i) => (p.kind === 'unknown' || p.kind === 'control' ? [addedToken(i, p.piece, true)] : [])),
    normalizer: {
      type: 'Sequence',
      normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }],
    },
    pre_tokenizer: null,
    post_processor: {
      type: 'TemplateProcessing', single, pair,
      special_tokens: bos === undefined ? {} : { [bos]: { id: bos, ids: [bosId], tokens: [bos] } },
    },
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Strip', content: ' ', start: 1, stop: 0 },
      ],
    },
    model: {
      type: 'BPE', dropout: null, unk_token: unk, continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab,
      merges: ranked.map((m) => [m.l, m.r]),
    },
  };
}
