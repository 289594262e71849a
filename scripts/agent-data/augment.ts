// Augmentation of the SFT traces for the default agent's `augment` stage. The SFT model learnt
// the sixteen training people as part of the calculator pattern: with the held-out people in the
// same questions it answered 12 % instead of 68 % and most of its calls lost their arguments. Three
// of the four held-out names start with a letter token no training text contains ("H", "O", "Y"),
// whose embedding training never set, and that alone derails the call. A calculator trace with its
// person replaced by a made-up name (half from the place-name syllables, half random letters, so
// every letter token is trained; never a held-out person) teaches that the name does not matter.
// Used by scripts/train-agent.ts; tested by tests/unit/tooling/agent-data.test.ts.
import type { ChatMessage } from '../../src/agents/chat-template';
import type { QwenTool } from '../../src/tools/qwen-tools';
import { HELD_OUT_PEOPLE } from './tasks';
import { intIn, madeUpName, type Rand } from './world';

export interface AgentTrace {
  messages: ChatMessage[];
  tools: QwenTool[];
}

/** The tool the trace's first call names (undefined for a trace without one). */
export function traceTool(t: AgentTrace): string | undefined {
  return t.messages.find((m) => m.tool_calls?.length)?.tool_calls?.[0].function.name;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** A made-up person: 1-2 place-name syllables, or a capital and 1-6 lowercase letters; never a held-out person. */
export function madeUpPerson(rand: Rand): string {
  for (;;) {
    const name = rand() < 0.5
      ? madeUpName(rand, intIn(rand, 1, 2))
      : Array.from({ length: intIn(rand, 2, 7) }, (_, i) => (i ? LOWER : LOWER.toUpperCase())[intIn(rand, 0, 25)]).join('');
    if (!HELD_OUT_PEOPLE.includes(name)) return name;
  }
}

/** A calculator trace whose person (the question's first word) is a made-up name everywhere in the question. */
export function withMadeUpPerson(t: AgentTrace, rand: Rand): AgentTrace {
  const name = madeUpPerson(rand);
  return {
    ...t,
    messages: t.messages.map((m) => {
      if (m.role !== 'user') return m;
      const person = m.content.split(' ')[0];
      return { ...m, content: m.content.replace(new RegExp(`\\b${person}\\b`, 'g'), name) };
    }),
  };
}
