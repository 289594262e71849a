// SFT data: a JSONL file (content + name) -> token ids and loss masks, every line validated.
// Line formats: {"messages": [...], "tools"?: [...]} (rendered with the model's chat template,
// loss on assistant tokens only, see chat-mask.ts), {"text": "..."} (loss on every token after
// the first) and pre-tokenized {"ids": [...], "mask": [...]}. Bad lines are skipped and reported
// by line number and field; long examples are truncated and counted. Batching: batches.ts.
// Tested by tests/unit/train/train-data.test.ts.
//
// Mask convention (the one masked_ce in src/reference/loss.ts uses): an example of T tokens has
// mask [T-1], one value per log-prob row: mask[t] = 1 when the loss includes
// log p(ids[t+1] | ids[..t]), i.e. when token t+1 is a trained token. A pre-tokenized "mask" may
// be given per token ([T], aligned with ids; its first value predicts nothing and is dropped) or
// per row ([T-1], used as is).
import type { ChatMessage, ToolCall, ToolSpec } from '../agents/chat-template';
import type { Tokenizer } from '../model/tokenizer';
import { stripBom } from '../data/jsonl';
import { tokenizeChat } from './chat-mask';

export type SftFormat = 'messages' | 'text' | 'ids';

export interface SftExample {
  /** [T] token ids. */
  ids: number[];
  /** [T-1]: mask[t] = 1 when log p(ids[t+1] | ids[..t]) is in the loss (masked_ce's rows). */
  mask: number[];
  /** 1-based line of the source file. */
  line: number;
  format: SftFormat;
  /** Cut to maxLength tokens. */
  truncated: boolean;
  /** Tokens of the line before any cut (ids.length unless truncated). */
  length: number;
}

export interface SkippedLine {
  line: number;
  /** `file:line: what is wrong`. */
  reason: string;
}

export interface SftDataset {
  file: string;
  /** Non-empty lines read. */
  lines: number;
  examples: SftExample[];
  skipped: SkippedLine[];
  /** Examples cut to maxLength. */
  truncated: number;
  /** Sum of T and of the masks over the examples kept. */
  tokens: number;
  trainedTokens: number;
}

export interface SftDataOptions {
  tokenizer: Tokenizer;
  /** Longest example in tokens; longer ones keep their first maxLength tokens. */
  maxLength: number;
  /** Chat template source; default the tokenizer's (plain fallback when it has none). */
  template?: string;
  /** False: a line's "tools" are not rendered (model.template plain_no_tools). Default true. */
  listTools?: boolean;
  /** Ids must be below this (default the tokenizer's vocabSize; pass the model's V). */
  vocabSize?: number;
}

const ROLES = ['system', 'user', 'assistant', 'tool'];

/** A line that fails validation; the message names the field. */
class LineError extends Error {}

const show = (v: unknown) => (v === undefined ? 'missing' : JSON.stringify(v)?.slice(0, 60) ?? String(v));
const fail = (field: string, msg: string): never => {
  throw new LineError(`${field} ${msg}`);
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseToolCall(v: unknown, at: string): ToolCall {
  if (!isObject(v)) return fail(at, `is ${show(v)}; expected {"type": "function", "function": {"name", "arguments"}}`);
  const f = v.function;
  if (!isObject(f)) return fail(`${at}.function`, `is ${show(f)}; expected {"name", "arguments"}`);
  if (typeof f.name !== 'string' || !f.name) fail(`${at}.function.name`, `is ${show(f.name)}; expected the tool's name`);
  let args: unknown = f.arguments ?? {};
  if (typeof args === 'string') {
    // OpenAI sends arguments as a JSON string; templates expect the object.
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      fail(`${at}.function.arguments`, `is the string ${show(f.arguments)}, which is not JSON`);
    }
  }
  if (!isObject(args)) fail(`${at}.function.arguments`, `is ${show(args)}; expected an object`);
  return { type: 'function', function: { name: f.name as string, arguments: args as Record<string, unknown> } };
}

