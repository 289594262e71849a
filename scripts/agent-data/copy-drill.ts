// The drills of the default agent's curriculum, on random numbers, made-up names and words.
// The copy drill (first stage): repeat the user's text verbatim. A 4-layer model trained from
// scratch on the agent traces alone never learns to copy a tool response into its answer, and this
// drill alone does not fix that: repeating a whole message can be learnt by position (the k-th
// token of the reply is the k-th token of the message), which does not transfer. The induction
// drill (second stage) copies a span that starts at a random item, from the user text or from a
// tool response, so only looking up what followed the previous token (an induction head) predicts
// it. Used by scripts/train-agent.ts; tested by tests/unit/tooling/agent-data.test.ts.
import type { ChatMessage } from '../../src/agents/chat-template';
import type { QwenTool } from '../../src/tools/qwen-tools';
import { AGENT_SYSTEM_PROMPT } from '../../src/envs/agent/env';
import { EXPORTS, PLACE_KINDS, intIn, madeUpName, pick, type Rand } from './world';

export const COPY_SYSTEM = 'Repeat the text exactly.';

const WORDS = [...EXPORTS, ...PLACE_KINDS, 'print', 'founded', 'river', 'leader', 'region', 'apples', 'coins', 'has', 'buys', 'more', 'the', 'of', 'in'];
const INDUCTION_WORDS = [...WORDS, 'is', 'It', 'was', 'Its'];
const OPS = ['+', '-', '*', '(', ')', ',', '.'];

/** One item of a drill line: a 1-4 digit number, a made-up name, a word or an operator. */
function item(rand: Rand, words = WORDS): string {
  const r = rand();
  if (r < 0.4) return String(intIn(rand, 0, [9, 99, 999, 9999][intIn(rand, 0, 3)]));
  if (r < 0.7) return madeUpName(rand, intIn(rand, 1, 3));
  if (r < 0.9) return pick(rand, words);
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

export const SPAN_SYSTEM = 'Repeat part of the text.';
export const TOOL_SPAN_SYSTEM = 'Call a tool, then repeat part of its output inside <answer></answer>.';

const items = (rand: Rand, lo: number, hi: number): string[] => Array.from({ length: intIn(rand, lo, hi) }, () => item(rand, INDUCTION_WORDS));

/** 1-8 consecutive items of `xs` from a random start. */
function span(rand: Rand, xs: string[]): string {
  const n = intIn(rand, 1, Math.min(8, xs.length));
  const i = intIn(rand, 0, xs.length - n);
  return xs.slice(i, i + n).join(' ');
}

/**
 * One induction-drill example. 40%: the assistant repeats a span of 6-18 user items (inside
 * <answer> half the time). 60%: a tool episode in the agent's format (`tools`, the agent's own
 * tool list): the call's argument is a span of the user text (python wraps it in print()), the
 * tool response is 3-16 random items and the answer is a span of it.
 */
export function inductionDrill(rand: Rand, tools: QwenTool[]): { messages: ChatMessage[]; tools: QwenTool[] } {
  const text = items(rand, 6, 18);
  if (rand() < 0.4) {
    const s = span(rand, text);
    return {
      messages: [
        { role: 'system', content: SPAN_SYSTEM },
        { role: 'user', content: text.join(' ') },
        { role: 'assistant', content: rand() < 0.5 ? `<answer> ${s}</answer>` : s },
      ],
      tools: [],
    };
  }
  const output = items(rand, 3, 16);
  const tool = rand() < 0.5 ? 'python' : 'search';
  const args = tool === 'python' ? { code: `print(${span(rand, text)})` } : { query: span(rand, text) };
  return {
    messages: [
      { role: 'system', content: TOOL_SPAN_SYSTEM },
      { role: 'user', content: text.join(' ') },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: tool, arguments: args } }] },
      { role: 'tool', name: tool, content: output.join(' ') },
      { role: 'assistant', content: `<answer> ${span(rand, output)}</answer>` },
    ],
    tools,
  };
}

/** The value of n0 op0 n1 op1 n2 ... with * before + and - (Python's precedence). */
function evaluate(nums: number[], ops: string[]): number {
  const terms: number[] = [nums[0]], signs: number[] = [1];
  ops.forEach((op, i) => {
    if (op === '*') terms[terms.length - 1] *= nums[i + 1];
    else { terms.push(nums[i + 1]); signs.push(op === '-' ? -1 : 1); }
  });
  return terms.reduce((acc, t, i) => acc + signs[i] * t, 0);
}

/**
 * One extraction-drill example, the calculator's moves on random text: 2-3 numbers (2-99) among
 * 4-12 names and words, the operators at the end of the user line; the assistant calls python on
 * the numbers in order of appearance, and the answer repeats the printed value (computed here,
 * as Python would).
 */
export function extractDrill(rand: Rand, tools: QwenTool[]): { messages: ChatMessage[]; tools: QwenTool[] } {
  const words = items(rand, 4, 12).filter((x) => !/^[0-9]/.test(x) && !OPS.includes(x));
  const nums = Array.from({ length: intIn(rand, 2, 3) }, () => intIn(rand, 2, 99));
  for (const n of nums) words.splice(intIn(rand, 0, words.length), 0, String(n));
  const inOrder = words.filter((x) => /^[0-9]+$/.test(x)).map(Number);
  const ops = inOrder.slice(1).map(() => pick(rand, ['+', '-', '*']));
  const expr = inOrder.map((n, i) => (i ? ` ${ops[i - 1]} ` : '') + n).join('');
  const value = String(evaluate(inOrder, ops));
  return {
    messages: [
      { role: 'system', content: AGENT_SYSTEM_PROMPT },
      { role: 'user', content: `${words.join(' ')} ${ops.join(' ')}` },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'python', arguments: { code: `print(${expr})` } } }] },
      { role: 'tool', name: 'python', content: value },
      { role: 'assistant', content: `<answer> ${value}</answer>` },
    ],
    tools,
  };
}
