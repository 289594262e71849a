// Streaming view of one assistant turn in the hermes/Qwen tool-call format: text pieces go in,
// content deltas and complete tool calls come out. Text that may be the start of `<tool_call>`
// (and the newline before one) is held back; a block is parsed when `</tool_call>` arrives (with
// src/agents/tool-parse.ts, as the non-streaming path); a damaged block is passed on as content.
// Used by completions.ts; tested by tests/unit/server/serve-request.test.ts.
import { parseAssistantTurn, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from '../../agents/tool-parse';

export type StreamEvent = { kind: 'content'; text: string } | { kind: 'call'; name: string; arguments: string };

export class ToolCallStream {
  private buf = '';
  private inCall = false;

  /** @param parseCalls false: everything is content (tool_choice "none" or no tools). */
  constructor(private readonly parseCalls: boolean) {}

  push(text: string): StreamEvent[] {
    this.buf += text;
    return this.drain(false);
  }

  /** The rest at the end of the turn (an unclosed block becomes content). */
  end(): StreamEvent[] {
    return this.drain(true);
  }

  private drain(final: boolean): StreamEvent[] {
    const ev: StreamEvent[] = [];
    const content = (t: string) => { if (t) ev.push({ kind: 'content', text: t }); };
    if (!this.parseCalls) {
      content(this.buf);
      this.buf = '';
      return ev;
    }
    while (true) {
      if (this.inCall) {
        const close = this.buf.indexOf(TOOL_CALL_CLOSE);
        if (close < 0) {
          if (final) {
            content(this.buf);
            this.buf = '';
          }
          return ev;
        }
        const block = this.buf.slice(0, close + TOOL_CALL_CLOSE.length);
        this.buf = this.buf.slice(block.length);
        this.inCall = false;
        const b = parseAssistantTurn(block).blocks[0];
        if (b?.ok) ev.push({ kind: 'call', name: b.call.name, arguments: JSON.stringify(b.call.arguments) });
        else content(block);
        continue;
      }
      const open = this.buf.indexOf(TOOL_CALL_OPEN);
      if (open >= 0) {
        content(this.buf.slice(0, open).replace(/\n$/, ''));
        this.buf = this.buf.slice(open);
        this.inCall = true;
        continue;
      }
      const keep = final ? 0 : heldBack(this.buf);
      content(this.buf.slice(0, this.buf.length - keep));
      this.buf = this.buf.slice(this.buf.length - keep);
      return ev;
    }
  }
}

/** Length of the tail that could still become "\n<tool_call>". */
function heldBack(s: string): number {
  for (let n = Math.min(s.length, TOOL_CALL_OPEN.length + 1); n > 0; n--) {
    const tail = s.slice(s.length - n);
    if (TOOL_CALL_OPEN.startsWith(tail) || ('\n' + TOOL_CALL_OPEN).startsWith(tail)) return n;
  }
  return 0;
}