function parseMessages(v: unknown): ChatMessage[] {
  if (!Array.isArray(v) || v.length === 0) return fail('"messages"', `is ${show(v)}; expected a non-empty list of {"role", "content"}`);
  const out = v.map((m, i): ChatMessage => {
    const at = `"messages"[${i}]`;
    if (!isObject(m)) return fail(at, `is ${show(m)}; expected {"role", "content"}`);
    if (typeof m.role !== 'string' || !ROLES.includes(m.role)) fail(`${at}.role`, `is ${show(m.role)}; use system, user, assistant or tool`);
    const role = m.role as ChatMessage['role'];
    const calls = m.tool_calls;
    if (calls !== undefined && calls !== null && (role !== 'assistant' || !Array.isArray(calls))) {
      fail(`${at}.tool_calls`, role !== 'assistant' ? `is set on a ${role} message; only assistant messages call tools` : `is ${show(calls)}; expected a list`);
    }
    const toolCalls = Array.isArray(calls) ? calls.map((c, j) => parseToolCall(c, `${at}.tool_calls[${j}]`)) : undefined;
    let content = m.content;
    if ((content === null || content === undefined) && toolCalls?.length) content = '';
    if (typeof content !== 'string') fail(`${at}.content`, `is ${show(content)}; expected a string`);
    const msg: ChatMessage = { role, content: content as string };
    if (toolCalls?.length) msg.tool_calls = toolCalls;
    if (typeof m.name === 'string') msg.name = m.name;
    return msg;
  });
  if (!out.some((m) => m.role === 'assistant')) fail('"messages"', 'has no assistant message: nothing to train on');
  return out;
}

function parseTools(v: unknown): ToolSpec[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) return fail('"tools"', `is ${show(v)}; expected a list of {"type": "function", "function": {...}}`);
  v.forEach((t, i) => {
    if (!isObject(t) || !isObject(t.function) || typeof t.function.name !== 'string') fail(`"tools"[${i}]`, `is ${show(t)}; expected {"type": "function", "function": {"name", "description", "parameters"}}`);
  });
  return v as ToolSpec[];
}

function parseIds(v: unknown, V: number): number[] {
  if (!Array.isArray(v)) return fail('"ids"', `is ${show(v)}; expected a list of token ids`);
  v.forEach((id, i) => {
    if (!Number.isInteger(id) || id < 0 || id >= V) fail(`"ids"[${i}]`, `is ${show(id)}; expected a token id in [0, ${V})`);
  });
  return v as number[];
}

/** A given mask of [T] (per token) or [T-1] (per row) -> per-row mask [T-1]. */
function parseMask(v: unknown, T: number): number[] {
  if (!Array.isArray(v)) return fail('"mask"', `is ${show(v)}; expected a list of 0/1 values`);
  if (v.length !== T && v.length !== T - 1) fail('"mask"', `has ${v.length} values for ${T} ids; expected ${T} (one per token) or ${T - 1} (one per predicted token)`);
  v.forEach((x, i) => {
    if (x !== 0 && x !== 1) fail(`"mask"[${i}]`, `is ${show(x)}; expected 0 or 1`);
  });
  return v.length === T ? (v as number[]).slice(1) : (v as number[]);
}

