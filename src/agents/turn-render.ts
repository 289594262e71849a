// Turn boundaries as token ids, derived from the model's chat template so any template works:
// the prompt is the rendered opening conversation; what follows an assistant turn is the text
// the template adds after the assistant's content (e.g. "\n" after <|im_end|>) plus the
// difference between rendering the conversation with and without the new tool messages —
// tokenized alone, never re-tokenizing the history. Without a template: the plain fallback,
// tools listed in the system text. Tested by tests/unit/agents/agent-turns.test.ts (Qwen2.5, plain).
import type { Tokenizer } from '../model/tokenizer';
import { withPlainToolsBlock } from './plain-chat';
import { PLAIN_TEMPLATE, renderChat, type ChatMessage, type RenderOptions, type ToolSpec } from './chat-template';

/** Stands in for an assistant's content to find what the template writes after it. */
const SENTINEL = '\u0001assistant-content-sentinel\u0001';

export interface TurnRendererOptions {
  /** The chat template; default the tokenizer's; null forces the plain fallback. */
  template?: string | null;
  /** The tools shown to the model (registry.tools()). */
  tools?: ToolSpec[];
  /** EOS ids of the model config, added to the tokenizer's as default stop ids. */
  modelEosTokenIds?: number[];
  /** False: the plain template does not list the tools (the prompts describe them, or the context is tiny). Default true. */
  listTools?: boolean;
}

export class TurnRenderer {
  readonly template: string;
  /** True when the plain `role: content` template is used (the model has none, or it was asked for). */
  readonly plain: boolean;
  /** Whether the plain template writes its `# Tools` system block. */
  readonly listTools: boolean;
  readonly tools: ToolSpec[];
  /** Ids that end an assistant turn unless the config names others. */
  readonly defaultStopIds: number[];

  constructor(readonly tok: Tokenizer, opts: TurnRendererOptions = {}) {
    const t = opts.template === null ? undefined : (opts.template ?? tok.chatTemplate);
    this.template = t ?? PLAIN_TEMPLATE;
    // The plain template, defaulted (no template) or forced (model.template: plain), lists the tools itself.
    this.plain = this.template === PLAIN_TEMPLATE;
    this.listTools = opts.listTools ?? true;
    this.tools = opts.tools ?? [];
    const imEnd = tok.tokenToId('<|im_end|>');
    const ids = new Set([...tok.eosTokenIds, ...(opts.modelEosTokenIds ?? []), ...(imEnd !== undefined && !this.plain ? [imEnd] : [])]);
    this.defaultStopIds = [...ids];
  }

  /** The opening conversation ready for the first assistant turn, and the messages as rendered. */
  prompt(messages: ChatMessage[]): { ids: number[]; messages: ChatMessage[] } {
    const msgs = this.plain && this.listTools && this.tools.length ? withPlainToolsBlock(messages, this.tools) : messages.slice();
    const text = this.render(msgs, true);
    const ids = this.tok.encode(text);
    this.checkSpecialTokens(text, ids);
    return { ids, messages: msgs };
  }

  /**
   * What the first assistant turn's slot is fed before sampling: the prompt, then `prefill` (text the
   * config forces at the start of the reply) as its own tokens. The agent loop and the Datasets
   * preview both open an episode here, so the preview is the model's input token for token.
   */
  opening(messages: ChatMessage[], prefill?: string): { prompt: number[]; forced: number[]; messages: ChatMessage[] } {
    const p = this.prompt(messages);
    return { prompt: p.ids, forced: prefill ? this.encodeText(prefill) : [], messages: p.messages };
  }

  /**
   * The tokens that follow an assistant turn: `history` ends with that assistant message (as it
   * will be logged), `added` are the new messages (tool responses), `stopId` the id that ended
   * the turn (already in the sequence, so not repeated) or null.
   */
  continuation(history: ChatMessage[], added: ChatMessage[], stopId: number | null): number[] {
    const last = history[history.length - 1];
    if (!last || last.role !== 'assistant') throw new Error('TurnRenderer.continuation: history must end with the assistant turn');
    const text = this.closeText(history.slice(0, -1), stopId) + this.addedText(history, added);
    const ids = this.tok.encode(text, { addSpecialTokens: false });
    this.checkSpecialTokens(text, ids);
    return ids;
  }

  /** Plain text to tokens without special-token additions (teacher-forced prefills). */
  encodeText(text: string): number[] {
    return this.tok.encode(text, { addSpecialTokens: false });
  }

  /** What the template writes after an assistant's content, less the stop token already generated. */
  private closeText(before: ChatMessage[], stopId: number | null): string {
    const s = this.render([...before, { role: 'assistant', content: SENTINEL }], false);
    const at = s.lastIndexOf(SENTINEL);
    if (at < 0) throw new Error('The chat template drops the assistant content; the agent loop cannot derive its turn boundaries from it.');
    let close = s.slice(at + SENTINEL.length);
    if (stopId !== null) {
      const stopText = this.tok.decode([stopId]);
      if (stopText && close.startsWith(stopText)) close = close.slice(stopText.length);
    }
    return close;
  }

  /** Rendering with the new messages minus rendering without them (history must be a prefix). */
  private addedText(history: ChatMessage[], added: ChatMessage[]): string {
    const a = this.render(history, false);
    const b = this.render([...history, ...added], true);
    if (!b.startsWith(a)) {
      throw new Error('The chat template renders earlier turns differently once tool messages follow; the agent loop needs a template whose renderings only grow.');
    }
    return b.slice(a.length);
  }

  private render(messages: ChatMessage[], addGenerationPrompt: boolean): string {
    const eos = this.tok.eosTokenIds[0];
    const opts: RenderOptions = { addGenerationPrompt, eosToken: eos === undefined ? '' : (this.tok.idToToken(eos) ?? '') };
    if (!this.plain && this.tools.length) opts.tools = this.tools;
    return renderChat(this.template, messages, opts);
  }

  /** Every added token (<|im_start|>, <tool_call>, ...) in the text must come out as its one id. */
  private checkSpecialTokens(text: string, ids: number[]): void {
    for (const t of this.tok.json.added_tokens) {
      if (t.content.length < 2 || !text.includes(t.content)) continue;
      const inText = text.split(t.content).length - 1;
      const inIds = ids.reduce((n, id) => n + (id === t.id ? 1 : 0), 0);
      if (inIds < inText) {
        throw new Error(`The tokenizer split ${JSON.stringify(t.content)} into pieces (${inText} in the text, ${inIds} as id ${t.id}); the turn boundaries would not match the model's training.`);
      }
    }
  }
}

