// The input of `cli logprobs`: one {"text"} or {"ids"} object per JSONL line, turned into token
// sequences. Bad lines (not JSON, `null`, wrong fields, ids outside the vocabulary) become error
// slots naming file, line and field; a sequence over the context length is skipped or truncated
// with a warning (the user's choice), never fatal. Tested by tests/unit/data/data-score-input.test.ts.
import { describeJsonValue, jsonlLines, parseJsonObjectLine } from './jsonl';

export const TOO_LONG_POLICIES = ['skip', 'truncate'] as const;
export type TooLongPolicy = (typeof TOO_LONG_POLICIES)[number];

export interface ScoreInputOptions {
  encode: (text: string) => number[];
  vocabSize: number;
  /** Longest sequence the model scores, tokens. */
  maxTokens: number;
  tooLong: TooLongPolicy;
}

/** Per non-blank input line: the index of its sequence in `seqs`, or the error written for it. */
export type ScoreSlot = { seq: number } | { error: string };

export interface ScoreInput {
  seqs: number[][];
  slots: ScoreSlot[];
  /** Errors and warnings for stderr, each `file:line: ...`. */
  messages: string[];
  /** Lines that produced no sequence. */
  skipped: number;
  truncated: number;
}

export function readScoreInput(content: string, file: string, o: ScoreInputOptions): ScoreInput {
  const r: ScoreInput = { seqs: [], slots: [], messages: [], skipped: 0, truncated: 0 };
  const fail = (msg: string) => {
    r.messages.push(msg);
    r.slots.push({ error: msg });
    r.skipped++;
  };
  for (const { line, text } of jsonlLines(content)) {
    const where = `${file}:${line}`;
    const parsed = parseJsonObjectLine(text);
    if (!parsed.ok) {
      fail(`${where}: ${parsed.reason}`);
      continue;
    }
    const got = idsOf(parsed.value, o);
    if (typeof got === 'string') {
      fail(`${where}: ${got}`);
      continue;
    }
    let ids = got.ids;
    if (ids.length > o.maxTokens) {
      if (o.tooLong === 'skip') {
        fail(`${where}: "${got.field}" gives ${ids.length} tokens, more than the model's ${o.maxTokens}; skipped (pass --too-long truncate to score the first ${o.maxTokens})`);
        continue;
      }
      r.messages.push(`${where}: warning: "${got.field}" gives ${ids.length} tokens; truncated to the model's ${o.maxTokens}`);
      ids = ids.slice(0, o.maxTokens);
      r.truncated++;
    }
    if (ids.length < 2) r.messages.push(`${where}: warning: "${got.field}" gives fewer than 2 tokens, so no log-probs`);
    r.slots.push({ seq: r.seqs.length });
    r.seqs.push(ids);
  }
  return r;
}

/** The line's tokens and the field they came from, or why there are none. */
function idsOf(obj: Record<string, unknown>, o: ScoreInputOptions): { ids: number[]; field: string } | string {
  if (obj.text !== undefined) {
    if (typeof obj.text !== 'string') return `"text" is ${describeJsonValue(obj.text)}; expected a string`;
    return { ids: o.encode(obj.text), field: 'text' };
  }
  if (obj.ids !== undefined) {
    if (!Array.isArray(obj.ids)) return `"ids" is ${describeJsonValue(obj.ids)}; expected an array of token ids`;
    const bad = obj.ids.findIndex((x) => !Number.isInteger(x) || (x as number) < 0 || (x as number) >= o.vocabSize);
    if (bad >= 0) return `"ids"[${bad}] is ${JSON.stringify(obj.ids[bad])}; token ids are integers in [0, ${o.vocabSize})`;
    return { ids: obj.ids as number[], field: 'ids' };
  }
  return `needs "text" (a string) or "ids" (integers in [0, ${o.vocabSize})); found ${Object.keys(obj).map((k) => `"${k}"`).join(', ') || 'no field'}`;
}