/** One parsed line -> ids and per-row mask, before truncation. */
function exampleOf(j: Record<string, unknown>, opts: SftDataOptions): { format: SftFormat; ids: number[]; mask: number[] } {
  const keys = (['messages', 'text', 'ids'] as const).filter((k) => j[k] !== undefined);
  if (keys.length !== 1) {
    fail(keys.length ? `"${keys.join('" and "')}"` : 'the line', keys.length ? 'are both set; use exactly one of "messages", "text" or "ids"' : `has keys ${show(Object.keys(j))}; expected one of "messages", "text" or "ids"`);
  }
  const format = keys[0];
  if (format === 'messages') {
    const messages = parseMessages(j.messages);
    let chat;
    try {
      const tools = parseTools(j.tools);
      chat = tokenizeChat(opts.tokenizer, messages, { template: opts.template, tools: opts.listTools === false ? undefined : tools });
    } catch (e) {
      if (e instanceof LineError) throw e;
      return fail('"messages"', `cannot be rendered: ${(e as Error).message}`);
    }
    return { format, ids: chat.ids, mask: chat.tokenMask.slice(1) };
  }
  if (format === 'text') {
    if (typeof j.text !== 'string' || !j.text) fail('"text"', `is ${show(j.text)}; expected a non-empty string`);
    const ids = opts.tokenizer.encode(j.text as string, { addSpecialTokens: true });
    return { format, ids, mask: ids.slice(1).map(() => 1) };
  }
  const ids = parseIds(j.ids, opts.vocabSize ?? opts.tokenizer.vocabSize);
  if (j.mask === undefined) fail('"mask"', 'is missing; pre-tokenized lines need {"ids": [...], "mask": [...]}');
  return { format, ids, mask: parseMask(j.mask, ids.length) };
}

/** Reads and validates a whole JSONL file; never throws on a bad line (it is skipped and reported). */
export function readSftJsonl(content: string, file: string, opts: SftDataOptions): SftDataset {
  if (!Number.isInteger(opts.maxLength) || opts.maxLength < 2) throw new Error(`readSftJsonl: maxLength is ${opts.maxLength}; expected an integer >= 2`);
  const ds: SftDataset = { file, lines: 0, examples: [], skipped: [], truncated: 0, tokens: 0, trainedTokens: 0 };
  const rows = stripBom(content).split(/\r?\n/);
  for (const [i, raw] of rows.entries()) {
    const line = i + 1;
    if (!raw.trim()) continue;
    ds.lines++;
    const skip = (msg: string) => ds.skipped.push({ line, reason: `${file}:${line}: ${msg}` });
    let j: unknown;
    try {
      j = JSON.parse(raw);
    } catch (e) {
      skip(`not valid JSON (${(e as Error).message})`);
      continue;
    }
    try {
      if (!isObject(j)) fail('the line', `is ${show(j)}; expected a JSON object with "messages", "text" or "ids"`);
      const ex = exampleOf(j as Record<string, unknown>, opts);
      if (ex.ids.length < 2) fail(`"${ex.format}"`, `gives ${ex.ids.length} token(s); at least 2 are needed to predict one`);
      const truncated = ex.ids.length > opts.maxLength;
      const ids = truncated ? ex.ids.slice(0, opts.maxLength) : ex.ids;
      const mask = ex.mask.slice(0, ids.length - 1);
      const trained = mask.reduce((a, b) => a + b, 0);
      if (trained === 0) fail(`"${ex.format}"`, truncated ? `has no trained token in its first ${opts.maxLength} tokens (maxLength); raise maxLength or shorten the prompt` : 'has no trained token (every mask value is 0)');
      if (truncated) ds.truncated++;
      ds.examples.push({ ids, mask, line, format: ex.format, truncated, length: ex.ids.length });
      ds.tokens += ids.length;
      ds.trainedTokens += trained;
    } catch (e) {
      skip(e instanceof LineError ? e.message : `could not be read (${(e as Error).message})`);
    }
  }
  return ds;
}

/** A few lines for logs and the UI: counts, truncation and the first reasons lines were skipped. */
export function describeSftDataset(ds: SftDataset, maxReasons = 5): string {
  const head = `${ds.file}: ${ds.examples.length} examples from ${ds.lines} lines, ${ds.tokens} tokens (${ds.trainedTokens} trained)` +
    `, ${ds.truncated} truncated, ${ds.skipped.length} skipped`;
  const more = ds.skipped.length > maxReasons ? [`  ... and ${ds.skipped.length - maxReasons} more`] : [];
  return [head, ...ds.skipped.slice(0, maxReasons).map((s) => `  ${s.reason}`), ...more].join('\n');
}
