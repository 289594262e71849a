// Augmentation of the SFT traces for the default agent's `augment` stage. The SFT model learnt
// the sixteen training people as part of the calculator pattern: with the held-out people in the
// same questions it answered 12 % instead of 68 % and most of its calls lost their arguments. Three
// of the four held-out names start with a letter token no training text contains ("H", "O", "Y"),
// whose embedding training never set, and that alone derails the call. A calculator trace with its
// person replaced by a made-up name (half from the place-name syllables, half random letters, so
// every letter token is trained; never a held-out person) teaches that the name does not matter.
// The reading drill: lookup traces about places made up for one example each (below).
// Used by scripts/train-agent.ts; tested by tests/unit/tooling/agent-data.test.ts.
import type { ChatMessage } from '../../src/agents/chat-template';
import type { QwenTool } from '../../src/tools/qwen-tools';
import { AGENT_SYSTEM_PROMPT } from '../../src/envs/agent/env';
import { relevantSentencesFirst } from '../../src/tools/search-tool';
import { formatResults } from '../../src/tools/search/types';
import { HELD_OUT_PEOPLE, LOOKUP_TEMPLATES } from './tasks';
import { EXPORTS, PLACE_KINDS, factValue, intIn, madeUpName, pick, placeDoc, type Place, type Rand } from './world';

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

/** A place of its own for one reading example: made-up name, region, leader and river, a year, an export that half the time is a made-up word. */
function freshPlace(rand: Rand): Place {
  return {
    name: madeUpName(rand, intIn(rand, 2, 3)),
    kind: pick(rand, PLACE_KINDS),
    region: madeUpName(rand, 2),
    leader: `${madeUpName(rand, 2)} ${madeUpName(rand, 2)}`,
    founded: intIn(rand, 1100, 1899),
    export: rand() < 0.5 ? pick(rand, EXPORTS) : madeUpName(rand, intIn(rand, 1, 2)).toLowerCase(),
    river: madeUpName(rand, 2),
    heldOut: false,
  };
}

/**
 * One reading example: a lookup trace (a training phrasing) about a place made up for it alone,
 * with the search result the tool would give for its document (sentences sharing the query's
 * words first). The SFT model found the asked sentence but guessed the answer's first token from
 * what answers usually are ("honey", a frequent region); a value seen nowhere else can only be
 * read. A place whose name, region, leader or river is in `avoid` (the held-out places and
 * answers) is redrawn.
 */
export function readingDrill(rand: Rand, tools: QwenTool[], avoid: ReadonlySet<string>): AgentTrace {
  let place: Place;
  do place = freshPlace(rand);
  while ([place.name, place.region, place.leader, place.river].some((x) => avoid.has(x)));
  const t = pick(rand, LOOKUP_TEMPLATES);
  const doc = placeDoc(place);
  const query = t.query(place.name);
  const response = formatResults([relevantSentencesFirst({ title: doc.title, url: `corpus://${doc.id}`, snippet: doc.text }, query)]);
  return {
    messages: [
      { role: 'system', content: AGENT_SYSTEM_PROMPT },
      { role: 'user', content: t.text(place.name) },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'search', arguments: { query } } }] },
      { role: 'tool', name: 'search', content: response },
      { role: 'assistant', content: `<answer> ${factValue(place, t.attribute)}</answer>` },
    ],
    tools,
  };
}

/** The trace answered without a tool: the system prompt, the question and the final answer only. */
export function withoutTool(t: AgentTrace): AgentTrace {
  const m = t.messages;
  return { ...t, messages: [m[0], m[1], m[m.length - 1]] };
}

/**
 * The direct stage's data: the SFT traces (JSONL lines, in order) with each one, with probability
 * `share`, rewritten to answer directly (`withoutTool`), as SFT data gathered from several
 * sources mixes tool-using episodes with answers written from memory. The answers are right, but
 * a 263K model cannot do three-operand arithmetic or recall an unseen place's facts in its head,
 * so imitating them fails; a model trained on the mix calls a tool on about half the questions,
 * and RL (the GRPO preset) teaches it that calling the tool pays.
 */
export function directMix(traces: readonly string[], rand: Rand, share: number): string[] {
  return traces.map((l) => (rand() < share ? JSON.stringify(withoutTool(JSON.parse(l) as AgentTrace)) : l));
}
