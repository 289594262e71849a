// The two task families of the shipped agent, drawn from phrasing templates with seeded numbers
// and names: calculator (multi-step arithmetic word problems; the reference Python expression is
// kept in metadata.code) and lookup (questions on a place of the fictional corpus). Each family
// has phrasings reserved for the held-out split (drawn there alongside the training ones), and
// held-out tasks use other people and places than training and an operand never seen in training.
// Used by scripts/make-agent-data.ts; tested by tests/unit/tooling/agent-data.test.ts.
import type { AgentTask } from '../../src/data/schemas';
import { factValue, intIn, pick, type Attribute, type Place, type Rand } from './world';

export type Split = 'train' | 'eval';

interface CalcTemplate {
  id: string;
  /** Number of operands. */
  n: number;
  text: (p: string, item: string, x: number[]) => string;
  /** The Python expression the traces run. */
  code: (x: number[]) => string;
  /** Its value (must agree with Python; checked against the real tool when traces are made). */
  value: (x: number[]) => number;
}

const CALC_TEMPLATES: CalcTemplate[] = [
  { id: 'add', n: 2, text: (p, it, [a, b]) => `${p} has ${a} ${it}. ${p} buys ${b} more. How many ${it} does ${p} have now?`, code: ([a, b]) => `${a} + ${b}`, value: ([a, b]) => a + b },
  { id: 'sub', n: 2, text: (p, it, [a, b]) => `${p} has ${a} ${it} and gives ${b} to a friend. How many ${it} are left?`, code: ([a, b]) => `${a} - ${b}`, value: ([a, b]) => a - b },
  { id: 'mul', n: 2, text: (p, it, [a, b]) => `${p} buys ${a} boxes with ${b} ${it} in each box. How many ${it} is that?`, code: ([a, b]) => `${a} * ${b}`, value: ([a, b]) => a * b },
  { id: 'add_sub', n: 3, text: (p, it, [a, b, c]) => `${p} has ${a} ${it}. ${p} buys ${b} more, then gives away ${c}. How many ${it} does ${p} have?`, code: ([a, b, c]) => `${a} + ${b} - ${c}`, value: ([a, b, c]) => a + b - c },
  { id: 'mul_sub', n: 3, text: (p, it, [a, b, c]) => `${p} buys ${a} bags of ${b} ${it} and uses ${c} of them. How many ${it} are left?`, code: ([a, b, c]) => `${a} * ${b} - ${c}`, value: ([a, b, c]) => a * b - c },
  { id: 'mul_add', n: 3, text: (p, it, [a, b, c]) => `${p} has ${a} shelves of ${b} ${it} and finds ${c} more. How many ${it} does ${p} have in total?`, code: ([a, b, c]) => `${a} * ${b} + ${c}`, value: ([a, b, c]) => a * b + c },
];
/** Held out: a phrasing (and an operation order) never seen in training. */
const CALC_HELD_OUT: CalcTemplate = {
  id: 'shop_delivery', n: 3, text: (p, it, [a, b, c]) => `A shop run by ${p} had ${a} ${it}. A delivery brought ${b} and the shop sold ${c}. How many ${it} remain?`,
  code: ([a, b, c]) => `${a} + ${b} - ${c}`, value: ([a, b, c]) => a + b - c,
};

const TRAIN_PEOPLE = ['Mia', 'Tom', 'Ana', 'Leo', 'Sara', 'Ben', 'Nina', 'Omar', 'Lily', 'Sam', 'Eva', 'Max', 'Zoe', 'Ivan', 'Rosa', 'Paul'];
export const HELD_OUT_PEOPLE: readonly string[] = ['Hugo', 'Greta', 'Yusuf', 'Olga'];
const ITEMS = ['apples', 'pens', 'stamps', 'marbles', 'cards', 'eggs', 'shells', 'books', 'coins', 'beads'];
/** Training operands are 2-60; every held-out task has one operand from 61-99 (never seen in training), at a random position. */
const TRAIN_NUMBERS: [number, number] = [2, 60];
const HELD_OUT_NUMBERS: [number, number] = [61, 99];

