// Token-faithful prompts: when a request continues a rollout (its messages start with an earlier
// call's messages followed by the assistant message this server returned), the prompt is that
// call's exact token ids (prompt + sampled completion) plus only the new turns, tokenized alone
// (TurnRenderer.continuation), so earlier samples are never re-tokenized; otherwise the whole
// conversation is rendered and tokenized, and the first token where that differs from the
// rollout's stored tokens is reported. Tested by tests/unit/server/serve-prompt.test.ts (Qwen2.5 tool
// template) and serve-openai.test.ts (multi-turn through the server).
import type { ChatMessage } from '../../agents/chat-template';
import type { TurnRenderer } from '../../agents/turn-render';
import type { CallRecord, Divergence } from './traces';

export interface BuiltPrompt {
  ids: number[];
  /** [ids] 1 where an earlier call of the rollout sampled the token. */
  mask: number[];
  /** [ids] that call's sampling log-prob where mask is 1. */
  logprobs: (number | null)[];
  faithful: boolean;
  diverged: Divergence | null;
}

const argsOf = (a: Record<string, unknown> | string) => (typeof a === 'string' ? a : JSON.stringify(a));

/** The same turn as the client echoes it back (content trimmed, calls by name and arguments). */
export function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  if (a.role !== b.role || a.content.trim() !== b.content.trim()) return false;
  const ca = a.tool_calls ?? [], cb = b.tool_calls ?? [];
  return ca.length === cb.length && ca.every((c, i) => c.function.name === cb[i].function.name && argsOf(c.function.arguments) === argsOf(cb[i].function.arguments));
}

function continues(messages: ChatMessage[], call: CallRecord): boolean {
  const k = call.messages.length;
  if (messages.length <= k + 1) return false;
  return call.messages.every((m, i) => sameMessage(m, messages[i])) && sameMessage(call.response, messages[k]);
}

export function buildPrompt(renderer: TurnRenderer, messages: ChatMessage[], history: readonly CallRecord[]): BuiltPrompt {
  // The latest call (choice) the conversation continues, longest history first.
  const match = [...history].reverse().find((c) => continues(messages, c));
  if (match) {
    const k = match.messages.length;
    const last = match.tokens[match.tokens.length - 1];
    const stopId = renderer.defaultStopIds.includes(last) ? last : null;
    try {
      const more = renderer.continuation([...match.messages, match.response], messages.slice(k + 1), stopId);
      return {
        ids: match.tokens.concat(more), mask: match.mask.concat(more.map(() => 0)),
        logprobs: match.logprobs.concat(more.map(() => null)), faithful: true, diverged: null,
      };
    } catch {
      // A template whose renderings do not only grow: fall through to a full render.
    }
  }
  const ids = renderer.prompt(messages).ids;
  const built: BuiltPrompt = { ids, mask: ids.map(() => 0), logprobs: ids.map(() => null), faithful: history.length === 0, diverged: null };
  if (history.length && messages.some((m) => m.role === 'assistant')) {
    // Report against the stored sequence that shares the longest prefix with the re-tokenized one.
    let best = history[0], bestAt = -1;
    for (const c of history) {
      let i = 0;
      while (i < ids.length && i < c.tokens.length && ids[i] === c.tokens[i]) i++;
      if (i > bestAt) [best, bestAt] = [c, i];
    }
    built.diverged = {
      token: bestAt,
      reason: `no assistant message matches a completion of this rollout; the re-tokenized history differs from call ${best.call_id} (choice ${best.choice}) at token ${bestAt}`,
    };
  } else if (history.length) {
    built.faithful = true; // a new conversation in the same rollout: nothing sampled to preserve
  }
  return built;
}
