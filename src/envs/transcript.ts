// Reading a finished or running episode: the final assistant text, the tool calls made (from
// `<tool_call>` text or structured `tool_calls`), the assistant text without tool calls, and the
// count of malformed or invalid calls in a turn. Used by the environments; tested through
// tests/unit/envs/env-*.test.ts.
import type { ChatMessage } from '../agents/chat-template';
import { parseToolCalls, type ParsedToolCall } from '../tools/qwen-tools';
import type { TurnToolResult } from './types';

/** The content of the last assistant message ("" when there is none). */
export function lastAssistantText(transcript: ChatMessage[]): string {
  for (let i = transcript.length - 1; i >= 0; i--) if (transcript[i].role === 'assistant') return transcript[i].content;
  return '';
}

/** The text with every `<tool_call>...</tool_call>` block (closed or not) removed. */
export function stripToolCalls(text: string): string {
  return text.replace(/<tool_call>[\s\S]*?(<\/tool_call>|$)/g, '').trim();
}

/** Every tool call the assistant made in the transcript, in order. */
export function assistantToolCalls(transcript: ChatMessage[]): ParsedToolCall[] {
  const calls: ParsedToolCall[] = [];
  for (const m of transcript) {
    if (m.role !== 'assistant') continue;
    calls.push(...parseToolCalls(m.content).calls);
    for (const tc of m.tool_calls ?? []) {
      let args = tc.function.arguments;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args) as Record<string, unknown>;
        } catch {
          args = {};
        }
      }
      calls.push({ name: tc.function.name, arguments: args });
    }
  }
  return calls;
}

/** Malformed `<tool_call>` blocks: those the loop reported (args null) or, if more, those in the text. */
export function countMalformed(assistantText: string, toolResults: TurnToolResult[]): number {
  return Math.max(toolResults.filter((r) => r.args === null).length, parseToolCalls(assistantText).errors.length);
}

/** Malformed blocks plus calls the registry rejected (unknown tool, arguments not matching the schema). */
export function countToolErrors(assistantText: string, toolResults: TurnToolResult[]): number {
  const invalid = toolResults.filter((r) => r.args !== null && !r.ok && (r.error ?? '').startsWith('invalid call')).length;
  return countMalformed(assistantText, toolResults) + invalid;
}

/**
 * The built-in environments' step: a `tool_errors` count as the turn's reward, and the episode
 * ends on a turn without tool calls (the model has answered).
 */
export function defaultTurnOutcome(assistantText: string, toolResults: TurnToolResult[]): { reward: { tool_errors: number }; done: boolean } {
  return { reward: { tool_errors: countToolErrors(assistantText, toolResults) }, done: toolResults.length === 0 && countMalformed(assistantText, toolResults) === 0 };
}
