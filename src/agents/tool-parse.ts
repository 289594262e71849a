// Reads one assistant turn in the hermes/Qwen format: every <tool_call> block in order, each a
// parsed call or an error the model will read back (malformed JSON, no JSON object, missing
// </tool_call>); a turn without blocks is the final answer. The JSON of a block is parsed by
// src/tools/qwen-tools.ts parseToolCalls. Tested by tests/unit/agents/agent-parse.test.ts.
import { parseToolCalls, type ParsedToolCall } from '../tools/qwen-tools';

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

export type TurnBlock =
  | { ok: true; call: ParsedToolCall; raw: string }
  | { ok: false; error: string; raw: string; /** The tool's name when it could be read. */ name?: string };

export interface ParsedTurn {
  /** The <tool_call> blocks in order of appearance; empty: the turn is a final answer. */
  blocks: TurnBlock[];
  /** The text without the well-formed blocks (what a chat message's `content` holds). */
  content: string;
}

export function parseAssistantTurn(text: string): ParsedTurn {
  const blocks: TurnBlock[] = [];
  let content = '';
  let at = 0;
  while (true) {
    const open = text.indexOf(TOOL_CALL_OPEN, at);
    if (open < 0) break;
    const bodyStart = open + TOOL_CALL_OPEN.length;
    const close = text.indexOf(TOOL_CALL_CLOSE, bodyStart);
    const nextOpen = text.indexOf(TOOL_CALL_OPEN, bodyStart);
    if (close < 0 || (nextOpen >= 0 && nextOpen < close)) {
      // No closing tag before the next call (or the end): the block runs to there.
      const end = nextOpen >= 0 ? nextOpen : text.length;
      const raw = text.slice(open, end);
      blocks.push({ ok: false, error: `tool call is missing ${TOOL_CALL_CLOSE}: ${snippet(raw)}`, raw, ...nameOf(raw) });
      content += text.slice(at, end);
      at = end;
      continue;
    }
    const end = close + TOOL_CALL_CLOSE.length;
    const raw = text.slice(open, end);
    const block = parseBlock(raw);
    blocks.push(block);
    // Well-formed calls leave the content (the template renders them from tool_calls), together
    // with the newline that separates them from the text before.
    content += block.ok ? text.slice(at, open).replace(/\n$/, '') : text.slice(at, end);
    at = end;
  }
  content += text.slice(at);
  return { blocks, content: blocks.some((b) => b.ok) ? content.trim() : content };
}

/** One complete `<tool_call>...</tool_call>` block. */
function parseBlock(raw: string): TurnBlock {
  const { calls, errors } = parseToolCalls(raw);
  if (calls.length === 1) return { ok: true, call: calls[0], raw };
  if (errors.length) return { ok: false, error: errors[0], raw, ...nameOf(raw) };
  // The body is not one {...}: say whether it is broken JSON or JSON of the wrong shape.
  let why = 'is not a JSON object {"name": ..., "arguments": {...}}';
  try {
    JSON.parse(raw.slice(TOOL_CALL_OPEN.length, -TOOL_CALL_CLOSE.length));
  } catch (e) {
    why = `is not valid JSON (${(e as Error).message})`;
  }
  return { ok: false, error: `tool call ${why}: ${snippet(raw)}`, raw, ...nameOf(raw) };
}

/** The "name" of a damaged call, when a regex can still find it (for metrics and logs). */
function nameOf(raw: string): { name?: string } {
  const m = /"name"\s*:\s*"([^"\\]{1,64})"/.exec(raw);
  return m ? { name: m[1] } : {};
}

function snippet(raw: string): string {
  const s = raw.replace(/\s+/g, ' ').trim();
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}
