// The Tokenizer the engine uses: a Hugging Face tokenizer.json (run by @huggingface/tokenizers)
// plus what tokenizer_config.json adds (BOS/EOS, chat template, clean-up). loadTokenizer reads a
// model folder with tokenizer.json, or vocab.json + merges.txt (byte-level BPE), or a llama2.c
// tok*.bin. Tested by tests/unit/model/tokenizer-qwen.test.ts and tokenizer-llama2c.test.ts.
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { ModelLoadError } from '../io/errors';
import { readJson, type FileSource, type ProgressFn } from '../io/source';
import {
  addedToken, byteLevelBpeJson, GPT2_SPLIT_REGEX, parseMergesTxt, QWEN2_SPLIT_REGEX,
  type AddedTokenJson, type TokenizerJson,
} from './json';
import { checkTokenizerJson, checkVocabMap } from './validate';
import { pieceBytes, utf8 } from './token-bytes';
import { llama2cTokenizerConfig, llama2cTokenizerJson, parseLlama2cTokenizer } from './llama2c';

export type TokenizerConfigJson = Record<string, unknown>;

export interface EncodeOptions {
  /** Add the model's special tokens (e.g. BOS for Llama); default true, as in transformers. */
  addSpecialTokens?: boolean;
}

export interface DecodeOptions {
  /** Drop special tokens (BOS, EOS, <|im_end|>, ...) from the text; default false. */
  skipSpecialTokens?: boolean;
}

/** A special-token entry of tokenizer_config.json: a string or {content: string}. */
function tokenContent(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && v !== null && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return undefined;
}

export class Tokenizer {
  /** Ids the embedding must cover: the largest id (model vocab or added token) + 1. */
  readonly vocabSize: number;
  readonly bosTokenId?: number;
  /** EOS ids from tokenizer_config.json (callers may add the model config's). */
  readonly eosTokenIds: number[];
  readonly chatTemplate?: string;
  readonly specialTokenIds: ReadonlySet<number>;
  private readonly hf: HfTokenizer;

  constructor(
    /** The tokenizer.json object (write it out to save the tokenizer). */
    readonly json: TokenizerJson,
    readonly config: TokenizerConfigJson = {},
    chatTemplate?: string,
  ) {
    const clean = config.clean_up_tokenization_spaces === true;
    this.hf = new HfTokenizer(json, { ...config, clean_up_tokenization_spaces: clean });
    let max = -1;
    for (const id of this.hf.get_vocab(true).values()) max = Math.max(max, id);
    this.vocabSize = max + 1;
    const id = (field: string): number | undefined => {
      const t = tokenContent(config[field]);
      if (t === undefined) return undefined;
      const i = this.tokenToId(t);
      if (i === undefined) throw new ModelLoadError('tokenizer_config.json', `"${field}" is ${JSON.stringify(t)}, which is not in the vocabulary`, field);
      return i;
    };
    this.bosTokenId = id('bos_token');
    const eos = id('eos_token');
    this.eosTokenIds = eos === undefined ? [] : [eos];
    const tmpl = config.chat_template;
    this.chatTemplate = chatTemplate ?? (typeof tmpl === 'string' ? tmpl : undefined);
    this.specialTokenIds = new Set(json.added_tokens.filter((t) => t.special).map((t) => t.id));
  }

  encode(text: string, opts: EncodeOptions = {}): number[] {
    return this.hf.encode(text, { add_special_tokens: opts.addSpecialTokens ?? true }).ids;
  }

  decode(ids: ArrayLike<number>, opts: DecodeOptions = {}): string {
    if (ids.length === 0) return '';
    return this.hf.decode(Array.from(ids), { skip_special_tokens: opts.skipSpecialTokens ?? false });
  }

  tokenToId(token: string): number | undefined {
    return this.hf.token_to_id(token);
  }

  idToToken(id: number): string | undefined {
    return this.hf.id_to_token(id);
  }

