// Tokens and loss mask of one chat conversation rendered with the model's chat template: the
// assistant spans are found by rendering incrementally (the conversation up to message k-1 with
// the generation prompt, then up to k), so the mask is 1 exactly on the tokens an assistant
// message contributes (its content, tool calls and end-of-turn token) and 0 on role headers,
// system/user/tool messages and template separators. Used by src/train/data.ts; tested by
// tests/unit/train/train-data.test.ts with the Qwen2.5 template and the plain fallback.
import { PLAIN_TEMPLATE, renderChat, type ChatMessage, type ToolSpec } from '../agents/chat-template';
import { withPlainToolsBlock, withToolCallText } from '../agents/plain-chat';
import type { Tokenizer } from '../model/tokenizer';

/** Token-level view: tokenMask[t] is 1 when token t was written by an assistant message. */
export interface ChatTokens {
  ids: number[];
  tokenMask: number[];
}

export interface ChatTokenizeOptions {
  /** Template source; default the tokenizer's, else the plain fallback (PLAIN_TEMPLATE). */
  template?: string;
  tools?: ToolSpec[];
}

/** Special tokens that end a turn in the templates we know of. */
const END_OF_TURN = ['<|im_end|>', '<|eot_id|>', '<|end|>', '<end_of_turn>', '</s>', '<|endoftext|>'];

/** The strings of the tokenizer's end-of-turn tokens (EOS ids plus the known names it has). */
function endOfTurnStrings(tok: Tokenizer): string[] {
  const out = new Set<string>();
  for (const id of tok.eosTokenIds) {
    const s = tok.idToToken(id);
    if (s) out.add(s);
  }
  for (const s of END_OF_TURN) if (tok.tokenToId(s) !== undefined) out.add(s);
  return [...out];
}

/** End of the span: right after the last end-of-turn token in `text`, else its whole length. */
function spanEnd(text: string, eot: string[]): number {
  let end = -1;
  for (const s of eot) {
    const i = text.lastIndexOf(s);
    if (i >= 0) end = Math.max(end, i + s.length);
  }
  return end >= 0 ? end : text.length;
}

/**
 * Renders and tokenizes `messages` (the ids are exactly those of tokenizing the rendered text).
 * Throws an Error saying what is wrong when the template does not render the conversation as a
 * growing prefix.
 */
export function tokenizeChat(tok: Tokenizer, given: ChatMessage[], opts: ChatTokenizeOptions = {}): ChatTokens {
  const template = opts.template ?? tok.chatTemplate;
  const plain = template === undefined || template === PLAIN_TEMPLATE;
  // The plain template renders content only: tool calls become their <tool_call> text and the
  // tools a `# Tools` system block, as the agent loop's prompts and the model's own turns have them.
  const messages = plain ? (opts.tools?.length ? withPlainToolsBlock(given, opts.tools) : given).map(withToolCallText) : given;
  const special = (id: number | undefined) => (id === undefined ? '' : tok.idToToken(id) ?? '');
  const ro = { tools: plain ? undefined : opts.tools, bosToken: special(tok.bosTokenId), eosToken: special(tok.eosTokenIds[0]) };
  const render = (upTo: number, gen: boolean) => renderChat(template, messages.slice(0, upTo), { ...ro, addGenerationPrompt: gen });
  const full = render(messages.length, false);
  const eot = endOfTurnStrings(tok);

  // Character spans [start, end) of the assistant messages in `full`.
  const spans: [number, number][] = [];
  for (const [k, m] of messages.entries()) {
    if (m.role !== 'assistant') continue;
    const before = render(k, true);
    const through = render(k + 1, false);
    if (!through.startsWith(before) || !full.startsWith(through)) {
      throw new Error(`the chat template does not render messages[${k}] (assistant) as a continuation of the conversation before it, so its tokens cannot be located; use a template that renders earlier turns unchanged, or pre-tokenize the example as {"ids", "mask"}`);
    }
    const start = before.length;
    spans.push([start, start + spanEnd(through.slice(start), eot)]);
  }

  // The whole text is tokenized once; a span boundary at character p falls after the tokens that
  // tokenizing full[0, p) shares with it (a token straddling p counts as the assistant's).
  // A template without BOS handling (the plain fallback) gets the tokenizer's own, as text does.
  const enc = (text: string) => tok.encode(text, { addSpecialTokens: plain });
  const ids = enc(full);
  const boundary = (p: number, straddleIn: boolean): number => {
    if (p >= full.length) return ids.length;
    const pre = enc(full.slice(0, p));
    let n = 0;
    while (n < pre.length && n < ids.length && pre[n] === ids[n]) n++;
    return straddleIn && n < pre.length ? n + 1 : n;
  };
  const tokenMask = new Array<number>(ids.length).fill(0);
  for (const [s, e] of spans) tokenMask.fill(1, boundary(s, false), boundary(e, true));
  return { ids, tokenMask };
}
