// The copy drill: the first stage of the default agent's curriculum. Each example asks the model
// to repeat a random sequence of numbers, made-up names and words verbatim, so nearly every
// trained token is a copy from earlier in the context at a varying distance. A 4-layer model
// trained from scratch on the agent traces alone never learns to copy a tool response into its
// answer; this drill makes it learn copying (induction) first. Used by scripts/make-agent-data.ts;
// tested by tests/unit/tooling/agent-data.test.ts.
import type { ChatMessage } from '../../src/agents/chat-template';
import { EXPORTS, PLACE_KINDS, intIn, madeUpName, pick, type Rand } from './world';

export const COPY_SYSTEM = 'Repeat the text exactly.';

const WORDS = [...EXPORTS, ...PLACE_KINDS, 'print', 'founded', 'river', 'leader', 'region', 'apples', 'coins', 'has', 'buys', 'more', 'the', 'of', 'in'];
const OPS = ['+', '-', '*', '(', ')', ',', '.'];

/** One item of a drill line: a 1-4 digit number, a made-up name, a word or an operator. */
function item(rand: Rand): string {
  const r = rand();
  if (r < 0.4) return String(intIn(rand, 0, [9, 99, 999, 9999][intIn(rand, 0, 3)]));
  if (r < 0.7) return madeUpName(rand, intIn(rand, 1, 3));
  if (r < 0.9) return pick(rand, WORDS);
  return pick(rand, OPS);
}

/** One drill example: 3-14 items, repeated by the assistant (inside <answer> for a third of them). */
export function copyDrill(rand: Rand): { messages: ChatMessage[]; tools: [] } {
  const text = Array.from({ length: intIn(rand, 3, 14) }, () => item(rand)).join(' ');
  const answer = rand() < 1 / 3 ? `<answer> ${text}</answer>` : text;
  return {
    messages: [
      { role: 'system', content: COPY_SYSTEM },
      { role: 'user', content: text },
      { role: 'assistant', content: answer },
    ],
    tools: [],
  };
}