function operands(rand: Rand, split: Split, n: number): number[] {
  const x = Array.from({ length: n }, () => intIn(rand, ...TRAIN_NUMBERS));
  if (split === 'eval') x[intIn(rand, 0, n - 1)] = intIn(rand, ...HELD_OUT_NUMBERS);
  return x;
}

export function calculatorTask(rand: Rand, split: Split, index: number): AgentTask {
  // Held-out tasks draw from the training phrasings and the held-out one alike.
  const t = pick(rand, split === 'eval' ? [...CALC_TEMPLATES, CALC_HELD_OUT] : CALC_TEMPLATES);
  let x: number[];
  do x = operands(rand, split, t.n);
  while (t.value(x) <= 0);
  const person = pick(rand, split === 'eval' ? HELD_OUT_PEOPLE : TRAIN_PEOPLE);
  const code = t.code(x);
  const answer = String(t.value(x));
  return { task_id: `calc-${split}-${index}`, family: 'calculator', question: t.text(person, pick(rand, ITEMS), x), answer, metadata: { split, template: t.id, code: `print(${code})` } };
}

export interface LookupTemplate {
  id: string;
  attribute: Attribute;
  text: (place: string) => string;
  /** The search query the traces use. */
  query: (place: string) => string;
}

export const LOOKUP_TEMPLATES: LookupTemplate[] = [
  { id: 'region_a', attribute: 'region', text: (x) => `In which region is ${x}?`, query: (x) => `region of ${x}` },
  { id: 'region_b', attribute: 'region', text: (x) => `What region is ${x} in?`, query: (x) => `region of ${x}` },
  { id: 'leader_a', attribute: 'leader', text: (x) => `Who leads ${x}?`, query: (x) => `leader of ${x}` },
  { id: 'leader_b', attribute: 'leader', text: (x) => `Who is the leader of ${x}?`, query: (x) => `leader of ${x}` },
  { id: 'founded_a', attribute: 'founded', text: (x) => `When was ${x} founded?`, query: (x) => `founding of ${x}` },
  { id: 'founded_b', attribute: 'founded', text: (x) => `In what year was ${x} founded?`, query: (x) => `founding of ${x}` },
  { id: 'export_a', attribute: 'export', text: (x) => `What is the main export of ${x}?`, query: (x) => `export of ${x}` },
  { id: 'export_b', attribute: 'export', text: (x) => `What does ${x} mainly export?`, query: (x) => `export of ${x}` },
  { id: 'river_a', attribute: 'river', text: (x) => `Which river flows through ${x}?`, query: (x) => `river of ${x}` },
  { id: 'river_b', attribute: 'river', text: (x) => `What is the name of the river in ${x}?`, query: (x) => `river of ${x}` },
];
/** Held out: a phrasing never seen in training. */
const LOOKUP_HELD_OUT: LookupTemplate[] = [
  { id: 'leader_held', attribute: 'leader', text: (x) => `Tell me the name of the person in charge of ${x}.`, query: (x) => `leader of ${x}` },
  { id: 'founded_held', attribute: 'founded', text: (x) => `How old is the founding date of ${x}? Give the year.`, query: (x) => `founding of ${x}` },
];

export function lookupTask(rand: Rand, split: Split, index: number, places: readonly Place[]): AgentTask {
  const t = pick(rand, split === 'eval' ? [...LOOKUP_TEMPLATES, ...LOOKUP_HELD_OUT] : LOOKUP_TEMPLATES);
  const pool = places.filter((p) => p.heldOut === (split === 'eval'));
  const place = pick(rand, pool);
  return {
    task_id: `lookup-${split}-${index}`, family: 'lookup', question: t.text(place.name), answer: factValue(place, t.attribute),
    metadata: { split, template: t.id, place: place.name, query: t.query(place.name) },
  };
}