  /**
   * The bytes token `id` adds in the middle of a text (a SentencePiece `▁` as its space, a
   * byte-level piece's raw bytes even when they are part of a UTF-8 character; an added token's
   * content): OpenAI's `logprobs` `bytes`. Decodes the token alone for a decoder it does not model.
   */
  tokenBytes(id: number): Uint8Array {
    const added = this.json.added_tokens.find((t) => t.id === id);
    if (added) return utf8.encode(added.content);
    const piece = this.idToToken(id);
    if (piece === undefined) return new Uint8Array(0);
    return pieceBytes(this.json.decoder, piece) ?? utf8.encode(this.decode([id]));
  }
}

/** Files beside the model that hold a tokenizer, in the order we try them. */
export const TOKENIZER_FILES = ['tokenizer.json', 'vocab.json', 'merges.txt', 'tokenizer_config.json', 'chat_template.jinja'];

/**
 * Load the tokenizer of a model folder: tokenizer.json, else vocab.json + merges.txt
 * (byte-level BPE; Qwen2's split regex when tokenizer_class says Qwen2), else a llama2.c
 * tokenizer .bin. tokenizer_config.json and chat_template.jinja are read when present.
 */
export async function loadTokenizer(src: FileSource, onProgress?: ProgressFn): Promise<Tokenizer> {
  const files = await src.list();
  const has = (f: string) => files.includes(f);
  onProgress?.({ file: 'tokenizer', loadedBytes: 0, totalBytes: 1, stage: 'tokenizer' });
  const config = has('tokenizer_config.json') ? ((await readJson(src, 'tokenizer_config.json')) as TokenizerConfigJson) : undefined;
  const template = has('chat_template.jinja') ? await src.readText('chat_template.jinja') : undefined;
  let tok: Tokenizer;
  if (has('tokenizer.json')) {
    tok = new Tokenizer(checkTokenizerJson(await readJson(src, 'tokenizer.json')), config ?? {}, template);
  } else if (has('vocab.json') && has('merges.txt')) {
    const vocab = checkVocabMap(await readJson(src, 'vocab.json'), 'vocab.json', 'vocab');
    const merges = parseMergesTxt(await src.readText('merges.txt'));
    const added = addedTokensOf(config ?? {});
    const regex = String(config?.tokenizer_class ?? '').startsWith('Qwen2') ? QWEN2_SPLIT_REGEX : GPT2_SPLIT_REGEX;
    tok = new Tokenizer(byteLevelBpeJson(vocab, merges, added, regex), config ?? {}, template);
  } else {
    const bin = files.find((f) => f === 'tokenizer.bin') ?? files.find((f) => /^tok.*\.bin$/.test(f));
    if (!bin) {
      throw new ModelLoadError('tokenizer.json', `missing from ${src.name} (no vocab.json + merges.txt or llama2.c tokenizer .bin either); add the tokenizer files of the model`);
    }
    tok = new Tokenizer(llama2cTokenizerJson(parseLlama2cTokenizer(await src.read(bin), bin)), config ?? llama2cTokenizerConfig(), template);
  }
  onProgress?.({ file: 'tokenizer', loadedBytes: 1, totalBytes: 1, stage: 'tokenizer' });
  return tok;
}

/** added_tokens_decoder of tokenizer_config.json as tokenizer.json added_tokens. */
function addedTokensOf(config: TokenizerConfigJson): AddedTokenJson[] {
  const dec = config.added_tokens_decoder;
  if (typeof dec !== 'object' || dec === null) return [];
  return Object.entries(dec as Record<string, { content: string; special?: boolean; lstrip?: boolean; rstrip?: boolean; normalized?: boolean; single_word?: boolean }>)
    .map(([id, t]) => ({
      ...addedToken(Number(id), t.content, t.special ?? false),
      lstrip: t.lstrip ?? false, rstrip: t.rstrip ?? false, normalized: t.normalized ?? false, single_word: t.single_word ?? false,
    }))
    .sort((a, b) => a.id - b.id);
}
