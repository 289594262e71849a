// The Qwen2.5 tool-calling format: tools as the JSON objects the chat template expects, the
// `# Tools` system-prompt block rendered exactly as its `tojson` does (Python json.dumps
// separators, non-ASCII kept), and the parser of <tool_call> blocks (anchors.md section 2).
// Tested against shared/models/qwen2.5-tokenizer/rendered_example.txt in tools-registry.test.ts.
import type { JsonSchema } from './json-schema';

/** What Qwen's chat template iterates over in `tools`. */
export interface QwenTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

export const QWEN_DEFAULT_SYSTEM = 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.';

/** JSON with Python's json.dumps separators (", " and ": "), keys in insertion order. */
export function pyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (typeof value === 'object') {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`);
    return `{${parts.join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** The system turn's content when tools are present: `system` then the `# Tools` block. */
export function renderToolsSystemPrompt(tools: QwenTool[], system: string = QWEN_DEFAULT_SYSTEM): string {
  return system + renderToolsBlock(tools);
}

/** The `\n\n# Tools ...</tool_call>` text the template appends to the system message. */
export function renderToolsBlock(tools: QwenTool[]): string {
  return (
    '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
    'You are provided with function signatures within <tools></tools> XML tags:\n<tools>' +
    tools.map((t) => `\n${pyJson(t)}`).join('') +
    '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ' +
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
  );
}

export interface ParsedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Every <tool_call>{json}</tool_call> in an assistant turn; malformed ones come back as errors. */
export function parseToolCalls(text: string): { calls: ParsedToolCall[]; errors: string[] } {
  const calls: ParsedToolCall[] = [];
  const errors: string[] = [];
  for (const m of text.matchAll(/<tool_call>\s*(\{[\s\S]*?\})\s*<\/tool_call>/g)) {
    try {
      const obj = JSON.parse(m[1]) as { name?: unknown; arguments?: unknown };
      let args: unknown = obj.arguments ?? {};
      if (typeof args === 'string') args = JSON.parse(args) as unknown;
      if (typeof obj.name !== 'string' || typeof args !== 'object' || args === null || Array.isArray(args)) {
        errors.push(`tool call needs a string "name" and an object "arguments": ${m[1].slice(0, 200)}`);
        continue;
      }
      calls.push({ name: obj.name, arguments: args as Record<string, unknown> });
    } catch (e) {
      errors.push(`tool call is not valid JSON (${(e as Error).message}): ${m[1].slice(0, 200)}`);
    }
  }
  return { calls, errors };
}
