// llama2.c tokenizer files (tok*.bin): int32 max_token_length, then per token a float32 score,
// an int32 byte length and the UTF-8 bytes (spaces stored as ' ', BOS/EOS as "\n<s>\n" and
// "\n</s>\n", byte tokens as "<0xXX>"). Converted to a SentencePiece-style tokenizer.json.
// Tested by tests/unit/model/tokenizer-llama2c.test.ts against llama2c-reference.ts.
import { ModelLoadError } from '../io/errors';
import { sentencePieceBpeJson, type SentencePiece, type TokenizerJson } from './json';

export interface Llama2cVocab {
  maxTokenLength: number;
  /** Token strings as llama2.c stores them (' ' for spaces). */
  pieces: string[];
  scores: number[];
}

export function parseLlama2cTokenizer(bytes: Uint8Array, file = 'tokenizer.bin'): Llama2cVocab {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dec = new TextDecoder('utf-8', { fatal: true });
  if (bytes.length < 4) throw new ModelLoadError(file, 'is too small for a llama2.c tokenizer (truncated?)');
  const maxTokenLength = dv.getInt32(0, true);
  if (maxTokenLength <= 0 || maxTokenLength > 1024) throw new ModelLoadError(file, `max_token_length ${maxTokenLength} is not plausible: not a llama2.c tokenizer file`);
  const pieces: string[] = [], scores: number[] = [];
  let at = 4;
  while (at < bytes.length) {
    if (at + 8 > bytes.length) throw new ModelLoadError(file, `truncated in the entry of token ${pieces.length}`);
    const score = dv.getFloat32(at, true), len = dv.getInt32(at + 4, true);
    at += 8;
    if (len < 0 || len > maxTokenLength * 4 || at + len > bytes.length) throw new ModelLoadError(file, `token ${pieces.length} has length ${len}: the file is truncated or corrupt`);
    try {
      pieces.push(dec.decode(bytes.subarray(at, at + len)));
    } catch {
      throw new ModelLoadError(file, `token ${pieces.length} is not valid UTF-8`);
    }
    scores.push(score);
    at += len;
  }
  return { maxTokenLength, pieces, scores };
}

const BYTE_PIECE = /^<0x[0-9A-F]{2}>$/;

/** SentencePiece view of a llama2.c vocab: ids 0/1/2 are <unk>/<s>/</s>, '▁' for spaces. */
export function llama2cPieces(v: Llama2cVocab): SentencePiece[] {
  return v.pieces.map((p, i): SentencePiece => {
    if (i === 0) return { piece: '<unk>', score: 0, kind: 'unknown' };
    if (i === 1) return { piece: '<s>', score: 0, kind: 'control' };
    if (i === 2) return { piece: '</s>', score: 0, kind: 'control' };
    if (BYTE_PIECE.test(p)) return { piece: p, score: 0, kind: 'byte' };
    return { piece: p.replaceAll(' ', '▁'), score: v.scores[i], kind: 'normal' };
  });
}

/** tokenizer.json for a llama2.c vocab (BOS 1 added by the post-processor, as llama2.c does). */
export function llama2cTokenizerJson(v: Llama2cVocab): TokenizerJson {
  return sentencePieceBpeJson(llama2cPieces(v), 1);
}

/** The tokenizer_config.json written beside it. */
export function llama2cTokenizerConfig(): Record<string, unknown> {
  return {
    tokenizer_class: 'LlamaTokenizerFast',
    bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>',
    add_bos_token: true, add_eos_token: false,
    clean_up_tokenization_spaces: false, legacy: true,
    model_max_length: 1000000000000000,
  };
}
