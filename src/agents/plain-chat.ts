// What the plain `role: content` template (PLAIN_TEMPLATE) cannot render itself, written into the
// messages instead: the tools as a `# Tools` block at the end of the system message (the agent
// loop's prompt, src/agents/turn-render.ts) and an assistant's structured tool calls as the
// `<tool_call>` text a model writes (SFT lines, src/train/chat-mask.ts). Tested by
// tests/unit/agents/agent-turns.test.ts and tests/unit/train/train-data.test.ts.
import { pyJson, renderToolsBlock } from '../tools/qwen-tools';
import type { JsonSchema } from '../tools/json-schema';
import type { ChatMessage, ToolSpec } from './chat-template';

/** The messages with the tools' `# Tools` block appended to the system message (one is added when there is none). */
export function withPlainToolsBlock(messages: readonly ChatMessage[], tools: ToolSpec[]): ChatMessage[] {
  const block = renderToolsBlock(tools.map((t) => ({ ...t, function: { ...t.function, parameters: t.function.parameters as JsonSchema } }))).replace(/^\n+/, '');
  const msgs = messages.slice();
  if (msgs[0]?.role === 'system') msgs[0] = { ...msgs[0], content: `${msgs[0].content}\n\n${block}` };
  else msgs.unshift({ role: 'system', content: block });
  return msgs;
}

/** An assistant message with its tool calls written into its content as `<tool_call>` blocks (the hermes / Qwen text). */
export function withToolCallText(m: ChatMessage): ChatMessage {
  if (!m.tool_calls?.length) return m;
  const calls = m.tool_calls.map((c) => `<tool_call>\n${pyJson({ name: c.function.name, arguments: c.function.arguments })}\n</tool_call>`);
  const { tool_calls: _calls, ...rest } = m;
  return { ...rest, content: [m.content, ...calls].filter((s) => s).join('\n') };
}
