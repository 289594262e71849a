// Shape checks of a tokenizer.json (and vocab.json) before the tokenizer library sees it: the
// library accepts ids written as strings ("5") and then scores garbage, so every vocabulary id
// and added-token id must be a non-negative integer, and the error names the file and field.
// Called by loadTokenizer (src/model/tokenizer/index.ts); tested by tests/unit/model/tokenizer-validate.test.ts.
import { ModelLoadError } from '../io/errors';
import type { TokenizerJson } from './json';

const FIX = 'token ids must be non-negative JSON integers; re-save the tokenizer with transformers (tokenizer.save_pretrained) or fix the file';

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const show = (v: unknown) => `${JSON.stringify(v)} (${v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`})`;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A token -> id map (tokenizer.json `model.vocab` of BPE/WordPiece/WordLevel, or vocab.json). */
export function checkVocabMap(vocab: unknown, file: string, field: string): Record<string, number> {
  if (!isObject(vocab)) throw new ModelLoadError(file, `"${field}" is ${show(vocab)}; expected an object mapping each token to its id`, field);
  for (const [token, id] of Object.entries(vocab)) {
    if (!isId(id)) throw new ModelLoadError(file, `"${field}" gives the token ${JSON.stringify(token)} the id ${show(id)}; ${FIX}`, `${field}[${JSON.stringify(token)}]`);
  }
  return vocab as Record<string, number>;
}

/** Checks the parts of a parsed tokenizer.json that carry ids; returns it typed. */
export function checkTokenizerJson(json: unknown, file = 'tokenizer.json'): TokenizerJson {
  if (!isObject(json)) throw new ModelLoadError(file, `is ${show(json)}; expected a tokenizer.json object`);
  const model = json.model;
  if (!isObject(model)) throw new ModelLoadError(file, `"model" is ${show(model)}; expected the tokenizer model object`, 'model');
  if (model.type === 'Unigram') {
    if (!Array.isArray(model.vocab)) throw new ModelLoadError(file, `"model.vocab" is ${show(model.vocab)}; a Unigram vocab is a list of [piece, score]`, 'model.vocab');
    model.vocab.forEach((e: unknown, i) => {
      if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'number') {
        throw new ModelLoadError(file, `"model.vocab"[${i}] is ${show(e)}; expected [piece (a string), score (a number)]`, `model.vocab[${i}]`);
      }
    });
  } else {
    checkVocabMap(model.vocab, file, 'model.vocab');
  }
  const added = json.added_tokens ?? [];
  if (!Array.isArray(added)) throw new ModelLoadError(file, `"added_tokens" is ${show(added)}; expected a list`, 'added_tokens');
  added.forEach((t: unknown, i) => {
    if (!isObject(t)) throw new ModelLoadError(file, `"added_tokens"[${i}] is ${show(t)}; expected {"id", "content", ...}`, `added_tokens[${i}]`);
    if (!isId(t.id)) throw new ModelLoadError(file, `"added_tokens"[${i}].id is ${show(t.id)}; ${FIX}`, `added_tokens[${i}].id`);
    if (typeof t.content !== 'string') throw new ModelLoadError(file, `"added_tokens"[${i}].content is ${show(t.content)}; expected the token's text`, `added_tokens[${i}].content`);
  });
  return { ...json, added_tokens: added } as TokenizerJson;
}
